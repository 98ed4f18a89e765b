import type { DoNotCallEntry, DoNotCallImportResult } from '@voxplan/contracts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { nowIso } from '../src/lib/time.ts';
import { doNotCallAmong, isOnDoNotCall } from '../src/modules/do-not-call/do-not-call.service.ts';
import { serverDialingDefaults, tenantDialingDefaults } from '../src/modules/tenants/tenant-dialing.ts';
import { multipartBody } from './audio-fixtures.ts';
import { createTenantMember, createTenantUser, errorOf, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';

let server: TestServer;
let admin: string;
/** A user of a tenant in Brazil, the tenant's guest, and a user of a tenant in the United States. */
let br: TenantMember;
let guest: TenantMember;
let us: TenantMember;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  br = await createTenantMember(server, admin, 'dnc-br');
  guest = await createTenantUser(server, admin, br.tenantId, 'dnc-br-guest', 'guest');
  us = await createTenantMember(server, admin, 'dnc-us');
  for (const [member, country, zone] of [[br, 'br', 'America/Sao_Paulo'], [us, 'US', 'America/New_York']] as const) {
    const patched = await server.call({ method: 'PATCH', url: `/tenants/${member.tenantId}`, token: admin, payload: { name: `dnc-${country.toLowerCase()}`, country, time_zone: zone } });
    expect(patched.statusCode, patched.body).toBe(200);
  }
});
afterAll(() => server.close());

const add = (member: TenantMember, payload: Record<string, unknown>) => server.call({ method: 'POST', url: '/do-not-call', token: member.token, payload });
const list = async (member: TenantMember, where?: unknown): Promise<DoNotCallEntry[]> => {
  const response = await server.call({ method: 'GET', url: `/do-not-call${where ? `?${q('filter', { where })}` : ''}`, token: member.token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<DoNotCallEntry[]>();
};
const importFile = (member: TenantMember, text: string | Buffer, filename = 'list.csv', headers: Record<string, string> = {}) => {
  const body = multipartBody({}, { bytes: Buffer.isBuffer(text) ? text : Buffer.from(text), filename, type: 'text/csv' });
  return server.call({ method: 'POST', url: '/do-not-call/import', token: member.token, payload: body.payload, headers: { ...body.headers, ...headers } });
};
const count = async (member: TenantMember) => (await list(member)).length;

describe('do-not-call: the tenant’s country and time zone', () => {
  test('stored on the tenant, checked, and answered by tenantDialingDefaults', async () => {
    const tenant = await server.call({ method: 'GET', url: `/tenants/${br.tenantId}`, token: admin });
    expect(tenant.json()).toMatchObject({ country: 'BR', time_zone: 'America/Sao_Paulo' });
    expect(await tenantDialingDefaults(server.ctx.db, br.tenantId)).toEqual({ country: 'BR', time_zone: 'America/Sao_Paulo' });

    for (const payload of [{ country: 'XX' }, { country: 'BRA' }, { country: 'AQ' }, { time_zone: 'Mars/Olympus' }]) {
      const refused = await server.call({ method: 'PATCH', url: `/tenants/${br.tenantId}`, token: admin, payload: { name: 'dnc-br', ...payload } });
      expect(refused.statusCode, refused.body).toBe(400);
      expect(errorOf(refused).code).toBe('invalid_input');
    }
    const asUser = await server.call({ method: 'PATCH', url: `/tenants/${br.tenantId}`, token: br.token, payload: { name: 'dnc-br', country: 'PT' } });
    expect(asUser.statusCode).toBe(403);
    expect(await tenantDialingDefaults(server.ctx.db, br.tenantId)).toEqual({ country: 'BR', time_zone: 'America/Sao_Paulo' });

    // A tenant that names neither gets the server's: its language's region and its own zone.
    const fresh = await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: 'dnc-fresh' } });
    expect(fresh.json()).toMatchObject({ country: '', time_zone: '' });
    const serverDefaults = serverDialingDefaults('pt-BR');
    expect(serverDefaults.country).toBe('BR');
    expect(serverDialingDefaults('en-US').country).toBe('US');
    expect(await tenantDialingDefaults(server.ctx.db, fresh.json<{ id: number }>().id, serverDefaults)).toEqual(serverDefaults);
  });
});

describe('do-not-call: the list', () => {
  test('a national number is read with the tenant’s country and stored in E.164, with who added it', async () => {
    const created = await add(br, { number: '(11) 91234-5678', reason: 'Asked on the phone' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ number: '+5511912345678', reason: 'Asked on the phone', added_by: 'dnc-br-user', tenant_id: br.tenantId });
    // The same national digits are another number in the United States.
    const inUs = await add(us, { number: '(415) 555-0123' });
    expect(inUs.json()).toMatchObject({ number: '+14155550123', reason: '' });
    // Written with its country, a number keeps it.
    expect((await add(us, { number: '00 55 21 99876-5432' })).json()).toMatchObject({ number: '+5521998765432' });

    const edited = await server.call({ method: 'PATCH', url: `/do-not-call/${created.json<DoNotCallEntry>().id}`, token: br.token, payload: { number: '011 91234 5679' } });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json()).toMatchObject({ number: '+5511912345679', reason: 'Asked on the phone', added_by: 'dnc-br-user' });
    expect(await isOnDoNotCall(server.ctx.db, br.tenantId, '+5511912345679')).toBe(true);
    expect(await isOnDoNotCall(server.ctx.db, br.tenantId, '+5511912345678')).toBe(false);
  });

  test('a bad number and a duplicate in any form are refused, nothing stored', async () => {
    const before = await count(br);
    for (const number of ['12', 'call me', '+999 1234']) {
      const refused = await add(br, { number });
      expect(refused.statusCode, refused.body).toBe(400);
      expect(errorOf(refused)).toMatchObject({ code: 'invalid_phone_number', details: [{ path: 'number' }] });
    }
    expect((await add(br, { number: '' })).statusCode).toBe(400);
    expect(await add(br, { number: '+55 11 3333-4444' })).toHaveProperty('statusCode', 201);
    const duplicate = await add(br, { number: '(11) 3333-4444', reason: 'again' });
    expect(duplicate.statusCode).toBe(409);
    expect(errorOf(duplicate).code).toBe('do_not_call_already_exists');
    const pt = await add(br, { number: '11 3333 4444' }).then(() => server.call({ method: 'POST', url: '/do-not-call', token: br.token, payload: { number: '1133334444' }, headers: { 'accept-language': 'pt-BR' } }));
    expect(errorOf(pt).message).toBe('Este número já está na lista de não ligar.');
    expect(await count(br)).toBe(before + 1);
  });

  test('guests read only; another tenant’s entries are invisible', async () => {
    const mine = await list(br);
    expect(mine.length).toBeGreaterThan(0);
    expect((await list(guest)).map((entry) => entry.number)).toEqual(mine.map((entry) => entry.number));
    const refused = await add(guest, { number: '+5511955554444' });
    expect(refused.statusCode).toBe(403);
    expect(errorOf(refused).code).toBe('readonly_only');
    expect((await importFile(guest, '+5511955554444\n')).statusCode).toBe(403);

    expect((await list(us)).every((entry) => entry.tenant_id === us.tenantId)).toBe(true);
    const theirs = mine[0]!;
    expect((await server.call({ method: 'GET', url: `/do-not-call/${theirs.id}`, token: us.token })).statusCode).toBe(404);
    expect((await server.call({ method: 'DELETE', url: `/do-not-call/${theirs.id}`, token: us.token })).statusCode).toBe(404);
    expect(await doNotCallAmong(server.ctx.db, us.tenantId, mine.map((entry) => entry.number))).toEqual(new Set(mine.filter((e) => e.number === '+5521998765432').map((e) => e.number)));
  });
});

describe('do-not-call: import and export', () => {
  test('a CSV with a header: bad lines named by line, duplicates counted, the rest added', async () => {
    const file = [
      'Telefone;Motivo',
      '(11) 98888-0001;pediu por e-mail',
      'not a number;x',
      '',
      '+55 11 98888-0002;"disse ""pare""; duas vezes"',
      '11 98888-0001;repetido no arquivo',
      '(11) 3333-4444;já na lista',
      '123;curto',
      `11 98888-0003;${'r'.repeat(301)}`,
    ].join('\r\n');
    const response = await importFile(br, file);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json<DoNotCallImportResult>()).toEqual({
      added: 2,
      duplicates: 2,
      invalid_count: 3,
      invalid: [
        { line: 3, value: 'not a number', problem: 'invalid_phone_number' },
        { line: 8, value: '123', problem: 'invalid_phone_number' },
        { line: 9, value: '11 98888-0003', problem: 'reason_too_long' },
      ],
    });
    const added = await list(br, { number: { inq: ['+5511988880001', '+5511988880002'] } });
    expect(added.map((entry) => [entry.number, entry.reason, entry.added_by]).sort()).toEqual([
      ['+5511988880001', 'pediu por e-mail', 'dnc-br-user'],
      ['+5511988880002', 'disse "pare"; duas vezes', 'dnc-br-user'],
    ]);
    expect(await doNotCallAmong(server.ctx.db, br.tenantId, ['+5511988880001', '+5511988880002', '+5511988880003'])).toEqual(new Set(['+5511988880001', '+5511988880002']));
  });

  test('a plain list, one number a line, read with the tenant’s country', async () => {
    const response = await importFile(us, '(212) 555-0101\n212-555-0102\n+1 415 555 0123\nnope\n', 'numbers.txt');
    expect(response.json<DoNotCallImportResult>()).toEqual({ added: 2, duplicates: 1, invalid_count: 1, invalid: [{ line: 4, value: 'nope', problem: 'invalid_phone_number' }] });
  });

  test('a file that is not CSV text, an unclosed quote, a header without a number column, or an oversized file: refused whole', async () => {
    const before = await count(br);
    const zip = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00]);
    for (const [bytes, message] of [
      [zip, 'not UTF-8 text'],
      [Buffer.from('11 97777-0001\n"11 97777-0002,open\n11 97777-0003\n'), 'a quote is never closed at line 2'],
      [Buffer.from('name,email\nAna,ana@example.com\n'), undefined],
      [Buffer.from('number\n'), 'no numbers in the file'],
    ] as const) {
      const refused = await importFile(br, bytes);
      expect(refused.statusCode, refused.body).toBe(400);
      expect(errorOf(refused).code).toBe('do_not_call_file_invalid');
      if (message) expect(errorOf(refused).details).toEqual([{ path: 'file', message }]);
    }
    const big = Buffer.from(`${'11 97777-0001\n'.repeat(Math.ceil((5 * 1024 * 1024) / 14) + 10)}`);
    const tooLarge = await importFile(br, big);
    expect(tooLarge.statusCode).toBe(413);
    expect(errorOf(tooLarge)).toMatchObject({ code: 'file_too_large', params: { maxSize: 5 } });
    const noFile = await server.call({ method: 'POST', url: '/do-not-call/import', token: br.token, ...multipartBody({ note: 'x' }) });
    expect(noFile.statusCode).toBe(400);
    expect(await count(br)).toBe(before);
  });

  test('the export is the list as CSV, and imports back as nothing new', async () => {
    const response = await server.call({ method: 'GET', url: '/do-not-call/export.csv', token: guest.token });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = response.body.trim().split('\r\n');
    expect(lines[0]).toBe('number,reason,added_by,created_time');
    expect(lines.length - 1).toBe(await count(br));
    expect(response.body).toContain('+5511988880002,"disse ""pare""; duas vezes",dnc-br-user,');
    const again = await importFile(br, response.body);
    expect(again.json<DoNotCallImportResult>()).toMatchObject({ added: 0, duplicates: lines.length - 1, invalid_count: 0 });
  });
});

describe('do-not-call: what a dial asks', () => {
  test('doNotCallAmong answers the listed ones of a batch larger than one look-up', async () => {
    const now = nowIso();
    await server.ctx.db.insertInto('do_not_call').values({ tenant_id: us.tenantId, number: '+14155550199', created_time: now, updated_time: now }).execute();
    const batch = Array.from({ length: 1200 }, (_, index) => `+1415600${String(index).padStart(4, '0')}`);
    batch.push('+14155550199', '+5511988880001', '+14155550199');
    expect(await doNotCallAmong(server.ctx.db, us.tenantId, batch)).toEqual(new Set(['+14155550199']));
    expect(await doNotCallAmong(server.ctx.db, br.tenantId, batch)).toEqual(new Set(['+5511988880001']));
    expect(await doNotCallAmong(server.ctx.db, us.tenantId, [])).toEqual(new Set());
    expect(await isOnDoNotCall(server.ctx.db, us.tenantId, '+14155550199')).toBe(true);
  });
});
