-- Argo CD health check for Katib's kubeflow.org/v1beta1 Experiment.
--
-- Sources:
--   kubeflow/katib pkg/apis/controller/experiments/v1beta1/experiment_types.go
--     ExperimentConditionType: Created, Running, Restarting, Succeeded, Failed; ExperimentStatus
--     counters trialsRunning, trialsPending, trialsSucceeded, trialsFailed (int32, omitted when 0);
--   kubeflow/katib pkg/apis/controller/experiments/v1beta1/util.go MarkExperimentStatus*: Succeeded
--     and Failed turn Running to False; Restarting removes Succeeded and Failed;
--   kubeflow/katib pkg/controller.v1beta1/experiment/util/status_util.go
--     UpdateExperimentStatusCondition: the messages ("Experiment is running", "Experiment has
--     succeeded because max trial count has reached", "Experiment has failed because max failed
--     count has reached", ...).
--
-- Result, first match wins:
--   no status.conditions   -> Progressing "Waiting for Experiment to report status"
--   Failed=True            -> Degraded    (the Failed condition's message)
--   Succeeded=True         -> Healthy     (the Succeeded condition's message)
--   Restarting=True        -> Progressing (the Restarting condition's message)
--   Running=True           -> Progressing (the Running message, then the trial counts:
--                              "Experiment is running: 2 trials running, 1 pending, 3 succeeded, 0 failed")
--   Created=True           -> Progressing (the Created condition's message)
--   otherwise              -> Progressing (the message of the last condition)
--
-- Runs under Argo CD's gopher-lua (Lua 5.1) without the standard libraries.
if obj.status == nil or obj.status.conditions == nil or #obj.status.conditions == 0 then
  hs.status = "Progressing"
  hs.message = "Waiting for Experiment to report status"
  return hs
end

local conditions = obj.status.conditions
if apply_first(conditions, {
  { type = "Failed", status = "Degraded" },
  { type = "Succeeded", status = "Healthy" },
  { type = "Restarting", status = "Progressing" },
}) then
  return hs
end
local running = condition_true(conditions, "Running")
if running ~= nil then
  hs.status = "Progressing"
  hs.message = message_of(running) .. ": " .. count(obj.status.trialsRunning) .. " trials running, "
    .. count(obj.status.trialsPending) .. " pending, " .. count(obj.status.trialsSucceeded) .. " succeeded, "
    .. count(obj.status.trialsFailed) .. " failed"
  return hs
end
if apply_first(conditions, { { type = "Created", status = "Progressing" } }) then
  return hs
end
hs.status = "Progressing"
hs.message = message_of(conditions[#conditions])
return hs
