-- Argo CD health check for Kueue's kueue.x-k8s.io Workload (v1beta1 and v1beta2).
--
-- Sources:
--   kubernetes-sigs/kueue apis/kueue/v1beta2/workload_types.go: condition types QuotaReserved,
--     Admitted, Finished, PodsReady, Evicted, Preempted, Requeued, DeactivationTarget; Finished
--     reasons Succeeded, Failed, OutOfSync, OwnerNotFound (reasons since v0.7.0, commit 9d77f2fe59
--     "Include a Failed condition in Workloads"); QuotaReserved=False reasons Inadmissible,
--     Misconfigured, ExceedsMaxQuota, NoMatchingFlavor (cannot be admitted as configured),
--     Suspended (queue stopped), OnHold, Pending, WaitingForQuota, ...;
--   kubernetes-sigs/kueue pkg/controller/core/workload_controller.go: a workload with
--     spec.active=false is evicted with reason "Deactivated", or "DeactivatedDueTo<cause>" when Kueue
--     itself deactivated it (pkg/workload/patching/patching.go ReasonWithCause) because of
--     RequeuingLimitExceeded, MaximumExecutionTimeExceeded or a rejected AdmissionCheck;
--   kubernetes-sigs/kueue pkg/workload/workload.go SetQuotaReservation ("Quota reserved in
--     ClusterQueue <name>").
--
-- Result, first match wins:
--   no status.conditions                         -> Progressing "Waiting for Workload to report status"
--   Finished=True, reason Succeeded              -> Healthy     (the Finished message)
--   Finished=True, any other reason              -> Degraded    (the Finished message)
--   Evicted=True, reason DeactivatedDueTo<cause> -> Degraded    (the Evicted message); cause one of
--                                                   RequeuingLimitExceeded, MaximumExecutionTimeExceeded,
--                                                   AdmissionCheck
--   Evicted=True with reason Deactivated*, or spec.active=false
--                                                -> Suspended   (the Evicted message, else
--                                                   "Workload is deactivated")
--   QuotaReserved=False, reason Suspended/OnHold -> Suspended   (the QuotaReserved message)
--   QuotaReserved=False, reason Inadmissible, Misconfigured, ExceedsMaxQuota or NoMatchingFlavor
--                                                -> Degraded    (the QuotaReserved message)
--   Evicted=True                                 -> Progressing (the Evicted message: requeued)
--   Admitted=True and PodsReady=False            -> Progressing (the PodsReady message)
--   Admitted=True                                -> Progressing (the Admitted message: running)
--   QuotaReserved=True                           -> Progressing (the Admitted condition's message if
--                                                   present, else the QuotaReserved message)
--   QuotaReserved present                        -> Progressing (the QuotaReserved message: pending)
--   otherwise                                    -> Progressing (the message of the last condition)
--
-- A running Workload is Progressing, as Argo CD reports a running batch/Job (gitops-engine
-- pkg/health/health_job.go). Runs under Argo CD's gopher-lua (Lua 5.1) without the standard libraries.
local function result(status, message)
  hs.status = status
  hs.message = message
  return hs
end

if obj.status == nil or obj.status.conditions == nil or #obj.status.conditions == 0 then
  return result("Progressing", "Waiting for Workload to report status")
end

local conditions = obj.status.conditions
local finished = find_condition(conditions, "Finished")
if finished ~= nil and finished.status == "True" then
  if finished.reason == "Succeeded" then
    return result("Healthy", message_of(finished))
  end
  return result("Degraded", message_of(finished))
end

local failed_deactivations = {
  DeactivatedDueToRequeuingLimitExceeded = true,
  DeactivatedDueToMaximumExecutionTimeExceeded = true,
  DeactivatedDueToAdmissionCheck = true,
}
local evicted = find_condition(conditions, "Evicted")
if evicted ~= nil and evicted.status ~= "True" then
  evicted = nil
end
if evicted ~= nil and evicted.reason ~= nil and failed_deactivations[evicted.reason] then
  return result("Degraded", message_of(evicted))
end
local inactive = obj.spec ~= nil and obj.spec.active == false
if evicted ~= nil and evicted.reason == "Deactivated" then
  return result("Suspended", message_of(evicted))
end
if inactive then
  if evicted ~= nil then
    return result("Suspended", message_of(evicted))
  end
  return result("Suspended", "Workload is deactivated")
end

local quota = find_condition(conditions, "QuotaReserved")
if quota ~= nil and quota.status == "False" then
  if quota.reason == "Suspended" or quota.reason == "OnHold" then
    return result("Suspended", message_of(quota))
  end
  if quota.reason == "Inadmissible" or quota.reason == "Misconfigured" or quota.reason == "ExceedsMaxQuota"
    or quota.reason == "NoMatchingFlavor" then
    return result("Degraded", message_of(quota))
  end
end
if evicted ~= nil then
  return result("Progressing", message_of(evicted))
end

local admitted = find_condition(conditions, "Admitted")
if admitted ~= nil and admitted.status == "True" then
  local pods_ready = find_condition(conditions, "PodsReady")
  if pods_ready ~= nil and pods_ready.status == "False" then
    return result("Progressing", message_of(pods_ready))
  end
  return result("Progressing", message_of(admitted))
end
if quota ~= nil and quota.status == "True" and admitted ~= nil then
  return result("Progressing", message_of(admitted))
end
if quota ~= nil then
  return result("Progressing", message_of(quota))
end
return result("Progressing", message_of(conditions[#conditions]))
