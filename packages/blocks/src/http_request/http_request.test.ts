import { expect, test } from 'vitest';
import { planAround, runPlan } from '../test-helpers.ts';

const data = {
  url: 'https://api.example/orders/{{caller}}',
  timeout_ms: 2000,
  save: [
    { variable: 'status', path: 'order.status' },
    { variable: 'first_item', path: 'order.items[0].name' },
    { variable: 'items', path: 'order.items' },
    { variable: 'missing', path: 'order.nothing' },
  ],
};
const exits = ['success', 'error'];
const plan = planAround({ id: 'req', type: 'http_request', data }, exits);
const answer = { order: { status: 'shipped', items: [{ name: 'Phone' }] } };

test('a 2xx answer takes success and saves the values of its JSON', async () => {
  for (const channel of ['voice', 'chat'] as const) {
    const run = await runPlan(plan, { channel, world: { http: [{ url: 'https://api.example/', body: answer }] } });
    expect(run.exitOf('req')).toBe('success');
    expect(run.session.variables).toEqual({ status: 'shipped', first_item: 'Phone', items: '[{"name":"Phone"}]', missing: null });
    expect(run.ports.log.http[0]).toEqual({ method: 'GET', url: 'https://api.example/orders/+5511999990000', headers: {}, body: undefined, timeoutMs: 2000 });
  }
});

test('an answer outside 2xx, a refused address or a timeout takes error', async () => {
  for (const stub of [
    { url: 'https://api.example/', status: 404, body: {} },
    { url: 'https://api.example/', failure: 'forbidden_address' as const },
    { url: 'https://api.example/', failure: 'timeout' as const },
  ]) {
    const run = await runPlan(plan, { world: { http: [stub] } });
    expect(run.exitOf('req')).toBe('error');
    expect(run.session.variables).toEqual({});
  }
});

test('a URL that renders to something that is not http(s) takes error without a request', async () => {
  const run = await runPlan(planAround({ id: 'req', type: 'http_request', data: { url: '{{target}}' } }, exits));
  expect(run.exitOf('req')).toBe('error');
  expect(run.ports.log.http).toEqual([]);
});

test('a variable holding quotes cannot break the JSON body', async () => {
  const run = await runPlan(
    planAround({ id: 'req', type: 'http_request', data: { method: 'POST', url: 'https://api.example/x', body: '{"who": "{{name}}", "n": 1}' } }, exits),
    { world: { http: [{ url: 'https://api.example/', body: {} }] }, init: { variables: { name: 'Ana", "admin": true, "x": "' } } },
  );
  expect(JSON.parse(run.ports.log.http[0]!.body!)).toEqual({ who: 'Ana", "admin": true, "x": "', n: 1 });
});

test('the query is encoded as URLSearchParams would, added to a query the URL has or set alone', async () => {
  const query = { q: "{{caller}} a&b=c/'é'", empty: '', phone: '{{caller}}' };
  const urls = ['https://api.example/search', 'https://api.example/search?phone=old&keep=1', 'https://api.example/search#top', 'https://API.Example:443/a b/../search', 'https://api.example/{{caller}}'];
  for (const url of urls) {
    const node = { id: 'req', type: 'http_request', data: { url, query, timeout_ms: 2000, save: [] } };
    const run = await runPlan(planAround(node, exits), { world: { http: [{ url: 'https://api.example/', body: {} }] } });
    const expected = new URL(url.replace('{{caller}}', '+5511999990000'));
    for (const [name, value] of Object.entries(query)) expected.searchParams.set(name, value.replaceAll('{{caller}}', '+5511999990000'));
    expect(run.ports.log.http[0]?.url).toBe(expected.toString());
  }
});
