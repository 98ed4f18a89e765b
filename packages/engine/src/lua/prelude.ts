/**
 * Lua run in every fresh state after the safe standard libraries are opened (base, coroutine,
 * table, string, math, utf8, os) and before the script: it takes away what a flow's script must not
 * have. `io`, `debug` and `package` (hence `require`) are never opened.
 *
 * Two wrappers exist because Lua runs some code with debug hooks switched off, where the CPU limit
 * could not stop a loop: finalizers (`__gc`), and an `xpcall` message handler called for an error
 * the limit itself raised (the handler runs inside the hook). So `__gc` is refused and `xpcall`
 * calls its handler only after the stack has unwound, as `pcall` followed by a call would.
 */
export const PRELUDE = String.raw`
local error, pcall, rawget, select, setmetatable, type = error, pcall, rawget, select, setmetatable, type
local collectgarbage, pack, unpack = collectgarbage, table.pack, table.unpack

local os = os
_G.os = { time = os.time, date = os.date, clock = os.clock, difftime = os.difftime }

load, loadfile, dofile, print, warn = nil, nil, nil, nil, nil
string.dump = nil

function _G.setmetatable(t, mt)
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    error("__gc metamethods are not allowed", 2)
  end
  return setmetatable(t, mt)
end

function _G.xpcall(f, handler, ...)
  if type(handler) ~= "function" then
    error("bad argument #2 to 'xpcall' (function expected)", 2)
  end
  local results = pack(pcall(f, ...))
  if results[1] then
    return unpack(results, 1, results.n)
  end
  return false, (select(2, pcall(handler, results[2])))
end

function _G.collectgarbage(option)
  if option == nil or option == "collect" or option == "count" then
    return collectgarbage(option)
  end
  error("collectgarbage: only \"collect\" and \"count\" are allowed", 2)
end

getmetatable("").__metatable = false
`;
