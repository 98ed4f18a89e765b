import type { PhoneNumber } from '@voxplan/contracts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { choosePlan, findNumber } from '../src/modules/numbers/number-lookup.ts';
import { createTenantMember, createTenantUser, errorOf, expectInvalid, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';

/**
 * Phone numbers: E.164 and unique across the system, plans and date ranges of the tenant only,
 * ordered rules, the WhatsApp token encrypted and masked, removals of plans and date ranges a
 * number uses refused, and the lookup a channel routes calls with.
 */

const PUBLIC_URL = 'https://voxplan.example.com';
let server: TestServer;
let admin: string;
let serial = 0;
const next = () => (serial += 1);
const e164 = () => `+5511${String(40000000 + next()).padStart(8, '0')}`;

beforeAll(async () => {
  server = await startTestServer({ PUBLIC_URL });
  admin = await server.login();
});
afterAll(() => server.close());

type Payload = Record<string, unknown>;
const create = (token: string, payload: Payload) => server.call({ method: 'POST', url: '/numbers', token, payload });
const patch = (token: string, id: number, payload: Payload) => server.call({ method: 'PATCH', url: `/numbers/${id}`, token, payload });
const read = (token: string, id: number) => server.call({ method: 'GET', url: `/numbers/${id}`, token });

async function created(token: string, payload: Payload): Promise<PhoneNumber> {
  const response = await create(token, { number: e164(), provider: 'twilio', ...payload });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<PhoneNumber>();
}

async function planOf(token: string, name = `Plan ${next()}`): Promise<number> {
  const response = await server.call({ method: 'POST', url: '/visual-plans', token, payload: { name } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: number }>().id;
}

async function dateRangeOf(token: string): Promise<number> {
  const response = await server.call({
    method: 'POST',
    url: '/date-ranges',
    token,
    payload: { name: `Hours ${next()}`, time_zone: 'America/Sao_Paulo', intervals: [{ day: 'wednesday', start: '08:00', end: '18:00' }] },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: number }>().id;
}

const tenantWithMember = () => createTenantMember(server, admin, `numbers-${next()}`);

describe('numbers: create, read, change and remove', () => {
  let member: TenantMember;
  let plans: number[];
  let hours: number;
  beforeAll(async () => {
    member = await tenantWithMember();
    plans = [await planOf(member.token), await planOf(member.token), await planOf(member.token)];
    hours = await dateRangeOf(member.token);
  });

  test('a number is stored with its plans and its rules in the order given', async () => {
    const rules = [
      { date_range_id: hours, caller_prefixes: ['+5511'], plan_id: plans[2] },
      { caller_prefixes: ['5521', '+5531'], plan_id: plans[1] },
      { date_range_id: hours, plan_id: plans[0] },
    ];
    const number = await created(member.token, { number: ' +551130000001 ', description: 'Reception', voice_plan_id: plans[0], chat_plan_id: plans[1], rules });
    const expected = {
      number: '+551130000001',
      description: 'Reception',
      provider: 'twilio',
      tenant_id: member.tenantId,
      voice_plan_id: plans[0],
      chat_plan_id: plans[1],
      rules: [
        { date_range_id: hours, caller_prefixes: ['+5511'], plan_id: plans[2] },
        { date_range_id: null, caller_prefixes: ['5521', '+5531'], plan_id: plans[1] },
        { date_range_id: hours, caller_prefixes: [], plan_id: plans[0] },
      ],
      whatsapp_token: '',
      whatsapp_webhook_url: null,
    };
    expect(number).toMatchObject(expected);
    expect((await read(member.token, number.id)).json()).toMatchObject(expected);
    const list = await server.call({ method: 'GET', url: `/numbers?${q('filter', { where: { number: '+551130000001' } })}`, token: member.token });
    expect(list.json<PhoneNumber[]>()).toMatchObject([expected]);
  });

  test('a patch of the rules replaces them in the new order; a patch of another field keeps them', async () => {
    const number = await created(member.token, { rules: [{ caller_prefixes: ['+55'], plan_id: plans[0] }, { date_range_id: hours, plan_id: plans[1] }] });
    const reordered = await patch(member.token, number.id, { rules: [{ date_range_id: hours, plan_id: plans[1] }, { caller_prefixes: ['+55'], plan_id: plans[0] }] });
    expect(reordered.statusCode, reordered.body).toBe(200);
    expect(reordered.json<PhoneNumber>().rules.map((rule) => rule.plan_id)).toEqual([plans[1], plans[0]]);
    const described = await patch(member.token, number.id, { description: 'Sales' });
    expect(described.json<PhoneNumber>()).toMatchObject({ description: 'Sales', rules: [{ plan_id: plans[1] }, { plan_id: plans[0] }] });
    const cleared = await patch(member.token, number.id, { rules: [], voice_plan_id: null });
    expect(cleared.json<PhoneNumber>()).toMatchObject({ rules: [], voice_plan_id: null });
  });

  test('a removed number is gone, and so are its rules', async () => {
    const number = await created(member.token, { rules: [{ caller_prefixes: ['+55'], plan_id: plans[0] }] });
    expect((await server.call({ method: 'DELETE', url: `/numbers/${number.id}`, token: member.token })).statusCode).toBe(204);
    expect((await read(member.token, number.id)).statusCode).toBe(404);
    const rules = await server.ctx.db.selectFrom('number_rules').select('id').where('number_id', '=', number.id).execute();
    expect(rules).toEqual([]);
  });
});

describe('numbers: validation', () => {
  let member: TenantMember;
  let plan: number;
  beforeAll(async () => {
    member = await tenantWithMember();
    plan = await planOf(member.token);
  });

  test.each(['551130000000', '+0551130000000', '+55 11 3000-0000', '+5511300000000000', '+', 'tel:+551130000000', ''])(
    'the number %j is refused as not E.164',
    async (number) => {
      expectInvalid(await create(member.token, { number, provider: 'twilio' }), 'number', number === '' || number === '+' ? undefined : 'invalidE164');
    },
  );

  test('provider, plans and unknown fields are checked; every mistake is reported at once', async () => {
    expectInvalid(await create(member.token, { number: e164() }), 'provider');
    expectInvalid(await create(member.token, { number: e164(), provider: 'fax' }), 'provider');
    expectInvalid(await create(member.token, { number: e164(), provider: 'twilio', voice_plan_id: 'one' }), 'voice_plan_id');
    expectInvalid(await create(member.token, { number: e164(), provider: 'twilio', colour: 'red' }), 'colour');
    const both = await create(member.token, { number: '123', provider: 'fax' });
    expectInvalid(both, 'number', 'invalidE164');
    expectInvalid(both, 'provider');
  });

  test('a rule needs a date range or caller prefixes, and prefixes are digits with an optional +', async () => {
    expectInvalid(await create(member.token, { number: e164(), provider: 'twilio', rules: [{ plan_id: plan }] }), 'rules.0.caller_prefixes', 'ruleNeedsCondition');
    expectInvalid(await create(member.token, { number: e164(), provider: 'twilio', rules: [{ caller_prefixes: ['+55', '11-3'], plan_id: plan }] }), 'rules.0.caller_prefixes.1', 'invalidCallerPrefix');
    expectInvalid(await create(member.token, { number: e164(), provider: 'twilio', rules: [{ caller_prefixes: ['+55'] }] }), 'rules.0.plan_id');
    // Both mistakes of an empty rule at once.
    const empty = await create(member.token, { number: e164(), provider: 'twilio', rules: [{}] });
    expectInvalid(empty, 'rules.0.plan_id');
    expectInvalid(empty, 'rules.0.caller_prefixes', 'ruleNeedsCondition');
  });

  test('plans and date ranges must be the tenant’s: another tenant’s are not found either', async () => {
    const other = await tenantWithMember();
    const foreignPlan = await planOf(other.token);
    const foreignRange = await dateRangeOf(other.token);
    const response = await create(member.token, {
      number: e164(),
      provider: 'twilio',
      voice_plan_id: foreignPlan,
      chat_plan_id: plan,
      rules: [{ caller_prefixes: ['+55'], plan_id: plan }, { date_range_id: foreignRange, plan_id: 999999 }],
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(errorOf(response).code).toBe('reference_not_found');
    expect(errorOf(response).details?.map((detail) => detail.path)).toEqual(['voice_plan_id', 'rules.1.plan_id', 'rules.1.date_range_id']);
    // A patch is checked the same way, and changes nothing.
    const number = await created(member.token, { voice_plan_id: plan });
    const patched = await patch(member.token, number.id, { voice_plan_id: foreignPlan });
    expect(errorOf(patched).code).toBe('reference_not_found');
    expect((await read(member.token, number.id)).json()).toMatchObject({ voice_plan_id: plan });
  });
});

describe('numbers: one tenant per number', () => {
  test('a number taken in one tenant is refused in the same or another, without saying whose it is', async () => {
    const first = await tenantWithMember();
    const second = await tenantWithMember();
    const number = e164();
    await created(first.token, { number });
    for (const token of [first.token, second.token]) {
      const duplicate = await create(token, { number, provider: 'asterisk' });
      expect(duplicate.statusCode, duplicate.body).toBe(409);
      expect(errorOf(duplicate).code).toBe('number_already_exists');
      expect(duplicate.body).not.toContain(`numbers-`);
    }
    // A patch onto a taken number is refused alike.
    const own = await created(second.token, {});
    const renumbered = await patch(second.token, own.id, { number });
    expect(renumbered.statusCode).toBe(409);
    expect(errorOf(renumbered).code).toBe('number_already_exists');
  });

  test('another tenant’s number is not seen, read, changed or removed', async () => {
    const owner = await tenantWithMember();
    const stranger = await tenantWithMember();
    const number = await created(owner.token, {});
    expect((await read(stranger.token, number.id)).statusCode).toBe(404);
    expect((await patch(stranger.token, number.id, { description: 'mine' })).statusCode).toBe(404);
    expect((await server.call({ method: 'DELETE', url: `/numbers/${number.id}`, token: stranger.token })).statusCode).toBe(404);
    expect((await server.call({ method: 'GET', url: '/numbers', token: stranger.token })).json()).toEqual([]);
    expect((await read(owner.token, number.id)).json()).toMatchObject({ description: '' });
  });

  test('a guest of the tenant reads its numbers and changes nothing', async () => {
    const owner = await tenantWithMember();
    const guest = await createTenantUser(server, admin, owner.tenantId, `numbers-guest-${next()}`, 'guest');
    const number = await created(owner.token, {});
    expect((await read(guest.token, number.id)).json()).toMatchObject({ id: number.id });
    const refused = [
      await create(guest.token, { number: e164(), provider: 'twilio' }),
      await patch(guest.token, number.id, { description: 'guest' }),
      await server.call({ method: 'DELETE', url: `/numbers/${number.id}`, token: guest.token }),
    ];
    for (const response of refused) {
      expect(response.statusCode).toBe(403);
      expect(errorOf(response).code).toBe('readonly_only');
    }
    expect((await read(owner.token, number.id)).json()).toMatchObject({ description: '' });
  });
});

describe('numbers: WhatsApp', () => {
  let member: TenantMember;
  beforeAll(async () => {
    member = await tenantWithMember();
  });

  /** What Meta needs, so that a WhatsApp number is complete. */
  const metaFields = { provider: 'whatsapp', whatsapp_token: 'EAAG-token-0000', whatsapp_phone_number_id: '106540352242922', whatsapp_app_secret: 'meta-app-secret-0000' };

  test("a WhatsApp number without Meta's token, phone number id or app secret is refused, each named, unless saved as a draft", async () => {
    const refused = await create(member.token, { number: e164(), provider: 'whatsapp', whatsapp_token: 'EAAG-token-1111' });
    expect(refused.statusCode).toBe(400);
    expect(errorOf(refused)).toMatchObject({
      code: 'whatsapp_incomplete',
      details: [
        { path: 'whatsapp_phone_number_id', message: 'required' },
        { path: 'whatsapp_app_secret', message: 'required' },
      ],
    });

    const draft = await created(member.token, { provider: 'whatsapp', whatsapp_token: 'EAAG-token-1111', draft: true });
    expect(draft).toMatchObject({ provider: 'whatsapp', whatsapp_token: '••••1111', whatsapp_phone_number_id: '', whatsapp_app_secret: '' });
    expect(draft).not.toHaveProperty('draft');
    // A later edit that still leaves a field out is refused as well; giving the rest completes it.
    expect(errorOf(await patch(member.token, draft.id, { description: 'still a draft' })).code).toBe('whatsapp_incomplete');
    const completed = await patch(member.token, draft.id, { whatsapp_phone_number_id: '106540352242922', whatsapp_app_secret: 'meta-app-secret-1111' });
    expect(completed.statusCode, completed.body).toBe(200);

    // A number turned into a WhatsApp one needs them too; other providers never do.
    const twilio = await created(member.token, { provider: 'twilio' });
    expect(errorOf(await patch(member.token, twilio.id, { provider: 'whatsapp' })).code).toBe('whatsapp_incomplete');
    expect((await patch(member.token, twilio.id, { description: 'plain' })).statusCode).toBe(200);
  });

  const storedToken = async (id: number) => (await server.ctx.db.selectFrom('numbers').select('whatsapp_token').where('id', '=', id).executeTakeFirstOrThrow()).whatsapp_token;

  test('the token is stored encrypted, answered masked, kept when the mask comes back and cleared when emptied', async () => {
    const number = await created(member.token, { ...metaFields, whatsapp_token: 'EAAG-secret-token-1234' });
    expect(number).toMatchObject({ whatsapp_token: '••••1234', whatsapp_phone_number_id: '106540352242922' });
    const stored = await storedToken(number.id);
    expect(stored).toMatch(/^v1:/);
    expect(stored).not.toContain('secret');
    expect((await read(member.token, number.id)).body).not.toContain('EAAG-secret');

    const kept = await patch(member.token, number.id, { whatsapp_token: number.whatsapp_token, description: 'kept' });
    expect(kept.json<PhoneNumber>()).toMatchObject({ whatsapp_token: '••••1234', description: 'kept' });
    expect(await storedToken(number.id)).toBe(stored);

    const replaced = await patch(member.token, number.id, { whatsapp_token: 'EAAG-other-token-9876' });
    expect(replaced.json<PhoneNumber>().whatsapp_token).toBe('••••9876');

    // Emptied, the number lacks what Meta needs: only a draft may be left so.
    expect(errorOf(await patch(member.token, number.id, { whatsapp_token: '' })).code).toBe('whatsapp_incomplete');
    const cleared = await patch(member.token, number.id, { whatsapp_token: '', draft: true });
    expect(cleared.json<PhoneNumber>().whatsapp_token).toBe('');
    expect(await storedToken(number.id)).toBeNull();
    // With nothing stored, the mask stands for nothing.
    expectInvalid(await patch(member.token, number.id, { whatsapp_token: '••••9876', draft: true }), 'whatsapp_token', 'required');
  });

  test('a WhatsApp number shows its webhook URL under PUBLIC_URL and gets a verification token when given none', async () => {
    const number = await created(member.token, { provider: 'whatsapp', draft: true });
    expect(number.whatsapp_webhook_url).toBe(`${PUBLIC_URL}/api/v1/hooks/whatsapp/${number.id}`);
    expect(number.whatsapp_verify_token).toMatch(/^[\w-]{32}$/);
    const chosen = await patch(member.token, number.id, { whatsapp_verify_token: 'my-verify-token', draft: true });
    expect(chosen.json<PhoneNumber>().whatsapp_verify_token).toBe('my-verify-token');
    const other = await created(member.token, { provider: 'twilio' });
    expect(other).toMatchObject({ whatsapp_webhook_url: null, whatsapp_verify_token: '' });
  });

  test('the audit log holds the masked token, never the token or its ciphertext', async () => {
    const number = await created(member.token, { ...metaFields, whatsapp_token: 'EAAG-audited-token-5555' });
    await patch(member.token, number.id, { whatsapp_token: 'EAAG-audited-token-6666' });
    const entries = (
      await server.call({ method: 'GET', url: `/audit?${q('filter', { where: { entity: 'number', entity_id: String(number.id) }, order: ['id ASC'] })}`, token: admin })
    ).json<{ action: string; before: PhoneNumber | null; after: PhoneNumber | null; username: string }[]>();
    expect(entries.map((entry) => entry.action)).toEqual(['create', 'update']);
    expect(entries[0]!.after).toMatchObject({ number: number.number, whatsapp_token: '••••5555' });
    expect(entries[1]).toMatchObject({ before: { whatsapp_token: '••••5555' }, after: { whatsapp_token: '••••6666' }, username: member.username });
    const text = JSON.stringify(entries);
    expect(text).not.toContain('EAAG');
    expect(text).not.toContain('v1:');
  });
});

describe('numbers: plans and date ranges they use cannot be removed', () => {
  let member: TenantMember;
  beforeAll(async () => {
    member = await tenantWithMember();
  });

  const remove = (url: string) => server.call({ method: 'DELETE', url, token: member.token });

  test('a plan a number runs, or a rule routes to, is refused with plan_in_use naming the number', async () => {
    const own = await planOf(member.token);
    const routed = await planOf(member.token);
    const number = await created(member.token, { chat_plan_id: own, rules: [{ caller_prefixes: ['+55'], plan_id: routed }] });
    for (const plan of [own, routed]) {
      const refused = await remove(`/visual-plans/${plan}`);
      expect(refused.statusCode, refused.body).toBe(409);
      expect(errorOf(refused).code).toBe('plan_in_use');
      expect(errorOf(refused).details).toEqual([{ path: String(plan), message: expect.stringContaining(number.number), number_id: number.id, number: number.number }]);
    }
    // Bulk removal of both is refused as a whole.
    const bulk = await server.call({ method: 'DELETE', url: '/visual-plans', token: member.token, payload: [own, routed] });
    expect(bulk.statusCode).toBe(409);
    expect(errorOf(bulk).details?.map((detail) => detail.path)).toEqual([String(own), String(routed)]);
    // Once the number lets go, the plans go.
    await patch(member.token, number.id, { chat_plan_id: null, rules: [] });
    expect((await remove(`/visual-plans/${own}`)).statusCode).toBe(204);
    expect((await remove(`/visual-plans/${routed}`)).statusCode).toBe(204);
  });

  test('a date range a rule names is refused with date_range_in_use naming the number', async () => {
    const plan = await planOf(member.token);
    const hours = await dateRangeOf(member.token);
    const number = await created(member.token, { rules: [{ date_range_id: hours, plan_id: plan }] });
    const refused = await remove(`/date-ranges/${hours}`);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(errorOf(refused)).toMatchObject({ code: 'date_range_in_use', details: [{ path: String(hours), number_id: number.id, number: number.number }] });
    expect((await remove(`/numbers/${number.id}`)).statusCode).toBe(204);
    expect((await remove(`/date-ranges/${hours}`)).statusCode).toBe(204);
  });
});

describe('numbers: the lookup a channel routes with', () => {
  test('findNumber answers the number’s tenant, plans and ordered rules; choosePlan picks by them', async () => {
    const member = await tenantWithMember();
    const [voice, chat, daytime, vip] = [await planOf(member.token), await planOf(member.token), await planOf(member.token), await planOf(member.token)];
    const hours = await dateRangeOf(member.token);
    const number = await created(member.token, {
      voice_plan_id: voice,
      chat_plan_id: chat,
      rules: [
        { caller_prefixes: ['+5521'], plan_id: vip },
        { date_range_id: hours, plan_id: daytime },
      ],
    });
    const route = await findNumber(server.ctx.db, number.number);
    expect(route).toMatchObject({ id: number.id, tenant_id: member.tenantId, provider: 'twilio', voice_plan_id: voice, chat_plan_id: chat });
    expect(route!.rules.map((rule) => rule.plan_id)).toEqual([vip, daytime]);
    // Wednesday 2026-07-01 at 10:00 and 20:00 in São Paulo.
    const morning = new Date('2026-07-01T13:00:00Z');
    const night = new Date('2026-07-01T23:00:00Z');
    expect(choosePlan(route!, 'voice', morning, '+5521999990000')).toBe(vip);
    expect(choosePlan(route!, 'voice', morning, '+5511999990000')).toBe(daytime);
    expect(choosePlan(route!, 'voice', night, '+5511999990000')).toBe(voice);
    expect(choosePlan(route!, 'chat', night, '+5511999990000')).toBe(chat);
    expect(await findNumber(server.ctx.db, '+19999999999')).toBeUndefined();
    expect(await findNumber(server.ctx.db, 'not a number')).toBeUndefined();
  });
});
