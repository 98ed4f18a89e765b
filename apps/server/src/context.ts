import type { Metrics } from './modules/metrics/metrics.ts';
import type { RoleAssignment, RoleName } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Config } from './config.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseAvailability } from './db/availability.ts';
import type { DialectName } from './db/database.ts';
import type { InstanceBus } from './db/instance-bus.ts';
import type { ReadCache } from './db/read-cache.ts';
import type { Database } from './db/schema.ts';
import type { AccessTokens } from './lib/access-tokens.ts';
import type { Keys } from './lib/keys.ts';
import type { LicenseService } from './modules/license/license.service.ts';
import type { SessionRuntime } from './modules/sessions/sessions.service.ts';
import type { HostOutboundHttp } from './outbound/outbound-http.ts';
import type { ChannelRegistry } from './channels/registry.ts';
import type { OutboundCalls } from './modules/outbound-calls/outbound-calls.types.ts';

/** Everything a request handler needs from the process, passed explicitly instead of imported. */
export interface AppContext {
  config: Config;
  db: Kysely<Database>;
  dialect: DialectName;
  /** Repeated reads, until a table they read is written. */
  readCache: ReadCache;
  /** What the server instances on this database tell each other: writes (for the cache) and live session events. */
  bus: InstanceBus;
  keys: Keys;
  tokens: AccessTokens;
  /** Requests leaving the server for a tenant (plan blocks, the plan webhook, recordings, WhatsApp media), under the address policy of the general settings. */
  outbound: HostOutboundHttp;
  /** The providers of calls and chats: their routes, listeners, senders and limits (docs/sessions.md, "Channels"). */
  channels: ChannelRegistry;
  /** Sessions of calls and chats: start one, run its turns, sweep idle chats (docs/sessions.md). */
  sessions: SessionRuntime;
  /**
   * Calls the plan places (docs/outbound.md): place one, and what the channels tell of it. Not
   * `outbound`, which is the client of requests leaving the server.
   */
  outboundCalls: OutboundCalls;
  /** The licence in force and its limits (docs/licence.md). */
  license: LicenseService;
  /** What GET /metrics reports (docs/metrics.md); absent where no server runs (tools, some tests). */
  metrics?: Metrics;
  /** PostgreSQL's pool now: connections open, idle, and queries waiting for one. Absent on SQLite. */
  databasePool?: () => { total: number; idle: number; waiting: number };
  /** Whether the database answers, as the queries find it; absent where no server runs (tools, some tests). */
  databaseAvailability?: DatabaseAvailability;
  /** The process's logger, the app's too (main.ts); absent where no server runs. */
  logger?: FastifyBaseLogger;
}

/** Who is calling, once the credentials have been checked. */
export interface Actor {
  userId: number;
  username: string;
  roles: RoleAssignment[];
  role: RoleName;
  /** The sign-in this access token belongs to; absent for API keys. */
  sessionId?: string;
  apiKeyId?: number;
}

/**
 * The actor plus the tenant the request works in. null means every tenant for an admin, and no
 * tenant at all for anybody else (who then cannot touch tenant-owned data).
 */
export interface Scope {
  actor: Actor;
  tenantId: number | null;
  sourceIp: string;
}
