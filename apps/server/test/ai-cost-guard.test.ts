/**
 * The AI cost guard counts in the database (modules/ai/cost-guard.ts): two instances on one
 * database (each its own connection and guard) share a tenant's requests per minute and a
 * session's tokens, as a call whose turns alternate between them would.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../src/db/database.ts';
import { createCostGuard, type GuardLimits } from '../src/modules/ai/cost-guard.ts';
import { startTestServer, type TestServer } from './harness.ts';

let server: TestServer;
let otherInstance: DatabaseHandle;
let now = Date.parse('2026-11-25T10:00:10Z');
const clock = () => now;

beforeAll(async () => {
  server = await startTestServer();
  otherInstance = openDatabase({ databaseUrl: server.config.databaseUrl, dataDir: server.config.dataDir });
});
afterAll(async () => {
  await otherInstance?.close();
  await server?.close();
});

const guards = (limits: GuardLimits) => [createCostGuard(server.ctx.db, limits, clock), createCostGuard(otherInstance.db, limits, clock)] as const;

test("a tenant's requests are counted per minute across instances; the next minute admits again; other tenants apart", async () => {
  const [a, b] = guards({ callsPerTenantPerMinute: 3, maxTokensPerSession: 0 });
  expect([await a.admit(1, 's1'), await b.admit(1, 's2'), await a.admit(1, 's3'), await b.admit(1, 's4'), await a.admit(1, 's5')]).toEqual([true, true, true, false, false]);
  expect(await b.admit(2, 's6')).toBe(true);
  now += 60_000;
  expect(await b.admit(1, 's4')).toBe(true);
});

test('requests racing for the last of a minute: exactly the limit is admitted', async () => {
  now += 60_000;
  const [a, b] = guards({ callsPerTenantPerMinute: 10, maxTokensPerSession: 0 });
  const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).admit(7, `race${i}`)));
  expect(answers.filter(Boolean)).toHaveLength(10);
});

test("a session's tokens, spent on either instance, refuse its next request once they reach the limit", async () => {
  const [a, b] = guards({ callsPerTenantPerMinute: 0, maxTokensPerSession: 100 });
  await a.spend('call-1', 60);
  expect(await b.admit(1, 'call-1')).toBe(true);
  await b.spend('call-1', 39);
  expect(await a.admit(1, 'call-1')).toBe(true);
  await a.spend('call-1', 1);
  expect([await a.admit(1, 'call-1'), await b.admit(1, 'call-1')]).toEqual([false, false]);
  expect(await b.admit(1, 'call-2')).toBe(true);
});

test('0 means no limit, and counts nothing', async () => {
  const [a] = guards({ callsPerTenantPerMinute: 0, maxTokensPerSession: 0 });
  await a.spend('s1', 1e9);
  for (let i = 0; i < 50; i++) expect(await a.admit(1, 's1')).toBe(true);
  const tokens = await server.ctx.db.selectFrom('ai_session_tokens').select('tokens').where('session_id', '=', 's1').executeTakeFirst();
  expect(tokens).toBeUndefined();
});

test('counts past their use are pruned: minutes before the last, sessions idle for six hours', async () => {
  const [a] = guards({ callsPerTenantPerMinute: 5, maxTokensPerSession: 100 });
  await a.admit(3, 'old');
  await a.spend('old', 10);
  now += 6 * 3600_000 + 60_000;
  await a.admit(3, 'new');
  const minutes = await server.ctx.db.selectFrom('ai_tenant_minutes').select(['tenant_id', 'minute']).execute();
  expect(minutes).toEqual([{ tenant_id: 3, minute: Math.floor(now / 60_000) }]);
  const sessions = await server.ctx.db.selectFrom('ai_session_tokens').select('session_id').execute();
  expect(sessions).toEqual([]);
});
