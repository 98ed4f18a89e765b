import type { Holiday } from '@voxplan/contracts';
import { describe, expect, test } from 'vitest';
import { choosePlan, type NumberRoute, type NumberRouteRule } from './number-lookup.ts';

// Monday to Friday, 08:00-18:00 in São Paulo (UTC-3 all year).
const businessHours = {
  time_zone: 'America/Sao_Paulo',
  intervals: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'].map((day) => ({ day: day as 'monday', start: '08:00', end: '18:00' })),
  exceptions: [{ name: 'Inventory', initial_date: '2026-07-06', final_date: '2026-07-07' }],
  country: 'BR',
  state: 'SP',
  city: '',
};
const tiradentes: Holiday = {
  id: 1,
  created_time: '2026-01-01T00:00:00.000Z',
  updated_time: '2026-01-01T00:00:00.000Z',
  name: 'Tiradentes',
  date: '2020-04-21',
  recurring: true,
  level: 'national',
  country: 'BR',
  state: '',
  city: '',
};

const inHours = (plan_id: number, caller_prefixes: string[] = []): NumberRouteRule => ({
  plan_id,
  caller_prefixes,
  date_range: { id: 7, range: businessHours, holidays: [tiradentes] },
});
const fromCallers = (plan_id: number, caller_prefixes: string[]): NumberRouteRule => ({ plan_id, caller_prefixes, date_range: null });

const route = (rules: NumberRouteRule[], plans: { voice?: number | null; chat?: number | null } = { voice: 100, chat: 200 }): NumberRoute => ({
  id: 1,
  tenant_id: 1,
  number: '+551140000000',
  provider: 'twilio',
  voice_plan_id: plans.voice ?? null,
  chat_plan_id: plans.chat ?? null,
  rules,
});

// Wednesday 2026-07-01: 10:00 and 20:00 in São Paulo.
const wednesdayMorning = new Date('2026-07-01T13:00:00Z');
const wednesdayNight = new Date('2026-07-01T23:00:00Z');
const caller = '+5511999990000';

describe('choosePlan', () => {
  test('without rules, the number runs its own plan for the channel, or none', () => {
    expect(choosePlan(route([]), 'voice', wednesdayMorning, caller)).toBe(100);
    expect(choosePlan(route([]), 'chat', wednesdayMorning, caller)).toBe(200);
    expect(choosePlan(route([], { voice: 100 }), 'chat', wednesdayMorning, caller)).toBeNull();
  });

  test('a date-range rule matches in hours only, on the range’s wall clock', () => {
    const number = route([inHours(1)]);
    expect(choosePlan(number, 'voice', wednesdayMorning, caller)).toBe(1);
    expect(choosePlan(number, 'voice', wednesdayNight, caller)).toBe(100);
    // 07:59 there is still closed; 08:00 opens.
    expect(choosePlan(number, 'chat', new Date('2026-07-01T10:59:00Z'), caller)).toBe(200);
    expect(choosePlan(number, 'chat', new Date('2026-07-01T11:00:00Z'), caller)).toBe(1);
  });

  test('a holiday of the range’s place and a closed period make the range out of hours, as the date_range block decides', () => {
    const number = route([inHours(1)]);
    // Tuesday 2026-04-21 (recurring holiday) and Monday 2026-07-06 (exception), both at 10:00.
    expect(choosePlan(number, 'voice', new Date('2026-04-21T13:00:00Z'), caller)).toBe(100);
    expect(choosePlan(number, 'voice', new Date('2026-07-06T13:00:00Z'), caller)).toBe(100);
    expect(choosePlan(number, 'voice', new Date('2026-04-22T13:00:00Z'), caller)).toBe(1);
  });

  test('caller prefixes match on digits, with or without the +', () => {
    const number = route([fromCallers(1, ['+5521']), fromCallers(2, ['5511', '5512'])]);
    expect(choosePlan(number, 'voice', wednesdayMorning, '+5521988887777')).toBe(1);
    expect(choosePlan(number, 'voice', wednesdayMorning, '5511988887777')).toBe(2);
    expect(choosePlan(number, 'voice', wednesdayMorning, '+5512988887777')).toBe(2);
    expect(choosePlan(number, 'voice', wednesdayMorning, '+5531988887777')).toBe(100);
  });

  test('a rule with a date range and prefixes needs both', () => {
    const number = route([inHours(1, ['+5511'])]);
    expect(choosePlan(number, 'voice', wednesdayMorning, '+5511988887777')).toBe(1);
    expect(choosePlan(number, 'voice', wednesdayNight, '+5511988887777')).toBe(100);
    expect(choosePlan(number, 'voice', wednesdayMorning, '+5521988887777')).toBe(100);
  });

  test('rules are tried in order: the first that matches wins', () => {
    const vipFirst = route([fromCallers(1, ['+5511']), inHours(2)]);
    const hoursFirst = route([inHours(2), fromCallers(1, ['+5511'])]);
    expect(choosePlan(vipFirst, 'voice', wednesdayMorning, caller)).toBe(1);
    expect(choosePlan(hoursFirst, 'voice', wednesdayMorning, caller)).toBe(2);
    // Out of hours the second rule of hoursFirst still catches the caller.
    expect(choosePlan(hoursFirst, 'voice', wednesdayNight, caller)).toBe(1);
  });
});
