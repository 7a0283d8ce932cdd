-- Argo CD health check for argoproj.io/v1alpha1 Application, for trainops' root Application (app of
-- apps) whose sync waves wait for the Applications of an earlier wave to be healthy.
--
-- Sources:
--   Argo CD v3.5.1 docs/operator-manual/health.md "Argocd App": Argo CD assesses no health for
--     Applications since v1.8 (argo-cd issue 3781), so an app of apps orchestrating sync waves must
--     restore it in argocd-cm; the documented script reports the child's status.health
--     (Progressing with an empty message until the child has one);
--   pkg/apis/application/v1alpha1/types.go: status.health {status, message}; metadata.labels.
--
-- trainops difference: a training Application (label trainops.dev/run-once: "true") is Progressing
-- while its runs run and Degraded when one failed, for days; the root must neither wait for runs nor
-- fail its own sync when a run fails (gitops-engine waits for every applied object's health in a
-- multi-wave sync), so the root sees such an Application as Healthy once it has a health, the real
-- status in the message. The training Application itself still shows its runs' health.
--
-- Result:
--   no status.health                          -> Progressing ""
--   training Application with a health        -> Healthy "training Application is <status>[: <message>]"
--   otherwise                                 -> status.health.status, status.health.message
--
-- Runs under Argo CD's gopher-lua (Lua 5.1) without the standard libraries.
hs.status = "Progressing"
hs.message = ""
if obj.status == nil or obj.status.health == nil or obj.status.health.status == nil then
  return hs
end
local health = obj.status.health
local labels = {}
if obj.metadata ~= nil and obj.metadata.labels ~= nil then
  labels = obj.metadata.labels
end
if labels["trainops.dev/run-once"] == "true" then
  hs.status = "Healthy"
  hs.message = "training Application is " .. health.status
  if health.message ~= nil and health.message ~= "" then
    hs.message = hs.message .. ": " .. health.message
  end
  return hs
end
hs.status = health.status
if health.message ~= nil then
  hs.message = health.message
end
return hs
