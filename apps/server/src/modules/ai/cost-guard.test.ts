import { expect, test } from 'vitest';
import { createCostGuard } from './cost-guard.ts';

test("a tenant's calls are counted per minute, and a new minute admits again; other tenants are apart", () => {
  let now = 0;
  const guard = createCostGuard({ callsPerTenantPerMinute: 2, maxTokensPerSession: 0 }, () => now);
  expect([guard.admit(1, 's1'), guard.admit(1, 's2'), guard.admit(1, 's3')]).toEqual([true, true, false]);
  expect(guard.admit(2, 's4')).toBe(true);
  now = 60_000;
  expect(guard.admit(1, 's3')).toBe(true);
});

test("a session's tokens: refused once the answers reached the limit, not before", () => {
  const guard = createCostGuard({ callsPerTenantPerMinute: 0, maxTokensPerSession: 100 });
  guard.spend('s1', 99);
  expect(guard.admit(1, 's1')).toBe(true);
  guard.spend('s1', 1);
  expect(guard.admit(1, 's1')).toBe(false);
  expect(guard.admit(1, 's2')).toBe(true);
});

test('0 means no limit', () => {
  const guard = createCostGuard({ callsPerTenantPerMinute: 0, maxTokensPerSession: 0 });
  guard.spend('s1', 1e9);
  for (let i = 0; i < 1000; i++) expect(guard.admit(1, 's1')).toBe(true);
});
