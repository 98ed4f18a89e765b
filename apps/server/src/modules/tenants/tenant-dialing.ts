import { planLanguageOf, serverDefaultLanguage } from '@voxplan/contracts/voices';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

/** Where a tenant dials from: the country that reads its national numbers, the zone of its schedules. */
export interface DialingDefaults {
  /** ISO 3166-1 alpha-2, or '' when neither the tenant nor the server's language names a region. */
  country: string;
  /** IANA, e.g. America/Sao_Paulo. */
  time_zone: string;
}

/** The language the server was started with (`DEFAULT_LANGUAGE`, as config.ts reads it). */
function serverLanguage(): string {
  const raw = process.env.DEFAULT_LANGUAGE;
  return (raw && planLanguageOf(raw)?.tag) || serverDefaultLanguage;
}

/**
 * What a tenant that names neither gets: the region of the server's language (`pt-BR` is BR) and
 * the server's own time zone.
 */
export function serverDialingDefaults(language: string = serverLanguage()): DialingDefaults {
  const region = language.split('-')[1] ?? '';
  return {
    country: /^[A-Z]{2}$/.test(region) ? region : '',
    time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  };
}

/** A tenant row's stored values ('' for the server's) made effective. */
export function effectiveDialing(stored: { country: string; time_zone: string }, server: DialingDefaults = serverDialingDefaults()): DialingDefaults {
  return { country: stored.country || server.country, time_zone: stored.time_zone || server.time_zone };
}

/**
 * The tenant's country and time zone, the server's where it names none: the default country of
 * `toE164` for its numbers, and the zone of its campaigns' schedules. An unknown tenant answers the server's.
 */
export async function tenantDialingDefaults(db: Kysely<Database>, tenantId: number, server?: DialingDefaults): Promise<DialingDefaults> {
  const row = await db.selectFrom('tenants').select(['country', 'time_zone']).where('id', '=', tenantId).executeTakeFirst();
  return effectiveDialing(row ?? { country: '', time_zone: '' }, server);
}
