-- Shared helpers of trainops's health checks. health.py prepends this file to every script, so each
-- entry of the argocd-cm patch is self-contained, as Argo CD requires (util/lua/lua.go runs one
-- script per resource). Lua 5.1 base functions only (no resource.customizations.useOpenLibs).
local hs = {}

-- The first condition of type condition_type (and status, when given), or nil.
local function find_condition(conditions, condition_type, status)
  if conditions == nil then
    return nil
  end
  for _, condition in ipairs(conditions) do
    if condition.type == condition_type and (status == nil or condition.status == status) then
      return condition
    end
  end
  return nil
end

-- The first condition of type condition_type with status "True", or nil.
local function condition_true(conditions, condition_type)
  return find_condition(conditions, condition_type, "True")
end

-- What Argo CD shows for a condition: its message, else its reason, else its type.
local function message_of(condition)
  if condition.message ~= nil and condition.message ~= "" then
    return condition.message
  end
  if condition.reason ~= nil then
    return condition.reason
  end
  return condition.type
end

-- The first rule whose condition is there ({type, condition_status (default "True"), status}):
-- sets hs.status to the rule's status and hs.message to the condition's message; false when none.
local function apply_first(conditions, rules)
  for _, rule in ipairs(rules) do
    local condition = find_condition(conditions, rule.type, rule.condition_status or "True")
    if condition ~= nil then
      hs.status = rule.status
      hs.message = message_of(condition)
      return true
    end
  end
  return false
end

-- A status counter as text ("0" when absent).
local function count(value)
  if value == nil then
    return "0"
  end
  return tostring(value)
end

