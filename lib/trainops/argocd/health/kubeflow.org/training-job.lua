-- Argo CD health check for the Kubeflow v1 training jobs (kubeflow.org PyTorchJob, TFJob,
-- XGBoostJob, PaddleJob, JAXJob, MPIJob v1) and mpi-operator's MPIJob v2beta1 (same group and kind
-- as MPIJob v1, same condition types).
--
-- Sources (condition types, and how the controllers set them):
--   kubeflow/training-operator v1.9.0 pkg/apis/kubeflow.org/v1/common_types.go JobConditionType:
--     Created, Running, Restarting, Succeeded, Suspended (since v1.7), Failed;
--   kubeflow/training-operator v1.9.0 pkg/util/status.go setCondition / filterOutCondition:
--     Failed is terminal (no condition changes once Failed is True); Succeeded or Failed turns
--     Running to False; Running and Restarting replace each other;
--   kubeflow/training-operator v1.9.0 pkg/controller.v1/common/job.go ReconcileJobs: a suspended
--     job gets Suspended=True and Running=False ("<Kind> <name> is suspended."), a resumed one
--     Suspended=False ("... is resumed.");
--   kubeflow/mpi-operator pkg/apis/kubeflow/v2beta1/types.go JobConditionType (same six types) and
--     pkg/controller/mpi_job_controller_status.go setCondition / filterOutCondition.
--
-- Result, first match wins:
--   no status.conditions        -> Progressing "Waiting for <Kind> to report status"
--   Failed=True                 -> Degraded    (the Failed condition's message)
--   Succeeded=True              -> Healthy     (the Succeeded condition's message)
--   Suspended=True              -> Suspended   (the Suspended condition's message)
--   Restarting=True             -> Progressing (the Restarting condition's message)
--   Running=True                -> Progressing (the Running condition's message)
--   Created=True                -> Progressing (the Created condition's message)
--   otherwise                   -> Progressing (the message of the last condition)
--
-- Runs under Argo CD's gopher-lua (Lua 5.1) without the standard libraries (no
-- resource.customizations.useOpenLibs needed): it uses only base functions and the .. operator.
if obj.status == nil or obj.status.conditions == nil or #obj.status.conditions == 0 then
  hs.status = "Progressing"
  hs.message = "Waiting for " .. obj.kind .. " to report status"
  return hs
end

local conditions = obj.status.conditions
local order = {
  { type = "Failed", status = "Degraded" },
  { type = "Succeeded", status = "Healthy" },
  { type = "Suspended", status = "Suspended" },
  { type = "Restarting", status = "Progressing" },
  { type = "Running", status = "Progressing" },
  { type = "Created", status = "Progressing" },
}
if apply_first(conditions, order) then
  return hs
end

hs.status = "Progressing"
hs.message = message_of(conditions[#conditions])
return hs
