import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ScriptResult } from '../ports.ts';
import { LuaScriptRunner } from './index.ts';

let runner: LuaScriptRunner;
beforeAll(async () => {
  // A generous watchdog: these tests check the orderly stops inside Lua, which must come first
  // even when the machine is busy.
  runner = new LuaScriptRunner({ workers: 2, watchdogMs: 5000 });
  await runner.warm();
});
afterAll(() => runner.close());

const run = (script: string, vars: Record<string, unknown> = {}) => runner.run({ script, vars });
const failed = (result: ScriptResult) => (result.ok ? undefined : result.reason);
/** A test.each body: the named script ends with this reason. */
const endsAs = (reason: ReturnType<typeof failed>) => async (_: string, script: string) => {
  expect(failed(await run(script))).toBe(reason);
};
const CPU_STOP = { ok: false, reason: 'cpu_limit', message: 'the script ran for more than 100 ms' };
const MEMORY_STOP = { ok: false, reason: 'memory_limit', message: 'the script needed more than 16 MiB of memory' };

describe('what a script reads and returns', () => {
  test('returns an exit and the variables to set', async () => {
    expect(await run('return "vip", { tier = "gold" }')).toEqual({ ok: true, exit: 'vip', set: { tier: 'gold' } });
  });

  test('an exit alone sets nothing', async () => {
    expect(await run('return "ok"')).toEqual({ ok: true, exit: 'ok', set: {} });
    expect(await run('return "ok", nil')).toEqual({ ok: true, exit: 'ok', set: {} });
  });

  test('reads the session variables as the table vars', async () => {
    const vars = { caller: { name: 'Ana', tags: ['new', 'vip'] }, attempts: 3, vip: true, note: null };
    const result = await run(
      `if vars.vip and vars.attempts > 2 then
         return vars.caller.name .. ":" .. #vars.caller.tags .. ":" .. vars.caller.tags[2] .. ":" .. tostring(vars.note)
       end
       return "no"`,
      vars,
    );
    expect(result).toEqual({ ok: true, exit: 'Ana:2:vip:nil', set: {} });
  });

  test('strings, numbers, booleans and nested tables cross both ways', async () => {
    const value = { name: 'José 📞', count: 42, ratio: 0.5, negative: -7, on: false, list: [1, 'two', { three: [3] }], empty: {} };
    const result = await run('return "ok", { copy = vars.value, float = 3.0, int = 3, sum = vars.value.count + 0.25 }', { value });
    expect(result).toEqual({ ok: true, exit: 'ok', set: { copy: value, float: 3, int: 3, sum: 42.25 } });
  });

  test('vars is a copy: the script changes only what it returns', async () => {
    const vars = { tier: 'silver', list: [1, 2] };
    const result = await run('vars.tier = "gold"; vars.list[1] = 99; vars.added = true; return "ok", { seen = vars.tier }', vars);
    expect(result).toEqual({ ok: true, exit: 'ok', set: { seen: 'gold' } });
    expect(vars).toEqual({ tier: 'silver', list: [1, 2] });
  });

  test('os.time and os.date are there', async () => {
    const result = await run('return "ok", { now = os.time(), epoch = os.date("!%Y-%m-%d %H:%M", 0), later = os.time({ year = 2030, month = 1, day = 1, hour = 12 }) > os.time() }');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.set.epoch).toBe('1970-01-01 00:00');
    expect(result.set.later).toBe(true);
    expect(Math.abs((result.set.now as number) - Date.now() / 1000)).toBeLessThan(24 * 3600);
  });

  test('the safe standard libraries work', async () => {
    const result = await run(`
      local parts = {}
      for word in string.gmatch("a,b,c", "[^,]+") do parts[#parts + 1] = word:upper() end
      local co = coroutine.wrap(function() coroutine.yield(1) end)
      return table.concat(parts, "-"), {
        formatted = string.format("%05.1f", math.pi),
        floor = math.floor(7.9),
        letters = utf8.len("ação"),
        yielded = co(),
        caught = select(2, pcall(error, "inner", 0)),
        handled = select(2, xpcall(function() error("x", 0) end, function(e) return "handled " .. e end)),
        memory = collectgarbage("count") > 0,
      }`);
    expect(result).toEqual({
      ok: true,
      exit: 'A-B-C',
      set: { formatted: '003.1', floor: 7, letters: 4, yielded: 1, caught: 'inner', handled: 'handled x', memory: true },
    });
  });

  test('a key named __proto__ stays a plain key', async () => {
    const result = await run('return "ok", { ["__proto__"] = { polluted = true } }');
    expect(result.ok && Object.getPrototypeOf(result.set)).toBe(Object.prototype);
    expect(result.ok && Object.keys(result.set)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('failures', () => {
  test('a syntax error is an error with the line', async () => {
    const result = await run('local x = 1\nreturn x +');
    expect(result).toMatchObject({ ok: false, reason: 'error' });
    expect(!result.ok && result.message).toMatch(/^script:2: /);
  });

  test('a runtime error is an error with its message', async () => {
    expect(await run('error("no such customer")')).toEqual({ ok: false, reason: 'error', message: 'script:1: no such customer' });
    expect(await run('return vars.missing.field')).toMatchObject({ ok: false, reason: 'error' });
    expect(await run('error({ code = 1 })')).toEqual({ ok: false, reason: 'error', message: '(error object is a table value)' });
  });

  test('a long error message is cut', async () => {
    const result = await run('error(("x"):rep(100000))');
    expect(result).toMatchObject({ ok: false, reason: 'error' });
    expect(!result.ok && result.message.length).toBeLessThanOrEqual(1001);
  });

  test.each([
    ['nothing returned', 'local x = 1'],
    ['a number as exit', 'return 42'],
    ['an empty exit', 'return ""'],
    ['a table as exit', 'return { exit = "ok" }'],
    ['variables that are not a table', 'return "ok", "tier=gold"'],
    ['variables as a list', 'return "ok", { "gold" }'],
    ['more than two values', 'return "ok", {}, {}'],
    ['a function', 'return "ok", { f = function() end }'],
    ['a library function', 'return "ok", { f = string.upper }'],
    ['a coroutine', 'return "ok", { co = coroutine.create(function() end) }'],
    ['a table containing itself', 'local t = {} t.self = t return "ok", { t = t }'],
    ['not a number', 'return "ok", { n = 0/0 }'],
    ['infinity', 'return "ok", { n = math.huge }'],
    ['a list with gaps', 'return "ok", { list = { [1] = "a", [3] = "c" } }'],
    ['names mixed with positions', 'return "ok", { t = { "a", b = "b" } }'],
    ['a boolean key', 'return "ok", { t = { [true] = 1 } }'],
    ['a table that unfolds into millions of values', 'local t = {1} for i = 1, 30 do t = { t, t } end return "ok", { t = t }'],
  ])('a bad return: %s', endsAs('bad_return'));

  test('bad_return says what is wrong and where', async () => {
    expect(await run('return "ok", { caller = { greet = function() end } }')).toEqual({
      ok: false,
      reason: 'bad_return',
      message: 'set.caller.greet is a function; only strings, numbers, booleans and tables can be returned',
    });
  });
});

describe('limits', () => {
  test('an endless loop is stopped: cpu_limit', async () => {
    expect(await run('while true do end')).toEqual(CPU_STOP);
  });

  test.each([
    ['pcall', 'while true do pcall(function() while true do end end) end'],
    ['a coroutine', 'local co = coroutine.create(function() while true do end end) coroutine.resume(co) return "escaped"'],
    ['an xpcall handler', 'xpcall(function() while true do end end, function() while true do end end) return "escaped"'],
    ['__close', 'do local guard <close> = setmetatable({}, { __close = function() while true do end end }) while true do end end'],
    ['recursion through pcall', 'local function f() pcall(f) pcall(f) end f() return "escaped"'],
  ])('catching the stop with %s does not help', async (_, script) => {
    // The message tells the orderly stop inside Lua from the watchdog's last resort.
    expect(await run(script)).toEqual(CPU_STOP);
  });

  test('a memory bomb is stopped at 16 MiB: memory_limit', async () => {
    // A mebibyte a step: the 100 ms budget is wall time, and at 64 KiB a step a loaded machine (CI's
    // two lanes) could spend it before the 16 MiB, which turned this test into one of the clock.
    expect(await run('local t = {} while true do t[#t + 1] = ("x"):rep(1024):rep(1024) .. #t end')).toEqual(MEMORY_STOP);
    expect(await run('return ("x"):rep(1024):rep(17 * 1024)')).toEqual(MEMORY_STOP);
  });

  test('catching the memory error does not help', async () => {
    const script = 'local t = {} local ok = pcall(function() while true do t[#t + 1] = ("x"):rep(1024):rep(64) .. #t end end) t = nil return "escaped"';
    expect(await run(script)).toEqual(MEMORY_STOP);
  });

  test('memory under the limit is fine, and garbage is collected', async () => {
    // string.rep builds its result in a buffer and then copies it: 6 MiB peaks at about 12 MiB.
    expect(await run('local s = ("x"):rep(1024):rep(6 * 1024) return "ok", { size = #s }')).toEqual({ ok: true, exit: 'ok', set: { size: 6 * 1024 * 1024 } });
    // About 100 MiB allocated over the run, never more than a few MiB of it alive.
    expect(await run('for i = 1, 32 do local s = ("x"):rep(1024):rep(1024) .. i end return "ok"')).toEqual({ ok: true, exit: 'ok', set: {} });
  });

  test('an allocation over the limit first waits for garbage to be collected', async () => {
    // 6 MiB of garbage not yet collected, then a 7 MiB string that peaks at 14 MiB: the allocator
    // refuses, Lua collects and asks again, and the run goes on.
    const script = 'local t = {} for i = 1, 6 do t[i] = ("x"):rep(1024):rep(1024) .. i end t = nil local s = ("y"):rep(1024):rep(7 * 1024) return "ok", { n = #s }';
    expect(await run(script)).toEqual({ ok: true, exit: 'ok', set: { n: 7 * 1024 * 1024 } });
  });

  test('session variables larger than the memory limit are refused', async () => {
    expect(failed(await run('return "ok"', { big: 'x'.repeat(17 * 1024 * 1024) }))).toBe('memory_limit');
  });

  test('a long script or variables that are not JSON are errors', async () => {
    expect(failed(await run(`return "ok" --${'x'.repeat(300 * 1024)}`))).toBe('error');
    expect(failed(await run('return "ok"', { id: 10n }))).toBe('error');
  });
});

describe('the sandbox', () => {
  test.each(['io', 'debug', 'package', 'require', 'load', 'loadfile', 'dofile', 'print', 'string.dump', 'os.execute', 'os.getenv', 'os.exit', 'os.remove', 'os.rename', 'os.tmpname'])(
    '%s is not there',
    async (name) => {
      expect(await run(`return type(${name})`)).toEqual({ ok: true, exit: 'nil', set: {} });
    },
  );

  test.each([
    ['io.open', 'io.open("/etc/passwd")'],
    ['os.execute', 'os.execute("touch /tmp/voxplan-lua-escape")'],
    ['require', 'require("os")'],
    ['load', 'load("return 1")()'],
    ['rawget on _G', 'rawget(_G, "io").open("/etc/passwd")'],
    ['collectgarbage("stop")', 'collectgarbage("stop")'],
    ['__gc', 'setmetatable({}, { __gc = function() end })'],
  ])('%s fails', endsAs('error'));

  test('the string metatable is not reachable', async () => {
    expect(await run('return tostring(getmetatable(""))')).toEqual({ ok: true, exit: 'false', set: {} });
  });

  test('nothing but Lua values is reachable from the script', async () => {
    // Walks everything reachable from _G, the script's locals and the metatables of all of it.
    const result = await run(`
      local seen, types, queue = {}, {}, { _G, vars, "", 1, true }
      while #queue > 0 do
        local value = table.remove(queue)
        types[type(value)] = true
        if type(value) == "table" and not seen[value] then
          seen[value] = true
          for k, v in next, value do queue[#queue + 1] = k; queue[#queue + 1] = v end
        end
        local mt = getmetatable(value)
        if mt ~= nil then queue[#queue + 1] = mt end
      end
      local names = {}
      for name in pairs(types) do names[#names + 1] = name end
      table.sort(names)
      return table.concat(names, ",")`);
    expect(result).toEqual({ ok: true, exit: 'boolean,function,number,string,table', set: {} });
  });

  test('a run leaves nothing behind for the next one', async () => {
    expect(await run('string.upper = function() return "changed" end; leftover = 1; return "ok"')).toMatchObject({ ok: true });
    expect(await run('return ("a"):upper() .. tostring(leftover)')).toEqual({ ok: true, exit: 'Anil', set: {} });
  });
});

describe('the host keeps serving', () => {
  // One string.find call that backtracks for hours: no Lua instruction runs, so no hook fires and
  // only the watchdog can end it. It holds its worker for the whole watchdog time, long enough
  // that what happens meanwhile does not depend on how busy the machine is.
  const stuck = 'return ("a"):rep(100000):find(".-.-.-.-b")';

  test('timers and other runs go on while a runaway script is being stopped, and the runner goes on after', async () => {
    const guarded = new LuaScriptRunner({ workers: 2, watchdogMs: 1500 });
    try {
      await guarded.warm();
      let settled = false;
      const runaway = guarded.run({ script: stuck, vars: {} }).then((result) => {
        settled = true;
        return result;
      });
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await guarded.run({ script: 'return "done"', vars: {} })).toEqual({ ok: true, exit: 'done', set: {} });
      expect(settled).toBe(false);
      expect(await runaway).toEqual({
        ok: false,
        reason: 'cpu_limit',
        message: 'the script was stopped after 1500 ms inside a call Lua could not interrupt',
      });
      expect(await guarded.run({ script: 'return "still here"', vars: {} })).toEqual({ ok: true, exit: 'still here', set: {} });
    } finally {
      await guarded.close();
    }
  });

  test('a closed runner answers error', async () => {
    const closed = new LuaScriptRunner({ workers: 1 });
    await closed.close();
    expect(failed(await closed.run({ script: 'return "ok"', vars: {} }))).toBe('error');
  });
});
