import { expect, test } from 'vitest';
import { validatePlanDocument } from '../plan/validate.ts';
import { planAround, runPlan } from '../test-helpers.ts';

const data = {
  method: 'POST',
  url: 'https://crm.example/customers',
  query: { phone: '{{caller}}' },
  headers: { authorization: 'Bearer {{token}}' },
  body: '{"phone": "{{caller}}", "tags": ["ivr"]}',
  attribute: 'customer.tier',
  cases: [
    { value: 'gold', exit: 'vip' },
    { value: 'platinum', exit: 'vip' },
    { value: '2', exit: 'regular' },
  ],
};
const exits = ['vip', 'regular', 'default', 'error'];
const node = { id: 'api', type: 'api_switch', data };

test('the exits are the cases, each once, then default and error', () => {
  const result = validatePlanDocument(planAround(node, exits));
  expect(result.ok && result.warnings).toEqual([]);
});

test.each([
  [{ customer: { tier: 'gold' } }, 'vip'],
  [{ customer: { tier: 'platinum' } }, 'vip'],
  [{ customer: { tier: 2 } }, 'regular'],
  [{ customer: { tier: 'bronze' } }, 'default'],
  [{ customer: {} }, 'default'],
  ['not json', 'default'],
])('answer %j takes %s', async (body, exit) => {
  const run = await runPlan(planAround(node, exits), { world: { http: [{ url: 'https://crm.example/', body }] } });
  expect(run.exitOf('api')).toBe(exit);
});

test('the request carries the rendered URL, query, headers and JSON body', async () => {
  const run = await runPlan(planAround(node, exits), { world: { http: [{ url: 'https://crm.example/', body: {} }] } });
  expect(run.ports.log.http).toEqual([
    {
      method: 'POST',
      url: 'https://crm.example/customers?phone=%2B5511999990000',
      headers: { authorization: 'Bearer ', 'content-type': 'application/json' },
      body: '{"phone":"+5511999990000","tags":["ivr"]}',
      timeoutMs: 5000,
    },
  ]);
});

test('a failure or an answer outside 2xx takes error, on voice and on chat', async () => {
  for (const channel of ['voice', 'chat'] as const) {
    expect((await runPlan(planAround(node, exits), { channel, world: { http: [{ url: 'https://crm.example/', status: 503 }] } })).exitOf('api')).toBe('error');
    expect((await runPlan(planAround(node, exits), { channel, world: { http: [{ url: 'https://crm.example/', failure: 'timeout' }] } })).exitOf('api')).toBe('error');
  }
});

test('async_call sends the request and takes default at once, whatever the answer', async () => {
  const run = await runPlan(planAround({ ...node, data: { ...data, async_call: true } }, exits), { world: { http: [{ url: 'https://crm.example/', failure: 'network' }] } });
  expect(run.exitOf('api')).toBe('default');
  expect(run.ports.log.http).toHaveLength(1);
});

test('case values are unique, and default and error are not case exits', () => {
  const bad = validatePlanDocument(
    planAround({ ...node, data: { ...data, cases: [{ value: 'a', exit: 'x' }, { value: 'a', exit: 'y' }, { value: 'b', exit: 'default' }] } }, []),
  );
  expect(bad.errors.map((error) => [error.code, error.path])).toEqual([
    ['duplicate_value', 'cases.1.value'],
    ['reserved_name', 'cases.2.exit'],
  ]);
});
