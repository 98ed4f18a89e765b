import type { DateRange, DateRangeStatus } from '@voxplan/contracts';
import { afterAll, beforeAll, expect } from 'vitest';
import { createTenantMember, startTestServer, type TestServer } from './harness.ts';

/** What the date ranges' two test files share: a server, its admin, tenants with a member and a guest, ranges made and read through the API. */
export let server: TestServer;
export let admin: string;
let serial = 0;
export const next = () => (serial += 1);

/** Starts the server before the file's tests and closes it after them. */
export function useDateRangesServer(): void {
  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
  });
  afterAll(() => server.close());
}

/** A tenant with a member (role user) and a guest. */
export async function tenantWith(): Promise<{ tenantId: number; token: string; guest: string }> {
  const { tenantId, token } = await createTenantMember(server, admin, `ranges-${next()}`);
  const username = `ranges-guest-${next()}`;
  const password = `${username}-password`;
  const guest = await server.call({
    method: 'POST',
    url: '/users',
    token: admin,
    payload: { username, password, email: `${username}@example.com`, name: username, roles: [{ role: 'guest', tenant_id: tenantId }] },
  });
  expect(guest.statusCode, guest.body).toBe(201);
  return { tenantId, token, guest: await server.login(username, password) };
}

export const create = (token: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
  server.call({ method: 'POST', url: '/date-ranges', token, payload, headers });
export async function created(token: string, payload: Record<string, unknown>): Promise<DateRange> {
  const response = await create(token, { name: `Range ${next()}`, time_zone: 'America/Sao_Paulo', ...payload });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<DateRange>();
}
export async function statusOf(token: string, id: number, at?: string): Promise<DateRangeStatus> {
  const response = await server.call({ method: 'GET', url: `/date-ranges/${id}/status${at ? `?at=${encodeURIComponent(at)}` : ''}`, token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<DateRangeStatus>();
}
