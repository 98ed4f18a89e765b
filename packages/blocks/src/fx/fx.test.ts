/** The `fx` block on the real Lua sandbox: what the script answers decides the exit. */
import { LuaScriptRunner } from '@voxplan/engine/lua';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { planAround, type RunOptions, runPlan } from '../test-helpers.ts';

let scripts: LuaScriptRunner;
beforeAll(async () => {
  scripts = new LuaScriptRunner();
  await scripts.warm();
});
afterAll(() => scripts.close());

const luaPlan = (script: string) => planAround({ id: 'lua', type: 'fx', data: { script, returns: ['vip', 'regular'] } }, ['vip', 'regular', 'error']);
const run = (script: string, options: RunOptions = {}) => runPlan(luaPlan(script), { ...options, scripts });

const vipScript = `
  if vars.caller == "+5511999990000" and vars.orders >= 10 then
    return "vip", { tier = "gold", score = vars.orders * 2, nested = { a = 1 } }
  end
  return "regular"`;

test('the script reads the variables, picks a declared exit and sets variables', async () => {
  const vip = await run(vipScript, { init: { variables: { orders: 12 } } });
  expect(vip.ports.log.scripts[0]!.request.vars).toMatchObject({ caller: '+5511999990000', channel: 'voice', session_id: 'session-1', orders: 12 });
  expect(vip.exitOf('lua')).toBe('vip');
  // A table is stored as its JSON text (docs/engine.md, "Templates and variables").
  expect(vip.session.variables).toEqual({ orders: 12, tier: 'gold', score: 24, nested: '{"a":1}' });

  const regular = await run(vipScript, { channel: 'chat', init: { variables: { orders: 3 } } });
  expect(regular.exitOf('lua')).toBe('regular');
  expect(regular.session.variables).toEqual({ orders: 3 });
});

/** Lua failed the run. */
const failed = (reason: string) => ({ ok: false, reason, message: expect.any(String) });
/** Lua answered normally; the block is what turns the answer into its error exit. */
const answered = (exit: string) => ({ ok: true, exit, set: { tier: 'x' } });

test.each([
  ['a syntax error', 'return "vip" {', failed('error')],
  ['a runtime error', 'return "vip", { tier = vars.customer.tier }', failed('error')],
  ['a script that never ends', 'while true do end', failed('cpu_limit')],
  ['a script that needs too much memory', 'return "vip", { tier = ("x"):rep(1024):rep(17 * 1024) }', failed('memory_limit')],
  ['a value that is not an exit name', 'return 42', failed('bad_return')],
  ['an exit the block does not declare', 'return "gold", { tier = "x" }', answered('gold')],
  // `error` is built in, not a return a script may choose (the block refuses it in `returns`).
  ['the name of the built-in exit', 'return "error", { tier = "x" }', answered('error')],
])('%s takes error and sets nothing', async (_name, script, answer) => {
  for (const channel of ['voice', 'chat'] as const) {
    const result = await run(script, { channel });
    expect(result.ports.log.scripts.map((entry) => entry.result)).toEqual([answer]);
    expect(result.exitOf('lua')).toBe('error');
    expect(result.session.variables).toEqual({});
  }
});

test('variables a script may not set are dropped', async () => {
  const result = await run('return "regular", { caller = "spoofed", ["__proto__"] = { polluted = 1 }, ["bad name"] = 1, fine = true }');
  expect(result.exitOf('lua')).toBe('regular');
  expect(result.session.variables).toEqual({ fine: true });
  expect(result.session.caller).toBe('+5511999990000');
  expect(Object.getPrototypeOf(result.session.variables)).toBe(Object.prototype);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});
