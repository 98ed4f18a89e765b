import type { Destination } from '@voxplan/contracts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, createTenantUser, errorOf, expectInvalid, q, startTestServer, type TestServer } from './harness.ts';

/**
 * Destinations: validation per field, the URI checked for its kind (also when a patch changes one
 * of the two), one URI once per tenant. Isolation between tenants and the roles and audit of every
 * write are covered for every resource by tenant-isolation.test.ts, roles.test.ts and audit-log.test.ts.
 */

let server: TestServer;
let admin: string;
let serial = 0;
const next = () => (serial += 1);

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

const tenantWithMember = () => createTenantMember(server, admin, `dest-${next()}`);

const create = (token: string, payload: Record<string, unknown>) => server.call({ method: 'POST', url: '/destinations', token, payload });
const patch = (token: string, id: number, payload: Record<string, unknown>) => server.call({ method: 'PATCH', url: `/destinations/${id}`, token, payload });
const read = async (token: string, id: number) => (await server.call({ method: 'GET', url: `/destinations/${id}`, token })).json<Destination>();

async function created(token: string, payload: Partial<Destination> & Pick<Destination, 'kind' | 'uri'>): Promise<Destination> {
  const response = await create(token, { name: `Destination ${next()}`, ...payload });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<Destination>();
}

describe('destinations: validation per field', () => {
  let token: string;
  beforeAll(async () => {
    ({ token } = await tenantWithMember());
  });

  test.each([
    'pbx.example.com',
    '100',
    'sip:',
    'sip:100@',
    'sip:100@pbx..example.com',
    'sip:100@pbx.example.com:70000',
    'sip:100 @pbx.example.com',
    'tel:',
    'tel:call-me',
    'tel:+55 11 9999 0000',
    'https://chat.example.com',
  ])('a voice destination refuses the URI %j, saying a SIP or tel URI is wanted', async (uri) => {
    expectInvalid(await create(token, { name: 'Bad voice', kind: 'voice', uri }), 'uri', 'invalidVoiceUri');
  });

  test.each(['http://chat.example.com', 'https:chat.example.com', 'https://', 'chat.example.com', 'sip:100@pbx.example.com', 'wss://chat.example.com'])(
    'a chat destination refuses the URI %j, saying an https URL is wanted',
    async (uri) => {
      expectInvalid(await create(token, { name: 'Bad chat', kind: 'chat', uri }), 'uri', 'invalidChatUri');
    },
  );

  test.each([
    ['voice', 'sip:100@pbx.example.com'],
    ['voice', 'sips:reception@pbx.example.com:5061;transport=tls'],
    ['voice', 'sip:100@[2001:db8::1]'],
    ['voice', 'tel:+5511999990000'],
    ['voice', 'tel:100;phone-context=pbx.example.com'],
    ['chat', 'https://chat.example.com/bot?id=7'],
  ] as const)('a %s destination accepts %j and stores it as given', async (kind, uri) => {
    const destination = await created(token, { kind, uri });
    expect(destination).toMatchObject({ kind, uri, tenant_id: expect.any(Number) });
    expect(await read(token, destination.id)).toMatchObject({ kind, uri });
  });

  test('name, kind and URI are required; the limits hold; unknown fields are refused', async () => {
    const uri = 'sip:limits@pbx.example.com';
    expectInvalid(await create(token, { kind: 'voice', uri }), 'name');
    expectInvalid(await create(token, { name: '   ', kind: 'voice', uri }), 'name');
    expectInvalid(await create(token, { name: 'x'.repeat(101), kind: 'voice', uri }), 'name');
    expectInvalid(await create(token, { name: 'No kind', uri }), 'kind');
    expectInvalid(await create(token, { name: 'Fax', kind: 'fax', uri }), 'kind');
    expectInvalid(await create(token, { name: 'No URI', kind: 'voice' }), 'uri');
    expectInvalid(await create(token, { name: 'Blank URI', kind: 'voice', uri: '  ' }), 'uri');
    expectInvalid(await create(token, { name: 'Long URI', kind: 'chat', uri: `https://chat.example.com/${'x'.repeat(480)}` }), 'uri');
    expectInvalid(await create(token, { name: 'Long text', kind: 'voice', uri, description: 'x'.repeat(501) }), 'description');
    expectInvalid(await create(token, { name: 'Extra', kind: 'voice', uri, priority: 1 }), 'priority');
    const count = await server.call({ method: 'GET', url: `/destinations/count?${q('where', { uri })}`, token });
    expect(count.json()).toEqual({ count: 0 });
  });

  test('every mistake of a body is reported at once: a missing name and a bad URI', async () => {
    const response = await create(token, { kind: 'chat', uri: 'http://chat.example.com' });
    expectInvalid(response, 'name');
    expectInvalid(response, 'uri', 'invalidChatUri');
  });

  test('name and URI are trimmed; the description defaults to empty', async () => {
    const destination = await created(token, { name: '  Reception  ', kind: 'voice', uri: ' sip:reception@pbx.example.com ' });
    expect(destination).toMatchObject({ name: 'Reception', uri: 'sip:reception@pbx.example.com', description: '' });
  });
});

describe('destinations: a patch keeps the URI suited to the kind', () => {
  let token: string;
  beforeAll(async () => {
    ({ token } = await tenantWithMember());
  });

  test('changing the kind alone is refused when the stored URI does not suit the new kind', async () => {
    const voice = await created(token, { kind: 'voice', uri: 'sip:switch@pbx.example.com' });
    expectInvalid(await patch(token, voice.id, { kind: 'chat' }), 'uri', 'invalidChatUri');
    const chat = await created(token, { kind: 'chat', uri: 'https://chat.example.com/switch' });
    expectInvalid(await patch(token, chat.id, { kind: 'voice' }), 'uri', 'invalidVoiceUri');
    // Nothing was half-written.
    expect(await read(token, voice.id)).toMatchObject({ kind: 'voice', uri: 'sip:switch@pbx.example.com', updated_time: voice.updated_time });
    expect(await read(token, chat.id)).toMatchObject({ kind: 'chat', uri: 'https://chat.example.com/switch', updated_time: chat.updated_time });
  });

  test('changing the URI alone is checked against the stored kind', async () => {
    const voice = await created(token, { kind: 'voice', uri: 'tel:+5511999990001' });
    expectInvalid(await patch(token, voice.id, { uri: 'https://chat.example.com/alone' }), 'uri', 'invalidVoiceUri');
    const ok = await patch(token, voice.id, { uri: 'sip:alone@pbx.example.com' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json<Destination>()).toMatchObject({ kind: 'voice', uri: 'sip:alone@pbx.example.com' });
  });

  test('changing both together is checked as a pair', async () => {
    const voice = await created(token, { kind: 'voice', uri: 'sip:pair@pbx.example.com' });
    expectInvalid(await patch(token, voice.id, { kind: 'chat', uri: 'tel:+5511999990002' }), 'uri', 'invalidChatUri');
    const ok = await patch(token, voice.id, { kind: 'chat', uri: 'https://chat.example.com/pair' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await read(token, voice.id)).toMatchObject({ kind: 'chat', uri: 'https://chat.example.com/pair' });
  });

  test('a patch that touches neither leaves the pair alone', async () => {
    const chat = await created(token, { kind: 'chat', uri: 'https://chat.example.com/other' });
    const response = await patch(token, chat.id, { name: 'Renamed', description: 'night shift' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json<Destination>()).toMatchObject({ name: 'Renamed', description: 'night shift', kind: 'chat', uri: 'https://chat.example.com/other' });
  });
});

describe('destinations: one URI once per tenant', () => {
  test('a second destination with the URI answers 409 uri_already_exists on the URI, by create or by patch', async () => {
    const { token } = await tenantWithMember();
    const uri = 'sip:unique@pbx.example.com';
    const first = await created(token, { kind: 'voice', uri });

    const again = await create(token, { name: 'Again', kind: 'voice', uri: ` ${uri} ` });
    expect(again.statusCode, again.body).toBe(409);
    expect(errorOf(again)).toMatchObject({ code: 'uri_already_exists', details: [{ path: 'uri', message: 'already exists' }] });

    const other = await created(token, { kind: 'voice', uri: 'sip:other@pbx.example.com' });
    const moved = await patch(token, other.id, { uri });
    expect(moved.statusCode, moved.body).toBe(409);
    expect(errorOf(moved).code).toBe('uri_already_exists');
    expect(await read(token, other.id)).toMatchObject({ uri: 'sip:other@pbx.example.com' });

    // Patching a destination with its own URI is no conflict.
    const same = await patch(token, first.id, { uri, description: 'same' });
    expect(same.statusCode, same.body).toBe(200);

    const list = await server.call({ method: 'GET', url: '/destinations', token });
    expect(list.json<Destination[]>().filter((row) => row.uri === uri)).toHaveLength(1);
  });

  test('another tenant may use the same URI', async () => {
    const uri = 'https://chat.example.com/shared';
    const mine = await tenantWithMember();
    const theirs = await tenantWithMember();
    const a = await created(mine.token, { kind: 'chat', uri });
    const b = await created(theirs.token, { kind: 'chat', uri });
    expect([a.tenant_id, b.tenant_id]).toEqual([mine.tenantId, theirs.tenantId]);
    // And the administrator, working in a third tenant, too.
    const third = await tenantWithMember();
    const byAdmin = await server.call({ method: 'POST', url: '/destinations', token: admin, tenant: third.tenantId, payload: { name: 'Shared', kind: 'chat', uri } });
    expect(byAdmin.statusCode, byAdmin.body).toBe(201);
  });

  test('a removed destination frees its URI', async () => {
    const { token } = await tenantWithMember();
    const uri = 'tel:+5511999990003';
    const first = await created(token, { kind: 'voice', uri });
    const removed = await server.call({ method: 'DELETE', url: `/destinations/${first.id}`, token });
    expect(removed.statusCode, removed.body).toBe(204);
    expect((await server.call({ method: 'GET', url: `/destinations/${first.id}`, token })).statusCode).toBe(404);
    await created(token, { kind: 'voice', uri });
  });
});

describe('destinations: a chat queue and its agents (issue 30, docs/conversations.md)', () => {
  test('a chat queue takes no URI and names its agents; the list and the record return them', async () => {
    const member = await tenantWithMember();
    const colleague = await createTenantUser(server, admin, member.tenantId, `dest-agent-${next()}`, 'user');
    const queue = await created(member.token, { name: 'Support queue', kind: 'chat', chat_target: 'queue', uri: '', agent_ids: [colleague.userId, member.userId] });
    expect(queue).toMatchObject({ kind: 'chat', chat_target: 'queue', uri: '', agent_ids: [member.userId, colleague.userId].sort((a, b) => a - b) });
    // Two queues of one tenant: their empty URIs are not duplicates.
    const second = await created(member.token, { name: 'Sales queue', kind: 'chat', chat_target: 'queue', uri: '', agent_ids: [member.userId] });
    expect(second.agent_ids).toEqual([member.userId]);
    const list = await server.call({ method: 'GET', url: `/destinations?${q('filter', { where: { chat_target: 'queue' } })}`, token: member.token });
    expect(list.json<Destination[]>().map((row) => [row.name, row.agent_ids.length])).toEqual([
      ['Sales queue', 1],
      ['Support queue', 2],
    ]);
    // A patch of the agents alone replaces them.
    const edited = await patch(member.token, queue.id, { agent_ids: [colleague.userId] });
    expect(edited.statusCode, edited.body).toBe(200);
    expect((await read(member.token, queue.id)).agent_ids).toEqual([colleague.userId]);
  });

  test('a queue made a URL chat destination loses its agents: made a queue again, it needs new ones', async () => {
    const member = await tenantWithMember();
    const queue = await created(member.token, { name: 'Queue then URL', kind: 'chat', chat_target: 'queue', uri: '', agent_ids: [member.userId] });
    const toUrl = await patch(member.token, queue.id, { chat_target: 'url', uri: 'https://desk.example.com/queue-then-url' });
    expect(toUrl.statusCode, toUrl.body).toBe(200);
    expect(toUrl.json<Destination>().agent_ids).toEqual([]);
    expect((await read(member.token, queue.id)).agent_ids).toEqual([]);
    const back = await patch(member.token, queue.id, { chat_target: 'queue', uri: '' });
    expect(back.statusCode, back.body).toBe(400);
    expect(errorOf(back).code).toBe('queue_has_no_agents');
    // An edit of a destination that never was a queue keeps it without agents.
    const url = await created(member.token, { name: 'Only a URL', kind: 'chat', uri: 'https://desk.example.com/only-url' });
    const renamed = await patch(member.token, url.id, { name: 'Only a URL, renamed' });
    expect(renamed.json<Destination>()).toMatchObject({ name: 'Only a URL, renamed', chat_target: 'url', agent_ids: [] });
  });

  test('a URL chat destination says so, a voice one has no chat target', async () => {
    const { token } = await tenantWithMember();
    expect(await created(token, { kind: 'chat', uri: 'https://desk.example.com/hook' })).toMatchObject({ chat_target: 'url', agent_ids: [] });
    expect(await created(token, { kind: 'voice', uri: 'sip:desk@pbx.example.com' })).toMatchObject({ chat_target: null, agent_ids: [] });
    expectInvalid(await create(token, { name: 'Voice queue', kind: 'voice', uri: 'sip:q@pbx.example.com', chat_target: 'queue' }), 'chat_target', 'voiceHasNoChatTarget');
    expectInvalid(await create(token, { name: 'Queue with URL', kind: 'chat', chat_target: 'queue', uri: 'https://x.example.com', agent_ids: [1] }), 'uri', 'queueTakesNoUri');
  });

  test('a queue without agents answers queue_has_no_agents, by create or by patch', async () => {
    const member = await tenantWithMember();
    const none = await create(member.token, { name: 'Empty queue', kind: 'chat', chat_target: 'queue' });
    expect(none.statusCode).toBe(400);
    expect(errorOf(none).code).toBe('queue_has_no_agents');
    const queue = await created(member.token, { kind: 'chat', chat_target: 'queue', uri: '', agent_ids: [member.userId] });
    const emptied = await patch(member.token, queue.id, { agent_ids: [] });
    expect(errorOf(emptied).code).toBe('queue_has_no_agents');
    // A URL destination turned into a queue must name its agents too.
    const desk = await created(member.token, { kind: 'chat', uri: 'https://desk.example.com/q' });
    expect(errorOf(await patch(member.token, desk.id, { chat_target: 'queue', uri: '' })).code).toBe('queue_has_no_agents');
  });

  test('agents must be users of the tenant (or administrators): another tenant’s user or a guest answers agent_not_in_tenant', async () => {
    const member = await tenantWithMember();
    const stranger = await tenantWithMember();
    const guest = await createTenantUser(server, admin, member.tenantId, `dest-guest-${next()}`, 'guest');
    for (const agent of [stranger.userId, guest.userId]) {
      const response = await create(member.token, { name: `Queue ${next()}`, kind: 'chat', chat_target: 'queue', agent_ids: [member.userId, agent] });
      expect(response.statusCode, response.body).toBe(400);
      expect(errorOf(response)).toMatchObject({ code: 'agent_not_in_tenant', details: [{ path: 'agent_ids.1' }] });
    }
    const adminId = (await server.call({ method: 'GET', url: '/whoami', token: admin })).json<{ id: number }>().id;
    expect((await created(member.token, { kind: 'chat', chat_target: 'queue', uri: '', agent_ids: [adminId] })).agent_ids).toEqual([adminId]);
  });

  test('a queue turned into a URL destination keeps no agents; removing a queue removes its agents', async () => {
    const member = await tenantWithMember();
    const queue = await created(member.token, { kind: 'chat', chat_target: 'queue', uri: '', agent_ids: [member.userId] });
    const desk = await patch(member.token, queue.id, { chat_target: 'url', uri: 'https://desk.example.com/turned' });
    expect(desk.json<Destination>()).toMatchObject({ chat_target: 'url', agent_ids: [] });
    const other = await created(member.token, { kind: 'chat', chat_target: 'queue', uri: '', agent_ids: [member.userId] });
    expect((await server.call({ method: 'DELETE', url: `/destinations/${other.id}`, token: member.token })).statusCode).toBe(204);
    const left = await server.ctx.db.selectFrom('destination_agents').selectAll().where('destination_id', 'in', [queue.id, other.id]).execute();
    expect(left).toEqual([]);
  });
});

describe("destinations: a record's id in the path", () => {
  // A plainly written id skips zod's check (resources/routes.ts, issue 40): every other spelling
  // must still be read as zod reads it, and every id zod refuses still refused the same way.
  test('an id with leading zeros or a decimal point names the same record; one past 2^31 - 1, zero, or not a number is refused', async () => {
    const { token } = await tenantWithMember();
    const made = await created(token, { kind: 'voice', uri: `sip:${next()}@pbx.example.com` });
    const plain = await server.call({ method: 'GET', url: `/destinations/${made.id}`, token });
    expect(plain.statusCode).toBe(200);
    for (const spelling of [`00${made.id}`, `${made.id}.0`]) {
      const answer = await server.call({ method: 'GET', url: `/destinations/${spelling}`, token });
      expect(answer.body, spelling).toBe(plain.body);
    }
    expect(errorOf(await server.call({ method: 'GET', url: '/destinations/2147483647', token })).code).toBe('not_found');
    for (const spelling of ['2147483648', '0', '-1', '1.5', 'abc', '99999999999']) {
      const refused = await server.call({ method: 'GET', url: `/destinations/${spelling}`, token });
      expect(refused.statusCode, spelling).toBe(400);
      expect(errorOf(refused).code, spelling).toBe('invalid_input');
      expect(errorOf(refused).details?.[0]?.path, spelling).toBe('params.id');
    }
    // The same for a write.
    expect((await patch(token, made.id, { description: 'plain' })).statusCode).toBe(200);
    expect((await patch(token, Number.NaN, { description: 'not a number' })).statusCode).toBe(400);
  });
});
