import { type SystemSettingName, systemSettingValue } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { ReadCache } from '../db/read-cache.ts';
import type { Database } from '../db/schema.ts';
import type { AddressPolicy } from './address-policy.ts';
import { createOutboundHttp, type OutboundHttpOptions, type PooledOutboundHttp } from './outbound-http.ts';

/** The system settings that open address ranges to requests leaving the server. */
export const outboundSettings = {
  allowLoopback: 'outbound_allow_loopback',
  allowPrivate: 'outbound_allow_private',
} as const satisfies Record<keyof AddressPolicy, SystemSettingName>;

/** Reads the policy from the general settings; a missing setting, or one that is not "true", keeps its range closed. */
export async function readAddressPolicy(db: Kysely<Database>): Promise<AddressPolicy> {
  const rows = await db.selectFrom('configurations').select(['name', 'value']).where('name', 'in', Object.values(outboundSettings)).execute();
  const isOn = (name: SystemSettingName) => systemSettingValue(name, rows.find((row) => row.name === name)?.value) === true;
  return { allowLoopback: isOn(outboundSettings.allowLoopback), allowPrivate: isOn(outboundSettings.allowPrivate) };
}

/**
 * The OutboundHttp the server hands to the engine, the plan webhook, AI calls and recordings. It asks for the
 * settings on every request, so an administrator's change applies to the next one without a
 * restart; the read cache answers until the general settings are written. Each policy has its own
 * client and so its own kept connections: one opened while loopback was allowed never serves a
 * request made after it was closed again.
 */
export function createSettingsOutboundHttp(
  db: Kysely<Database>,
  readCache: ReadCache,
  options: Omit<OutboundHttpOptions, keyof AddressPolicy> = {},
): PooledOutboundHttp {
  const clients = new Map<string, PooledOutboundHttp>();
  const clientFor = (policy: AddressPolicy): PooledOutboundHttp => {
    const key = `${policy.allowLoopback}/${policy.allowPrivate}`;
    let client = clients.get(key);
    if (!client) clients.set(key, (client = createOutboundHttp({ ...options, ...policy })));
    return client;
  };
  const current = async () => clientFor(await readCache.read('outbound-address-policy', ['configurations'], () => readAddressPolicy(db)));
  return {
    async request(request) {
      return (await current()).request(request);
    },
    async requestBytes(request) {
      return (await current()).requestBytes(request);
    },
    close() {
      for (const client of clients.values()) client.close();
      clients.clear();
    },
  };
}
