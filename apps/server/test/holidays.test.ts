import type { Holiday } from '@voxplan/contracts';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { holidayOn } from '../src/modules/holidays/holidays.service.ts';
import { q, startTestServer, type TestServer } from './harness.ts';

interface ErrorBody {
  error: { statusCode: number; code?: string; message: string; details?: { path: string; message: string }[] };
}
interface ImportResult {
  added: number;
  skipped: number;
  holidays: Holiday[];
}

const errorOf = (response: LightMyRequestResponse): ErrorBody['error'] => response.json<ErrorBody>().error;

let server: TestServer;
let admin: string;
let user: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  const tenant = await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: 'holidays-tenant' } });
  const tenantId = tenant.json<{ id: number }>().id;
  const created = await server.call({
    method: 'POST',
    url: '/users',
    token: admin,
    payload: { username: 'holiday-user', password: 'a-good-password', email: 'holiday-user@example.com', name: 'Holiday User', roles: [{ role: 'user', tenant_id: tenantId }] },
  });
  expect(created.statusCode, created.body).toBe(201);
  user = await server.login('holiday-user', 'a-good-password');
});
afterAll(() => server.close());

const create = (payload: Record<string, unknown>, token = admin) => server.call({ method: 'POST', url: '/holidays', token, payload });
async function created(payload: Record<string, unknown>): Promise<Holiday> {
  const response = await create(payload);
  expect(response.statusCode, response.body).toBe(201);
  return response.json<Holiday>();
}
const importHolidays = (payload: Record<string, unknown>, token = admin) => server.call({ method: 'POST', url: '/holidays/import', token, payload });
async function listWhere(where: Record<string, unknown>): Promise<Holiday[]> {
  const response = await server.call({ method: 'GET', url: `/holidays?${q('filter', { where })}`, token: admin });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Holiday[]>();
}

describe('holidays: records', () => {
  test('create, read, update and remove; recurring is a boolean in the API', async () => {
    const holiday = await created({ name: 'Company day', date: '2026-03-15', level: 'national', country: 'AR' });
    expect(holiday).toMatchObject({ name: 'Company day', date: '2026-03-15', recurring: false, level: 'national', country: 'AR', state: '', city: '' });

    const fetched = await server.call({ method: 'GET', url: `/holidays/${holiday.id}`, token: admin });
    expect(fetched.json()).toEqual(holiday);

    const patched = await server.call({ method: 'PATCH', url: `/holidays/${holiday.id}`, token: admin, payload: { recurring: true, name: 'Company anniversary' } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ id: holiday.id, recurring: true, name: 'Company anniversary' });
    expect((await listWhere({ country: 'AR', recurring: 1 })).map((h) => h.id)).toEqual([holiday.id]);

    expect((await server.call({ method: 'DELETE', url: `/holidays/${holiday.id}`, token: admin })).statusCode).toBe(204);
    expect((await server.call({ method: 'GET', url: `/holidays/${holiday.id}`, token: admin })).statusCode).toBe(404);
  });

  test('invalid input is refused naming the field', async () => {
    const valid = { name: 'Valid', date: '2026-05-05', level: 'national', country: 'CL' };
    for (const [payload, field] of [
      [{ ...valid, name: undefined }, 'name'],
      [{ ...valid, name: '   ' }, 'name'],
      [{ ...valid, name: 'x'.repeat(201) }, 'name'],
      [{ ...valid, date: undefined }, 'date'],
      [{ ...valid, date: '05/05/2026' }, 'date'],
      [{ ...valid, date: '2026-02-30' }, 'date'],
      [{ ...valid, date: '2026-13-01' }, 'date'],
      [{ ...valid, recurring: 'yes' }, 'recurring'],
      [{ ...valid, level: 'county' }, 'level'],
      [{ ...valid, level: undefined }, 'level'],
      [{ ...valid, country: 'br' }, 'country'],
      [{ ...valid, country: 'BRA' }, 'country'],
      [{ ...valid, country: undefined }, 'country'],
      [{ ...valid, state: 42 }, 'state'],
      [{ ...valid, extra: 1 }, ''],
    ] as const) {
      const response = await create(JSON.parse(JSON.stringify(payload)) as Record<string, unknown>);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorOf(response).code).toBe('invalid_input');
      if (field) expect(errorOf(response).details?.map((detail) => detail.path.split('.').pop()), JSON.stringify(payload)).toContain(field);
    }
    expect(await listWhere({ country: 'CL' })).toEqual([]);
    // 29 February exists in leap years only.
    expect((await created({ ...valid, date: '2028-02-29' })).date).toBe('2028-02-29');
  });

  test('level rules: state for state and city holidays, city for city ones', async () => {
    for (const [payload, fields] of [
      [{ level: 'state' }, ['state']],
      [{ level: 'city' }, ['city', 'state']],
      [{ level: 'city', state: 'MG' }, ['city']],
      [{ level: 'city', city: 'Belo Horizonte' }, ['state']],
    ] as const) {
      const response = await create({ name: 'Local', date: '2026-12-08', country: 'BR', ...payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorOf(response).code).toBe('invalid_input');
      expect(errorOf(response).details?.map((detail) => detail.path.split('.').pop()).sort()).toEqual([...fields]);
      expect(errorOf(response).details?.every((detail) => detail.message === 'required')).toBe(true);
    }
    const city = await created({ name: 'Imaculada Conceição', date: '2026-12-08', level: 'city', country: 'BR', state: 'MG', city: 'Belo Horizonte', recurring: true });
    expect(city).toMatchObject({ level: 'city', state: 'MG', city: 'Belo Horizonte', recurring: true });
    // A national holiday names no state or city.
    const national = await created({ name: 'Everywhere', date: '2026-06-01', level: 'national', country: 'UY', state: 'X', city: 'Y' });
    expect(national).toMatchObject({ state: '', city: '' });

    // A patch is checked against the record as it will be.
    const toCity = await server.call({ method: 'PATCH', url: `/holidays/${national.id}`, token: admin, payload: { level: 'city' } });
    expect(toCity.statusCode).toBe(400);
    expect(errorOf(toCity).details?.map((detail) => detail.path)).toEqual(['state', 'city']);
    const clearCity = await server.call({ method: 'PATCH', url: `/holidays/${city.id}`, token: admin, payload: { city: '' } });
    expect(clearCity.statusCode).toBe(400);
    expect(errorOf(clearCity).details?.map((detail) => detail.path)).toEqual(['city']);
    const toState = await server.call({ method: 'PATCH', url: `/holidays/${city.id}`, token: admin, payload: { level: 'state' } });
    expect(toState.statusCode, toState.body).toBe(200);
    expect(toState.json()).toMatchObject({ level: 'state', state: 'MG', city: '' });
  });

  test('a duplicate answers 409 holiday_already_exists', async () => {
    const holiday = { name: 'Twice', date: '2026-08-08', level: 'state', country: 'BR', state: 'RJ' };
    await created(holiday);
    const duplicate = await create(holiday);
    expect(duplicate.statusCode).toBe(409);
    expect(errorOf(duplicate)).toMatchObject({ code: 'holiday_already_exists', message: 'This holiday already exists.' });
    // The same name and date in another state is another holiday.
    await created({ ...holiday, state: 'ES' });
  });

  test('users read holidays but only admins write them (403 no_role_permission)', async () => {
    const target = await created({ name: 'Kept', date: '2026-09-09', level: 'national', country: 'PY' });
    const read = await server.call({ method: 'GET', url: `/holidays?${q('filter', { where: { country: 'PY' } })}`, token: user });
    expect(read.statusCode).toBe(200);
    expect(read.json<Holiday[]>().map((h) => h.name)).toEqual(['Kept']);
    expect((await server.call({ method: 'GET', url: `/holidays/${target.id}`, token: user })).statusCode).toBe(200);
    expect((await server.call({ method: 'GET', url: '/holidays/count', token: user })).statusCode).toBe(200);

    for (const call of [
      () => create({ name: 'Mine', date: '2026-09-10', level: 'national', country: 'PY' }, user),
      () => server.call({ method: 'PATCH', url: `/holidays/${target.id}`, token: user, payload: { name: 'Changed' } }),
      () => server.call({ method: 'DELETE', url: `/holidays/${target.id}`, token: user }),
      () => server.call({ method: 'DELETE', url: '/holidays', token: user, payload: [target.id] }),
      () => importHolidays({ country: 'PY', year: 2026 }, user),
    ]) {
      const response = await call();
      expect(response.statusCode, response.body).toBe(403);
      expect(errorOf(response).code).toBe('no_role_permission');
    }
    expect((await listWhere({ country: 'PY' })).map((h) => h.name)).toEqual(['Kept']);
  });
});

describe('holidays: import from date-holidays', () => {
  test('BR 2026 adds the national holidays, Tiradentes among them, with audit rows', async () => {
    const response = await importHolidays({ country: 'BR', year: 2026 });
    expect(response.statusCode, response.body).toBe(200);
    const result = response.json<ImportResult>();
    expect(result.added).toBeGreaterThan(5);
    expect(result.skipped).toBe(0);
    expect(result.holidays).toHaveLength(result.added);
    expect(result.holidays.every((h) => h.level === 'national' && h.country === 'BR' && h.state === '' && !h.recurring)).toBe(true);
    expect(result.holidays).toEqual(expect.arrayContaining([expect.objectContaining({ date: '2026-04-21', name: 'Dia de Tiradentes', level: 'national' })]));

    const stored = await listWhere({ country: 'BR', level: 'national' });
    expect(stored.map((h) => h.id).sort()).toEqual(result.holidays.map((h) => h.id).sort());
    const audit = await server.call({ method: 'GET', url: `/audit?${q('filter', { where: { entity: 'holiday', action: 'create' } })}`, token: admin });
    const auditedIds = audit.json<{ entity_id: string }[]>().map((row) => Number(row.entity_id));
    expect(auditedIds).toEqual(expect.arrayContaining(result.holidays.map((h) => h.id)));
  });

  test('BR-SP adds the state ones only; the national ones are skipped', async () => {
    const nationalBefore = await listWhere({ country: 'BR', level: 'national' });
    const response = await importHolidays({ country: 'BR', state: 'SP', year: 2026 });
    expect(response.statusCode, response.body).toBe(200);
    const result = response.json<ImportResult>();
    expect(result.added).toBeGreaterThan(0);
    expect(result.skipped).toBeGreaterThanOrEqual(nationalBefore.length - 1);
    expect(result.holidays.every((h) => h.level === 'state' && h.state === 'SP')).toBe(true);
    expect(result.holidays).toEqual(expect.arrayContaining([expect.objectContaining({ date: '2026-07-09', level: 'state', state: 'SP' })]));
    expect(await listWhere({ country: 'BR', level: 'national' })).toHaveLength(nationalBefore.length);
  });

  test('a second import adds nothing and skips all', async () => {
    const response = await importHolidays({ country: 'BR', state: 'SP', year: 2026 });
    expect(response.statusCode).toBe(200);
    const result = response.json<ImportResult>();
    expect(result.added).toBe(0);
    expect(result.skipped).toBeGreaterThan(5);
    expect(result.holidays).toEqual([]);
  });

  test('other countries: PT and US-NY', async () => {
    const pt = (await importHolidays({ country: 'PT', year: 2027 })).json<ImportResult>();
    expect(pt.added).toBeGreaterThan(5);
    const ny = (await importHolidays({ country: 'US', state: 'NY', year: 2026 })).json<ImportResult>();
    expect(ny.holidays.filter((h) => h.level === 'national').length).toBeGreaterThan(5);
    expect(ny.holidays.filter((h) => h.level === 'state').every((h) => h.state === 'NY')).toBe(true);
  });

  test('an unknown country or state answers 400 holiday_region_unknown; a bad body 400 invalid_input', async () => {
    for (const payload of [
      { country: 'XX', year: 2026 },
      { country: 'BR', state: 'ZZ', year: 2026 },
    ]) {
      const response = await importHolidays(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorOf(response).code).toBe('holiday_region_unknown');
    }
    for (const [payload, field] of [
      [{ country: 'BR', year: 1969 }, 'year'],
      [{ country: 'BR', year: 2101 }, 'year'],
      [{ country: 'BR', year: 2026.5 }, 'year'],
      [{ country: 'BR' }, 'year'],
      [{ country: 'br', year: 2026 }, 'country'],
      [{ year: 2026 }, 'country'],
      [{ country: 'BR', state: 'sp', year: 2026 }, 'state'],
    ] as const) {
      const response = await importHolidays(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorOf(response).code).toBe('invalid_input');
      expect(errorOf(response).details?.map((detail) => detail.path.split('.').pop())).toContain(field);
    }
  });
});

describe('holidayOn', () => {
  test('national ones of the country, state ones of that state, city ones of that city, recurring across years', async () => {
    const db = server.ctx.db;
    await created({ name: 'National one-off', date: '2030-01-10', level: 'national', country: 'CO' });
    await created({ name: 'State day', date: '2030-02-20', level: 'state', country: 'CO', state: 'ANT' });
    await created({ name: 'City day', date: '2030-03-30', level: 'city', country: 'CO', state: 'ANT', city: 'Medellín' });
    await created({ name: 'Every year', date: '2000-07-20', level: 'national', country: 'CO', recurring: true });

    expect(await holidayOn(db, '2030-01-10', { country: 'CO' })).toMatchObject({ name: 'National one-off', recurring: false });
    expect(await holidayOn(db, '2030-01-10', { country: 'CO', state: 'DC', city: 'Bogotá' })).toMatchObject({ name: 'National one-off' });
    expect(await holidayOn(db, '2031-01-10', { country: 'CO' })).toBeUndefined();
    expect(await holidayOn(db, '2030-01-10', { country: 'PE' })).toBeUndefined();

    expect(await holidayOn(db, '2030-02-20', { country: 'CO', state: 'ANT' })).toMatchObject({ name: 'State day', level: 'state' });
    expect(await holidayOn(db, '2030-02-20', { country: 'CO', state: 'DC' })).toBeUndefined();
    expect(await holidayOn(db, '2030-02-20', { country: 'CO' })).toBeUndefined();

    expect(await holidayOn(db, '2030-03-30', { country: 'CO', state: 'ANT', city: 'Medellín' })).toMatchObject({ name: 'City day', level: 'city' });
    expect(await holidayOn(db, '2030-03-30', { country: 'CO', state: 'ANT', city: 'Envigado' })).toBeUndefined();
    expect(await holidayOn(db, '2030-03-30', { country: 'CO', state: 'ANT' })).toBeUndefined();

    for (const date of ['2000-07-20', '2026-07-20', '2099-07-20']) {
      expect(await holidayOn(db, date, { country: 'CO' }), date).toMatchObject({ name: 'Every year', recurring: true });
    }
    expect(await holidayOn(db, '2026-07-21', { country: 'CO' })).toBeUndefined();

    // The imported ones are found too.
    expect(await holidayOn(db, '2026-04-21', { country: 'BR', state: 'SP', city: 'Campinas' })).toMatchObject({ name: 'Dia de Tiradentes', level: 'national' });
    expect(await holidayOn(db, '2026-07-09', { country: 'BR', state: 'SP' })).toMatchObject({ level: 'state', state: 'SP' });
    expect(await holidayOn(db, '2026-07-09', { country: 'BR', state: 'RJ' })).toBeUndefined();
  });
});
