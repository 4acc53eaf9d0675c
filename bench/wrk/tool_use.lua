-- wrk script: POST /v1/tool_use read_file of one_kb.txt with a fresh
-- tool_use id per request (a repeated id is answered from the record
-- without running the tool). TOKEN is the bearer token.
local counter = 0
local prefix = ""

function setup(thread)
  thread:set("prefix", tostring(math.random(1, 1e9)))
end

function init(args)
  prefix = prefix .. "_" .. tostring(math.random(1, 1e9))
end

function request()
  counter = counter + 1
  local body = '{"type":"tool_use","id":"toolu_wrk' .. prefix .. '_' .. counter ..
    '","name":"read_file","input":{"path":"one_kb.txt"}}'
  return wrk.format("POST", "/v1/tool_use", {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer " .. os.getenv("TOKEN"),
  }, body)
end
