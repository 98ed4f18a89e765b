import { presetIntervals } from '@voxplan/contracts';
import { beforeAll, describe, expect, test } from 'vitest';
import { createSchedules } from '../src/modules/date-ranges/schedules.ts';
import { errorOf, expectInvalid } from './harness.ts';
import { admin, created, server, statusOf, tenantWith, useDateRangesServer } from './date-ranges-fixture.ts';

/** A date range's status at an instant, holidays by level and place, the preview, and the engine's port. Records and validation: date-ranges.test.ts. */
useDateRangesServer();

describe('GET /date-ranges/{id}/status', () => {
  let token: string;
  let guest: string;
  beforeAll(async () => {
    ({ token, guest } = await tenantWith());
  });

  test('answers the status and the local time on the range clock; guests may ask', async () => {
    const range = await created(token, { time_zone: 'America/New_York', intervals: [{ day: 'sunday', start: '01:00', end: '04:00' }] });
    expect(await statusOf(token, range.id, '2026-03-08T06:59:00Z')).toEqual({
      status: 'in_hours',
      at: '2026-03-08T06:59:00.000Z',
      local_time: '2026-03-08T01:59:00-05:00',
      time_zone: 'America/New_York',
      day: 'sunday',
      holiday: null,
      exception: null,
    });
    expect(await statusOf(guest, range.id, '2026-03-08T03:00:00-04:00')).toMatchObject({ status: 'in_hours', local_time: '2026-03-08T03:00:00-04:00' });
    expect(await statusOf(token, range.id, '2026-03-08T08:00:00Z')).toMatchObject({ status: 'out_of_hours', local_time: '2026-03-08T04:00:00-04:00' });
  });

  test('daylight-saving days in the three zones', async () => {
    const saoPaulo = await created(token, { time_zone: 'America/Sao_Paulo', intervals: [{ day: 'saturday', start: '23:00', end: '24:00' }] });
    // 2019-02-16 23:30 happened twice in Sao Paulo.
    expect(await statusOf(token, saoPaulo.id, '2019-02-17T01:30:00Z')).toMatchObject({ status: 'in_hours', local_time: '2019-02-16T23:30:00-02:00' });
    expect(await statusOf(token, saoPaulo.id, '2019-02-17T02:30:00Z')).toMatchObject({ status: 'in_hours', local_time: '2019-02-16T23:30:00-03:00' });
    const lisbon = await created(token, { time_zone: 'Europe/Lisbon', intervals: [{ day: 'sunday', start: '01:00', end: '02:00' }] });
    expect(await statusOf(token, lisbon.id, '2026-03-29T00:59:00Z')).toMatchObject({ status: 'out_of_hours', local_time: '2026-03-29T00:59:00+00:00' });
    expect(await statusOf(token, lisbon.id, '2026-03-29T01:00:00Z')).toMatchObject({ status: 'out_of_hours', local_time: '2026-03-29T02:00:00+01:00' });
    expect(await statusOf(token, lisbon.id, '2026-10-25T01:30:00Z')).toMatchObject({ status: 'in_hours', local_time: '2026-10-25T01:30:00+00:00' });
    const newYork = await created(token, { time_zone: 'America/New_York', intervals: [{ day: 'sunday', start: '02:00', end: '03:00' }] });
    expect(await statusOf(token, newYork.id, '2026-03-08T07:00:00Z')).toMatchObject({ status: 'out_of_hours', local_time: '2026-03-08T03:00:00-04:00' });
  });

  test('an exception closes its dates and is named', async () => {
    const range = await created(token, { intervals: presetIntervals('always'), exceptions: [{ name: 'Inventory', initial_date: '2026-07-01', final_date: '2026-07-02' }] });
    expect(await statusOf(token, range.id, '2026-07-02T12:00:00Z')).toMatchObject({ status: 'out_of_hours', exception: { name: 'Inventory' } });
    expect(await statusOf(token, range.id, '2026-07-03T02:59:00Z')).toMatchObject({ status: 'out_of_hours' }); // 2nd, 23:59 -03
    expect(await statusOf(token, range.id, '2026-07-03T03:00:00Z')).toMatchObject({ status: 'in_hours', exception: null });
  });

  test('at defaults to now', async () => {
    const range = await created(token, { intervals: presetIntervals('always') });
    const answer = await statusOf(token, range.id);
    expect(answer.status).toBe('in_hours');
    expect(Number.isNaN(Date.parse(answer.at))).toBe(false);
  });

  test('an instant without an offset, or not an instant, is refused; an unknown id is 404', async () => {
    const range = await created(token, {});
    for (const at of ['2026-03-08T07:00:00', 'tomorrow', '2026-02-30T10:00:00Z']) {
      const response = await server.call({ method: 'GET', url: `/date-ranges/${range.id}/status?at=${encodeURIComponent(at)}`, token });
      expectInvalid(response, 'querystring.at');
    }
    const response = await server.call({ method: 'GET', url: `/date-ranges/${range.id}/status?when=now`, token });
    expectInvalid(response, 'querystring.when');
    expect((await server.call({ method: 'GET', url: '/date-ranges/2147483647/status', token })).statusCode).toBe(404);
  });

  test("another tenant's range is not found, even with its tenant header", async () => {
    const { token: other, tenantId } = await tenantWith();
    const theirs = await created(other, { intervals: presetIntervals('always') });
    for (const call of [
      { method: 'GET' as const, url: `/date-ranges/${theirs.id}/status`, token },
      { method: 'GET' as const, url: `/date-ranges/${theirs.id}/status`, token, tenant: tenantId },
      { method: 'GET' as const, url: `/date-ranges/${theirs.id}/status`, token: guest, tenant: tenantId },
    ]) {
      const response = await server.call(call);
      expect(response.statusCode).toBe(404);
      expect(errorOf(response).code).toBe('not_found');
    }
    // The administrator reads every tenant's, or one tenant's with the header.
    expect((await server.call({ method: 'GET', url: `/date-ranges/${theirs.id}/status`, token: admin })).statusCode).toBe(200);
    expect((await server.call({ method: 'GET', url: `/date-ranges/${theirs.id}/status`, token: admin, tenant: tenantId })).statusCode).toBe(200);
  });
});

describe('holidays by level and place', () => {
  let token: string;
  const holiday = async (payload: Record<string, unknown>) => {
    const response = await server.call({ method: 'POST', url: '/holidays', token: admin, payload });
    expect(response.statusCode, response.body).toBe(201);
  };
  beforeAll(async () => {
    ({ token } = await tenantWith());
    await holiday({ name: 'National day', date: '2027-04-21', level: 'national', country: 'BR' });
    await holiday({ name: 'Sao Paulo state day', date: '2027-07-09', level: 'state', country: 'BR', state: 'SP' });
    await holiday({ name: 'Rio state day', date: '2027-04-23', level: 'state', country: 'BR', state: 'RJ' });
    await holiday({ name: 'Campinas day', date: '2027-12-08', level: 'city', country: 'BR', state: 'SP', city: 'Campinas' });
    await holiday({ name: 'Every 25 January', date: '2000-01-25', recurring: true, level: 'city', country: 'BR', state: 'SP', city: 'São Paulo' });
    await holiday({ name: 'Portugal day', date: '2027-06-10', level: 'national', country: 'PT' });
  });

  const places = {
    campinas: { country: 'BR', state: 'SP', city: 'Campinas' },
    saoPaulo: { country: 'BR', state: 'SP', city: 'São Paulo' },
    rio: { country: 'BR', state: 'RJ', city: 'Rio de Janeiro' },
    brazil: { country: 'BR' },
    nowhere: {},
    lisbon: { country: 'PT' },
  } as const;
  // Noon in Sao Paulo on each date.
  const cases: [string, keyof typeof places, 'holiday' | 'in_hours', string?][] = [
    ['2027-04-21', 'campinas', 'holiday', 'National day'],
    ['2027-04-21', 'brazil', 'holiday', 'National day'],
    ['2027-04-21', 'nowhere', 'in_hours'],
    ['2027-04-21', 'lisbon', 'in_hours'],
    ['2027-07-09', 'campinas', 'holiday', 'Sao Paulo state day'],
    ['2027-07-09', 'rio', 'in_hours'],
    ['2027-07-09', 'brazil', 'in_hours'],
    ['2027-04-23', 'rio', 'holiday', 'Rio state day'],
    ['2027-04-23', 'saoPaulo', 'in_hours'],
    ['2027-12-08', 'campinas', 'holiday', 'Campinas day'],
    ['2027-12-08', 'saoPaulo', 'in_hours'],
    ['2027-01-25', 'saoPaulo', 'holiday', 'Every 25 January'],
    ['2031-01-25', 'saoPaulo', 'holiday', 'Every 25 January'],
    ['2027-01-25', 'campinas', 'in_hours'],
    ['2027-06-10', 'lisbon', 'holiday', 'Portugal day'],
  ];

  test.each(cases)('%s in %s: %s %s', async (date, place, status, name) => {
    const range = await created(token, { intervals: presetIntervals('always'), ...places[place] });
    const answer = await statusOf(token, range.id, `${date}T15:00:00Z`);
    expect(answer.status).toBe(status);
    if (name) expect(answer.holiday).toMatchObject({ name });
    else expect(answer.holiday).toBeNull();
  });

  test('the holiday is looked up by the local date: the evening before in UTC is the holiday already', async () => {
    const range = await created(token, { time_zone: 'America/Sao_Paulo', intervals: presetIntervals('always'), country: 'BR' });
    expect(await statusOf(token, range.id, '2027-04-21T02:59:00Z')).toMatchObject({ status: 'in_hours' }); // 20th 23:59 -03
    expect(await statusOf(token, range.id, '2027-04-21T03:00:00Z')).toMatchObject({ status: 'holiday' }); // 21st 00:00 -03
    const tokyo = await created(token, { time_zone: 'Asia/Tokyo', intervals: presetIntervals('always'), country: 'BR' });
    expect(await statusOf(token, tokyo.id, '2027-04-20T15:00:00Z')).toMatchObject({ status: 'holiday', local_time: '2027-04-21T00:00:00+09:00' });
  });

  test('a holiday wins over out of hours and over exceptions', async () => {
    const closed = await created(token, { intervals: [], exceptions: [{ name: 'Shut', initial_date: '2027-04-01', final_date: '2027-04-30' }], country: 'BR' });
    expect(await statusOf(token, closed.id, '2027-04-21T15:00:00Z')).toMatchObject({ status: 'holiday', exception: { name: 'Shut' } });
    expect(await statusOf(token, closed.id, '2027-04-22T15:00:00Z')).toMatchObject({ status: 'out_of_hours', holiday: null });
  });
});

describe('POST /date-ranges/preview', () => {
  let token: string;
  let guest: string;
  beforeAll(async () => {
    ({ token, guest } = await tenantWith());
    await server.call({ method: 'POST', url: '/holidays', token: admin, payload: { name: 'Preview holiday', date: '2028-05-01', level: 'national', country: 'AR' } });
  });
  const preview = (payload: Record<string, unknown>, as = token, headers: Record<string, string> = {}) =>
    server.call({ method: 'POST', url: '/date-ranges/preview', token: as, payload, headers });

  test('evaluates an unsaved range, holidays of its place included, and stores nothing', async () => {
    const before = (await server.call({ method: 'GET', url: '/date-ranges/count', token })).json<{ count: number }>().count;
    const range = { time_zone: 'America/Argentina/Buenos_Aires', intervals: presetIntervals('weekdays'), country: 'AR' };
    const open = await preview({ ...range, at: '2028-05-02T12:00:00Z' });
    expect(open.statusCode, open.body).toBe(200);
    expect(open.json()).toMatchObject({ status: 'in_hours', local_time: '2028-05-02T09:00:00-03:00', day: 'tuesday', time_zone: 'America/Argentina/Buenos_Aires' });
    expect((await preview({ ...range, at: '2028-05-01T12:00:00Z' }, guest)).json()).toMatchObject({ status: 'holiday', holiday: { name: 'Preview holiday', level: 'national' } });
    expect((await preview({ ...range, at: '2028-05-02T23:00:00Z' })).json()).toMatchObject({ status: 'out_of_hours' });
    expect((await server.call({ method: 'GET', url: '/date-ranges/count', token })).json<{ count: number }>().count).toBe(before);
  });

  test('validates as the form does, with the same paths and codes', async () => {
    expectInvalid(await preview({ time_zone: 'Mars/Olympus' }), 'time_zone', 'invalidTimeZone');
    expectInvalid(await preview({ time_zone: 'UTC', intervals: [{ day: 'monday', start: '25:00', end: '10:00' }] }), 'intervals.0.start', 'invalidTime');
    expectInvalid(await preview({ time_zone: 'UTC', at: 'now' }), 'at');
    const reversed = await preview({ time_zone: 'UTC', exceptions: [{ name: 'x', initial_date: '2028-01-02', final_date: '2028-01-01' }] }, token, { 'accept-language': 'pt-BR' });
    expect(errorOf(reversed)).toMatchObject({ code: 'initial_date_after_final_date', message: 'A data inicial não pode ser posterior à data final.', details: [{ path: 'exceptions.0.final_date' }] });
    // The name is not needed to preview, nor accepted: the preview is not a record.
    expectInvalid(await preview({ time_zone: 'UTC', name: 'x' }), 'name');
  });
});

describe('createSchedules (the engine port)', () => {
  test("answers the tenant's range status at an instant, and undefined for a range it does not have", async () => {
    const { token, tenantId } = await tenantWith();
    const { tenantId: otherTenant } = await tenantWith();
    await server.call({ method: 'POST', url: '/holidays', token: admin, payload: { name: 'Port holiday', date: '2029-03-14', level: 'national', country: 'CL' } });
    const range = await created(token, { time_zone: 'America/New_York', intervals: presetIntervals('weekdays'), country: 'CL' });
    const schedules = createSchedules(server.ctx);
    expect(await schedules.statusAt(tenantId, range.id, new Date('2029-03-13T13:00:00Z'))).toBe('in_hours'); // Tuesday 09:00 EDT
    expect(await schedules.statusAt(tenantId, range.id, new Date('2029-03-13T11:00:00Z'))).toBe('out_of_hours'); // 07:00 EDT
    expect(await schedules.statusAt(tenantId, range.id, new Date('2029-03-14T13:00:00Z'))).toBe('holiday');
    expect(await schedules.statusAt(otherTenant, range.id, new Date('2029-03-13T13:00:00Z'))).toBeUndefined();
    expect(await schedules.statusAt(tenantId, range.id + 1000, new Date())).toBeUndefined();
    expect(await schedules.statusAt(tenantId, 2 ** 40, new Date())).toBeUndefined();
    // A change through the API is seen at once.
    await server.call({ method: 'PATCH', url: `/date-ranges/${range.id}`, token, payload: { intervals: presetIntervals('always') } });
    expect(await schedules.statusAt(tenantId, range.id, new Date('2029-03-13T11:00:00Z'))).toBe('in_hours');
  });
});
