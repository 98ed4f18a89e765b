import { expect, test } from 'vitest';
import { planAround, runPlan } from '../test-helpers.ts';

const script = 'if vars.caller == "+5511999990000" then return "vip", { tier = "gold" } end return "regular"';
const plan = planAround({ id: 'lua', type: 'fx', data: { script, returns: ['vip', 'regular'] } }, ['vip', 'regular', 'error']);

test('the script sees the variables and picks a declared exit, setting variables', async () => {
  const run = await runPlan(plan, { world: { scripts: { [script]: { ok: true, exit: 'vip', set: { tier: 'gold', score: 3, nested: { a: 1 } } } } } });
  expect(run.ports.log.scripts[0]!.vars).toMatchObject({ caller: '+5511999990000', channel: 'voice', session_id: 'session-1' });
  expect(run.exitOf('lua')).toBe('vip');
  expect(run.session.variables).toEqual({ tier: 'gold', score: 3, nested: '{"a":1}' });
});

test.each([
  ['a script error', { ok: false as const, reason: 'error' as const, message: 'attempt to index nil' }],
  ['the CPU limit', { ok: false as const, reason: 'cpu_limit' as const, message: '100 ms' }],
  ['an undeclared exit', { ok: true as const, exit: 'gold', set: { tier: 'x' } }],
])('%s takes error and sets nothing', async (_name, result) => {
  for (const channel of ['voice', 'chat'] as const) {
    const run = await runPlan(plan, { channel, world: { scripts: { [script]: result } } });
    expect(run.exitOf('lua')).toBe('error');
    expect(run.session.variables).toEqual({});
  }
});

test('variables a script may not set are dropped', async () => {
  const run = await runPlan(plan, { world: { scripts: { [script]: { ok: true, exit: 'regular', set: JSON.parse('{"caller": "spoofed", "__proto__": {"polluted": 1}, "bad name": 1, "fine": true}') } } } });
  expect(run.session.variables).toEqual({ fine: true });
  expect(run.session.caller).toBe('+5511999990000');
  expect(Object.getPrototypeOf(run.session.variables)).toBe(Object.prototype);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});
