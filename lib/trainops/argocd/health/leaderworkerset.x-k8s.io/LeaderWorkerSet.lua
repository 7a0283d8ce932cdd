-- Argo CD health check for kubernetes-sigs/lws LeaderWorkerSet (leaderworkerset.x-k8s.io/v1).
--
-- Sources (kubernetes-sigs/lws v0.10.0):
--   api/leaderworkerset/v1/leaderworkerset_types.go: condition types Available ("at least the
--     minimum available groups are up and running"), Progressing and UpdateInProgress; status
--     readyReplicas, updatedReplicas, replicas (groups) and observedGeneration;
--   pkg/controllers/leaderworkerset_controller.go updateConditions, makeCondition, setCondition:
--     while a rolling update runs UpdateInProgress and Progressing are True (reason GroupsUpdating,
--     "Rolling Upgrade is in progress"); once every group of spec.replicas is ready and updated,
--     Available is True (reason AllGroupsReady, "All replicas are ready") and the other two are set
--     False; otherwise Progressing is True (reason GroupsProgressing, "Replicas are progressing").
--
-- Result, first match wins:
--   no status.conditions                        -> Progressing "Waiting for LeaderWorkerSet to report status"
--   status.observedGeneration < generation      -> Progressing "Waiting for the controller to observe generation <n>"
--   UpdateInProgress=True                       -> Progressing (its message, "<updated> of <replicas> groups updated")
--   Available=True                              -> Healthy     (its message, "<ready> of <replicas> groups ready")
--   Progressing=True                            -> Progressing (its message, "<ready> of <replicas> groups ready")
--   otherwise                                   -> Progressing (the message of the last condition)
--
-- The controller sets no failure or pause condition: a group whose pods crash loops stays
-- Progressing, as Argo CD reports a StatefulSet (gitops-engine pkg/health/health_statefulset.go).
-- Runs under Argo CD's gopher-lua (Lua 5.1) without the standard libraries.
local function result(status, message)
  hs.status = status
  hs.message = message
  return hs
end

if obj.status == nil or obj.status.conditions == nil or #obj.status.conditions == 0 then
  return result("Progressing", "Waiting for LeaderWorkerSet to report status")
end

local generation = obj.metadata ~= nil and obj.metadata.generation or nil
local observed = obj.status.observedGeneration
if generation ~= nil and observed ~= nil and observed < generation then
  return result("Progressing", "Waiting for the controller to observe generation " .. tostring(generation))
end

local desired = 1
if obj.spec ~= nil and obj.spec.replicas ~= nil then
  desired = obj.spec.replicas
end
local conditions = obj.status.conditions
local updating = condition_true(conditions, "UpdateInProgress")
if updating ~= nil then
  return result("Progressing", message_of(updating) .. " (" .. count(obj.status.updatedReplicas) .. " of "
    .. tostring(desired) .. " groups updated)")
end
local ready = " (" .. count(obj.status.readyReplicas) .. " of " .. tostring(desired) .. " groups ready)"
local available = condition_true(conditions, "Available")
if available ~= nil then
  return result("Healthy", message_of(available) .. ready)
end
local progressing = condition_true(conditions, "Progressing")
if progressing ~= nil then
  return result("Progressing", message_of(progressing) .. ready)
end
return result("Progressing", message_of(conditions[#conditions]))
