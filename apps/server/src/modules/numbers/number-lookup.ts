import { callerMatchesPrefix, type Holiday, isE164, type NumberProvider } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database, TableName } from '../../db/schema.ts';
import { evaluateWithHolidays, presentDateRange, rangeHolidays, type ScheduledPlace } from '../date-ranges/date-ranges.service.ts';

/** A rule of a number, with what choosePlan needs to decide it without the database. */
export interface NumberRouteRule {
  plan_id: number;
  /** Empty: any caller. */
  caller_prefixes: string[];
  /** The rule's date range and the holidays of its place; null: at any time. */
  date_range: { id: number; range: ScheduledPlace; holidays: Holiday[] } | null;
}

/** What a channel needs to route a call or chat to a number: whose it is and which plan runs. */
export interface NumberRoute {
  id: number;
  tenant_id: number;
  number: string;
  provider: NumberProvider;
  voice_plan_id: number | null;
  chat_plan_id: number | null;
  /** In order: the first that matches wins. */
  rules: NumberRouteRule[];
}

/** The tables findNumber reads: a caller keeping its answers (db/read-cache.ts) drops them when one is written. */
export const numberRouteTables: readonly TableName[] = ['numbers', 'number_rules', 'date_ranges', 'holidays'];

/** The columns of a number that route its calls and chats. */
const selectRouteRows = (db: Kysely<Database>) => db.selectFrom('numbers').select(['id', 'tenant_id', 'number', 'provider', 'voice_plan_id', 'chat_plan_id']);

/**
 * The number (E.164, as a provider's webhook names the called number) with its rules, their date
 * ranges and those ranges' holidays, in a few queries; undefined when no tenant has it.
 */
export async function findNumber(db: Kysely<Database>, e164: string): Promise<NumberRoute | undefined> {
  if (!isE164(e164)) return undefined;
  const row = await selectRouteRows(db)
    .where('number', '=', e164)
    // A web chat's name may read as a phone number of another tenant's: calls never reach it.
    .where('provider', '<>', 'webchat')
    .executeTakeFirst();
  if (!row) return undefined;
  return routeOf(db, row);
}

/** A web chat number's route, found by its id (its name is its tenant's alone, so no lookup by it). */
export async function findWebchatNumber(db: Kysely<Database>, id: number): Promise<NumberRoute | undefined> {
  const row = await selectRouteRows(db)
    .where('id', '=', id)
    .where('provider', '=', 'webchat')
    .executeTakeFirst();
  return row && routeOf(db, row);
}

/** The number's rules, their date ranges and those ranges' holidays. */
async function routeOf(db: Kysely<Database>, row: Omit<NumberRoute, 'rules'>): Promise<NumberRoute> {
  const ruleRows = await db
    .selectFrom('number_rules as r')
    .leftJoin('date_ranges as d', 'd.id', 'r.date_range_id')
    .select(['r.plan_id', 'r.caller_prefixes', 'r.date_range_id'])
    .select(['d.id', 'd.tenant_id', 'd.created_time', 'd.updated_time', 'd.name', 'd.time_zone', 'd.intervals', 'd.exceptions', 'd.country', 'd.state', 'd.city'])
    .where('r.number_id', '=', row.id)
    .orderBy('r.position')
    .execute();
  // A range named by several rules is read, with its holidays, once.
  const ranges = new Map<number, NonNullable<NumberRouteRule['date_range']>>();
  const rules: NumberRouteRule[] = [];
  for (const rule of ruleRows) {
    let dateRange: NumberRouteRule['date_range'] = null;
    if (rule.date_range_id !== null && rule.id !== null) {
      dateRange = ranges.get(rule.date_range_id) ?? null;
      if (!dateRange) {
        const range = presentDateRange(rule);
        dateRange = { id: range.id, range, holidays: await rangeHolidays(db, range) };
        ranges.set(range.id, dateRange);
      }
    }
    rules.push({ plan_id: rule.plan_id, caller_prefixes: JSON.parse(rule.caller_prefixes) as string[], date_range: dateRange });
  }
  return { ...row, rules };
}

/**
 * findNumber through the read cache: a webhook asks for its number on every call, and the number,
 * its rules and their schedules change rarely; the answer is dropped when one of their tables is
 * written (on any instance).
 */
export function findNumberCached(ctx: Pick<AppContext, 'db' | 'readCache'>, e164: string): Promise<NumberRoute | undefined> {
  if (!isE164(e164)) return Promise.resolve(undefined);
  return ctx.readCache.read(`number-route\u0000${e164}`, numberRouteTables, () => findNumber(ctx.db, e164));
}

/** Whether a rule applies to a caller at an instant: in hours of its date range (as the date_range block decides) and from one of its prefixes. */
export function ruleMatches(rule: NumberRouteRule, at: Date, caller: string): boolean {
  if (rule.caller_prefixes.length > 0 && !rule.caller_prefixes.some((prefix) => callerMatchesPrefix(caller, prefix))) return false;
  if (rule.date_range === null) return true;
  return evaluateWithHolidays(rule.date_range.range, rule.date_range.holidays, at).status === 'in_hours';
}

/**
 * The plan a call or chat to the number runs: the first rule that matches picks its plan, else the
 * number's own plan for the channel; null when the number has none for it.
 */
export function choosePlan(route: NumberRoute, channel: 'voice' | 'chat', at: Date, caller: string): number | null {
  const rule = route.rules.find((candidate) => ruleMatches(candidate, at, caller));
  if (rule) return rule.plan_id;
  return channel === 'voice' ? route.voice_plan_id : route.chat_plan_id;
}
