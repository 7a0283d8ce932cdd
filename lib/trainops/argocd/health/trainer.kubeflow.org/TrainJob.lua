-- Argo CD health check for Kubeflow Trainer v2's trainer.kubeflow.org/v1alpha1 TrainJob.
--
-- Sources:
--   kubeflow/trainer v2.3.0 pkg/apis/trainer/v1alpha1/trainjob_types.go: condition types
--     Suspended, Complete, Failed (metav1.Condition); reasons Suspended, Resumed,
--     TrainingRuntimeNotSupported, DeadlineExceeded; status.jobsStatus[] with the counters
--     ready, succeeded, failed, active, suspended of each replicated job;
--   kubeflow/trainer pkg/runtime/framework/plugins/jobset/jobset.go (*JobSet).Status: Complete and
--     Failed are the JobSet's Completed and Failed conditions, renamed;
--   kubeflow/trainer pkg/controller/trainjob_controller.go setSuspendedCondition ("TrainJob is
--     suspended", "TrainJob is resumed") and reconcileDeadline ("TrainJob exceeded its active deadline");
--   kubeflow/trainer commit c33382602 "Remove TrainJobCreated condition (#2621)": releases before
--     v2.0.0 also set Created (False with reasons JobsBuildFailed or JobsCreationFailed); a Created=False
--     condition is reported as Degraded.
--
-- Result, first match wins:
--   no status.conditions and no status.jobsStatus -> Progressing "Waiting for TrainJob to report status"
--   Failed=True                                  -> Degraded    (the Failed condition's message)
--   Created=False                                -> Degraded    (the Created condition's message)
--   Complete=True                                -> Healthy     (the Complete condition's message)
--   Suspended=True                               -> Suspended   (the Suspended condition's message)
--   status.jobsStatus present                    -> Progressing "<job>: 1 active, 1 ready, 0 succeeded,
--                                                   0 failed; <job>: ..." (one part per replicated job)
--   otherwise                                    -> Progressing (the message of the last condition)
--
-- Runs under Argo CD's gopher-lua (Lua 5.1) without the standard libraries.
local status = obj.status
if status == nil then
  status = {}
end
local conditions = status.conditions
local jobs = status.jobsStatus
if (conditions == nil or #conditions == 0) and (jobs == nil or #jobs == 0) then
  hs.status = "Progressing"
  hs.message = "Waiting for TrainJob to report status"
  return hs
end

local rules = {
  { type = "Failed", condition_status = "True", status = "Degraded" },
  { type = "Created", condition_status = "False", status = "Degraded" },
  { type = "Complete", condition_status = "True", status = "Healthy" },
  { type = "Suspended", condition_status = "True", status = "Suspended" },
}
if apply_first(conditions, rules) then
  return hs
end

hs.status = "Progressing"
if jobs ~= nil and #jobs > 0 then
  local message = ""
  for i, job in ipairs(jobs) do
    if i > 1 then
      message = message .. "; "
    end
    message = message .. job.name .. ": " .. count(job.active) .. " active, " .. count(job.ready) .. " ready, "
      .. count(job.succeeded) .. " succeeded, " .. count(job.failed) .. " failed"
  end
  hs.message = message
  return hs
end
hs.message = message_of(conditions[#conditions])
return hs
