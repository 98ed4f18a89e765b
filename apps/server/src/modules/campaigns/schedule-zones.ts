/**
 * When a campaign may call (docs/campaigns.md, "Schedule"): in hours of its date range, holidays
 * included, on the wall clock of each contact's own time zone, else the tenant's.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { presentDateRange, rangeHolidays, evaluateWithHolidays } from '../date-ranges/date-ranges.service.ts';
import { tenantDialingDefaults } from '../tenants/tenant-dialing.ts';

export interface OpenZones {
  /** Contacts' own zones (of those waiting) that are in hours now. */
  zones: string[];
  /** Whether contacts without a zone may be called now (the tenant's zone is in hours). */
  tenantZoneOpen: boolean;
}

/** Zones are read again this often: a list's zones change only when contacts are uploaded. */
const ZONES_FRESH_MS = 30_000;
/** Per database: campaign ids are a database's own (tests run several servers in one process). */
const zonesRead = new WeakMap<Kysely<Database>, Map<number, { atMs: number; zones: string[] }>>();

async function waitingZones(db: Kysely<Database>, campaignId: number, nowMs: number): Promise<string[]> {
  let read = zonesRead.get(db);
  if (!read) zonesRead.set(db, (read = new Map()));
  const known = read.get(campaignId);
  if (known && nowMs - known.atMs < ZONES_FRESH_MS && nowMs >= known.atMs) return known.zones;
  const rows = await db
    .selectFrom('campaign_contacts')
    .select('time_zone')
    .distinct()
    .where('campaign_id', '=', campaignId)
    .where('state', '=', 'pending')
    .where('time_zone', 'is not', null)
    .execute();
  const zones = rows.map((row) => row.time_zone!);
  read.set(campaignId, { atMs: nowMs, zones });
  return zones;
}

/** The zones of the campaign's waiting contacts that are in hours at `nowMs`. A range that is gone closes every zone. */
export async function openZones(db: Kysely<Database>, tenantId: number, dateRangeId: number, campaignId: number, nowMs: number): Promise<OpenZones> {
  const row = await db.selectFrom('date_ranges').selectAll().where('id', '=', dateRangeId).where('tenant_id', '=', tenantId).executeTakeFirst();
  if (!row) return { zones: [], tenantZoneOpen: false };
  const range = presentDateRange(row);
  const holidays = await rangeHolidays(db, range);
  const instant = new Date(nowMs);
  const inHours = (zone: string) => evaluateWithHolidays({ ...range, time_zone: zone }, holidays, instant).status === 'in_hours';
  const zones = (await waitingZones(db, campaignId, nowMs)).filter(inHours);
  const { time_zone: tenantZone } = await tenantDialingDefaults(db, tenantId);
  return { zones, tenantZoneOpen: inHours(tenantZone) };
}
