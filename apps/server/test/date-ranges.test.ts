import { type DateRange, presetIntervals } from '@voxplan/contracts';
import { beforeAll, describe, expect, test } from 'vitest';
import { errorOf, expectInvalid, q } from './harness.ts';
import { admin, create, created, next, server, statusOf, tenantWith, useDateRangesServer } from './date-ranges-fixture.ts';

/** Date ranges as records: made, read, changed and checked field by field; their names. Their status, holidays, preview and the engine's port: date-ranges-status.test.ts. */
useDateRangesServer();

describe('date ranges: records', () => {
  let token: string;
  let tenantId: number;
  beforeAll(async () => {
    ({ token, tenantId } = await tenantWith());
  });

  test('create, read, change and remove; intervals and exceptions travel as lists; the zone is spelled canonically', async () => {
    const range = await created(token, {
      name: 'Support',
      time_zone: 'america/sao_paulo',
      intervals: presetIntervals('weekdays_with_break'),
      exceptions: [{ name: 'Carnival', initial_date: '2026-02-16', final_date: '2026-02-17' }],
      country: 'BR',
      state: 'SP',
      city: 'Campinas',
    });
    expect(range).toMatchObject({
      tenant_id: tenantId,
      name: 'Support',
      time_zone: 'America/Sao_Paulo',
      intervals: presetIntervals('weekdays_with_break'),
      exceptions: [{ name: 'Carnival', initial_date: '2026-02-16', final_date: '2026-02-17' }],
      country: 'BR',
      state: 'SP',
      city: 'Campinas',
    });
    expect((await server.call({ method: 'GET', url: `/date-ranges/${range.id}`, token })).json()).toEqual(range);

    const patched = await server.call({
      method: 'PATCH',
      url: `/date-ranges/${range.id}`,
      token,
      payload: { intervals: [{ day: 'saturday', start: '22:00', end: '02:00' }], city: '' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json<DateRange>()).toMatchObject({ intervals: [{ day: 'saturday', start: '22:00', end: '02:00' }], exceptions: range.exceptions, state: 'SP', city: '' });

    const listed = await server.call({ method: 'GET', url: `/date-ranges?${q('filter', { where: { time_zone: 'America/Sao_Paulo', state: 'SP' } })}`, token });
    expect(listed.json<DateRange[]>().map((row) => row.id)).toEqual([range.id]);

    const removed = await server.call({ method: 'DELETE', url: `/date-ranges/${range.id}`, token });
    expect(removed.statusCode).toBe(204);
    expect((await server.call({ method: 'GET', url: `/date-ranges/${range.id}`, token })).statusCode).toBe(404);
  });

  test('the defaults: no intervals (always closed), no exceptions, no place', async () => {
    const range = await created(token, {});
    expect(range).toMatchObject({ intervals: [], exceptions: [], country: '', state: '', city: '' });
    expect((await statusOf(token, range.id, '2026-06-15T15:00:00Z')).status).toBe('out_of_hours');
  });

  test('bulk removal removes only the ids given, and a guest removes nothing', async () => {
    const { token: member, guest } = await tenantWith();
    const [a, b, c] = [await created(member, {}), await created(member, {}), await created(member, {})];
    const refused = await server.call({ method: 'DELETE', url: '/date-ranges', token: guest, payload: [a.id] });
    expect(errorOf(refused).code).toBe('readonly_only');
    const removed = await server.call({ method: 'DELETE', url: '/date-ranges', token: member, payload: { ids: [a.id, c.id] } });
    expect(removed.json()).toEqual({ count: 2 });
    const left = await server.call({ method: 'GET', url: '/date-ranges', token: member });
    expect(left.json<DateRange[]>().map((row) => row.id)).toEqual([b.id]);
  });

  test('a tenant that has date ranges is in use and cannot be removed', async () => {
    const tenant = await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: `ranges-owner-${next()}` } });
    const id = tenant.json<{ id: number }>().id;
    const range = await server.call({ method: 'POST', url: '/date-ranges', token: admin, tenant: id, payload: { name: 'Only', time_zone: 'UTC' } });
    expect(range.statusCode, range.body).toBe(201);
    const refused = await server.call({ method: 'DELETE', url: `/tenants/${id}`, token: admin });
    expect(refused.statusCode).toBe(409);
    expect(errorOf(refused).code).toBe('tenant_in_use');
    await server.call({ method: 'DELETE', url: `/date-ranges/${range.json<DateRange>().id}`, token: admin, tenant: id });
    expect((await server.call({ method: 'DELETE', url: `/tenants/${id}`, token: admin })).statusCode).toBe(204);
  });
});

describe('date ranges: validation, field by field', () => {
  let token: string;
  beforeAll(async () => {
    ({ token } = await tenantWith());
  });
  const valid = { name: 'Valid', time_zone: 'Europe/Lisbon' };

  test('name: required, at most 100 characters', async () => {
    expectInvalid(await create(token, { time_zone: 'UTC' }), 'name');
    expectInvalid(await create(token, { ...valid, name: '   ' }), 'name');
    expectInvalid(await create(token, { ...valid, name: 'x'.repeat(101) }), 'name');
  });

  test.each(['Nowhere/Atlantis', '+03:00', 'GMT -3', 'Sao Paulo'])('time_zone %j is refused as invalidTimeZone', async (zone) => {
    expectInvalid(await create(token, { ...valid, time_zone: zone }), 'time_zone', 'invalidTimeZone');
  });

  test('intervals: the day, and HH:MM times, each on its own path', async () => {
    const interval = (fields: Record<string, unknown>) => ({ ...valid, intervals: [{ day: 'monday', start: '08:00', end: '18:00' }, { day: 'monday', start: '08:00', end: '18:00', ...fields }] });
    expectInvalid(await create(token, interval({ day: 'someday' })), 'intervals.1.day');
    expectInvalid(await create(token, interval({ start: '24:00' })), 'intervals.1.start', 'invalidTime');
    expectInvalid(await create(token, interval({ start: '8:00' })), 'intervals.1.start', 'invalidTime');
    expectInvalid(await create(token, interval({ end: '18:60' })), 'intervals.1.end', 'invalidTime');
    expectInvalid(await create(token, interval({ end: '24:01' })), 'intervals.1.end', 'invalidTime');
    expectInvalid(await create(token, interval({ start: '09:00', end: '09:00' })), 'intervals.1.end', 'emptyInterval');
    expectInvalid(await create(token, interval({ extra: true })), 'intervals.1.extra');
    const tooMany = Array.from({ length: 101 }, () => ({ day: 'monday', start: '08:00', end: '09:00' }));
    expectInvalid(await create(token, { ...valid, intervals: tooMany }), 'intervals');
    // An end of 24:00 and an end before the start (across midnight) are fine.
    await created(token, { intervals: [{ day: 'sunday', start: '20:00', end: '24:00' }, { day: 'friday', start: '23:00', end: '01:00' }] });
  });

  test('exceptions: a name and real dates; an initial date after the final one answers initial_date_after_final_date in the language asked', async () => {
    expectInvalid(await create(token, { ...valid, exceptions: [{ name: '', initial_date: '2026-01-01', final_date: '2026-01-02' }] }), 'exceptions.0.name');
    expectInvalid(await create(token, { ...valid, exceptions: [{ name: 'x', initial_date: '2026-02-30', final_date: '2026-03-02' }] }), 'exceptions.0.initial_date');
    const reversed = { ...valid, exceptions: [{ name: 'Fine', initial_date: '2026-01-01', final_date: '2026-01-01' }, { name: 'Backwards', initial_date: '2026-03-02', final_date: '2026-03-01' }] };
    for (const [language, text] of [
      ['en', 'The initial date must not be after the final date.'],
      ['pt-BR', 'A data inicial não pode ser posterior à data final.'],
    ] as const) {
      const response = await create(token, reversed, { 'accept-language': language });
      expect(response.statusCode, response.body).toBe(400);
      expect(errorOf(response)).toMatchObject({ code: 'initial_date_after_final_date', message: text, details: [{ path: 'exceptions.1.final_date', message: 'initial_date_after_final_date' }] });
    }
    const range = await created(token, {});
    const patch = await server.call({ method: 'PATCH', url: `/date-ranges/${range.id}`, token, payload: { exceptions: reversed.exceptions } });
    expect(errorOf(patch).code).toBe('initial_date_after_final_date');
    expect((await server.call({ method: 'GET', url: `/date-ranges/${range.id}`, token })).json<DateRange>().exceptions).toEqual([]);
  });

  test('place: an uppercase country code; a city needs its state and a state its country, also after a patch', async () => {
    expectInvalid(await create(token, { ...valid, country: 'Brazil' }), 'country');
    expectInvalid(await create(token, { ...valid, country: 'br' }), 'country');
    expectInvalid(await create(token, { ...valid, country: 'BR', city: 'Campinas' }), 'state', 'required');
    expectInvalid(await create(token, { ...valid, state: 'SP' }), 'country', 'required');
    const range = await created(token, { country: 'BR' });
    expectInvalid(await server.call({ method: 'PATCH', url: `/date-ranges/${range.id}`, token, payload: { city: 'Campinas' } }), 'state', 'required');
    const withState = await created(token, { country: 'BR', state: 'SP' });
    expectInvalid(await server.call({ method: 'PATCH', url: `/date-ranges/${withState.id}`, token, payload: { country: '' } }), 'country', 'required');
    const moved = await server.call({ method: 'PATCH', url: `/date-ranges/${withState.id}`, token, payload: { city: 'Santos' } });
    expect(moved.json<DateRange>()).toMatchObject({ country: 'BR', state: 'SP', city: 'Santos' });
  });

  test('the error message follows Accept-Language', async () => {
    const en = await create(token, { time_zone: 'Nowhere/Atlantis' }, { 'accept-language': 'en' });
    const pt = await create(token, { time_zone: 'Nowhere/Atlantis' }, { 'accept-language': 'pt-BR' });
    expect(errorOf(en).message).toBe('Some fields are invalid.');
    expect(errorOf(pt).message).toBe('Alguns campos são inválidos.');
    expect(errorOf(pt).details?.map((detail) => detail.path).sort()).toEqual(['name', 'time_zone']);
  });
});

describe('date ranges: names are unique in a tenant', () => {
  test('409 name_already_exists on create and rename; another tenant may use the name', async () => {
    const { token } = await tenantWith();
    const first = await created(token, { name: 'Office hours' });
    const again = await create(token, { name: 'Office hours', time_zone: 'UTC' });
    expect(again.statusCode).toBe(409);
    expect(errorOf(again)).toMatchObject({ code: 'name_already_exists', details: [{ path: 'name', message: 'already exists' }] });
    const other = await created(token, { name: 'Night' });
    const rename = await server.call({ method: 'PATCH', url: `/date-ranges/${other.id}`, token, payload: { name: ' Office hours ' } });
    expect(rename.statusCode).toBe(409);
    expect(errorOf(rename).code).toBe('name_already_exists');
    expect((await server.call({ method: 'GET', url: `/date-ranges/${other.id}`, token })).json<DateRange>().name).toBe('Night');
    const { token: elsewhere } = await tenantWith();
    await created(elsewhere, { name: 'Office hours' });
    expect(first.name).toBe('Office hours');
  });
});

