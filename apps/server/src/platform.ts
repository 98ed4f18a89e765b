/**
 * What the process gives every floor of the server (docs/architecture.md): configuration, the
 * database and what keeps it (read cache, instance bus), keys, tokens and the client of requests
 * leaving the server; and who is calling. The app's context (context.ts) adds the modules'
 * services to it; the floors below the modules (resources/, plugins/) ask only for this.
 */
import type { RoleAssignment, RoleName } from '@voxplan/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from './config.ts';
import type { DatabaseAvailability } from './db/availability.ts';
import type { DialectName } from './db/database.ts';
import type { InstanceBus } from './db/instance-bus.ts';
import type { ReadCache } from './db/read-cache.ts';
import type { Database } from './db/schema.ts';
import type { AccessTokens } from './lib/access-tokens.ts';
import type { Keys } from './lib/keys.ts';
import type { HostOutboundHttp } from './outbound/outbound-http.ts';

/** The process's part of the app's context. */
export interface PlatformContext {
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
