/**
 * GET /agents (docs/conversations.md): everyone who may answer a tenant's chats (its users and
 * the administrators), by name, with their presence there, for every user of the tenant: a
 * member who cannot list users chooses a queue's agents and a transfer's person from it. Guests
 * read it but are not in it; other tenants' users are neither in it nor see it.
 */
import type { Agent, Destination } from '@voxplan/contracts';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTenantMember, createTenantUser, errorOf, startTestServer, type TenantMember, type TestServer } from './harness.ts';

let server: TestServer;
let admin: string;
let member: TenantMember;
let colleague: TenantMember;
let guest: TenantMember;
let stranger: TenantMember;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  member = await createTenantMember(server, admin, 'agents');
  colleague = await createTenantUser(server, admin, member.tenantId, 'agents-colleague', 'user');
  guest = await createTenantUser(server, admin, member.tenantId, 'agents-guest', 'guest');
  stranger = await createTenantMember(server, admin, 'agents-other');
});

afterAll(() => server?.close());

const agents = async (token: string, tenant?: number) => {
  const response = await server.call({ method: 'GET', url: '/agents', token, ...(tenant !== undefined && { tenant }) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Agent[]>();
};
const presence = (token: string, status: Agent['status']) => server.call({ method: 'PUT', url: '/agents/me', token, payload: { status } });

test('a member lists the tenant’s users and the administrators with their presence; guests and other tenants’ users are not listed', async () => {
  expect((await presence(member.token, 'online')).statusCode).toBe(200);
  expect((await presence(colleague.token, 'away')).statusCode).toBe(200);
  // The stranger is online in their own tenant: that says nothing of this one.
  expect((await presence(stranger.token, 'online')).statusCode).toBe(200);
  const listed = await agents(member.token);
  const names = listed.map((agent) => agent.name);
  expect(names).toEqual(expect.arrayContaining(['agents-user', 'agents-colleague']));
  expect(names).not.toContain('agents-guest');
  expect(names).not.toContain('agents-other-user');
  expect(listed.find((agent) => agent.name === 'agents-user')).toEqual({ id: member.userId, name: 'agents-user', status: 'online' });
  expect(listed.find((agent) => agent.id === colleague.userId)?.status).toBe('away');
  // The administrator may act in any tenant, so they are an agent here too (offline: no presence in it).
  const administrators = listed.filter((agent) => ![member.userId, colleague.userId].includes(agent.id));
  expect(administrators.length).toBeGreaterThan(0);
  expect(administrators.every((agent) => agent.status === 'offline')).toBe(true);
});

test('a guest reads the list; the other tenant’s member sees their own tenant only; an administrator names the tenant', async () => {
  expect((await agents(guest.token)).map((agent) => agent.id).sort()).toEqual((await agents(member.token)).map((agent) => agent.id).sort());
  const theirs = await agents(stranger.token);
  expect(theirs.map((agent) => agent.id)).toContain(stranger.userId);
  expect(theirs.map((agent) => agent.id)).not.toContain(member.userId);
  expect(theirs.find((agent) => agent.id === stranger.userId)?.status).toBe('online');
  expect((await agents(admin, member.tenantId)).map((agent) => agent.id)).toContain(colleague.userId);
  const overAll = await server.call({ method: 'GET', url: '/agents', token: admin });
  expect(overAll.statusCode).toBe(400);
  expect(errorOf(overAll).code).toBe('no_tenant_provided');
  expect((await server.call({ method: 'GET', url: '/agents' })).statusCode).toBe(401);
});

test('a member builds a queue from the list alone; another tenant’s user is refused', async () => {
  const listed = await agents(member.token);
  const created = await server.call({
    method: 'POST',
    url: '/destinations',
    token: member.token,
    payload: { name: 'Front line', kind: 'chat', chat_target: 'queue', agent_ids: listed.map((agent) => agent.id) },
  });
  expect(created.statusCode, created.body).toBe(201);
  expect(created.json<Destination>().agent_ids.sort()).toEqual(listed.map((agent) => agent.id).sort());
  const refused = await server.call({ method: 'POST', url: '/destinations', token: member.token, payload: { name: 'Mixed', kind: 'chat', chat_target: 'queue', agent_ids: [stranger.userId] } });
  expect(errorOf(refused).code).toBe('agent_not_in_tenant');
});
