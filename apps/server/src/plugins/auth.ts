import { type ErrorCode, type RoleAssignment, roleInWorkingTenant } from '@voxplan/contracts';
import { bearerProtocolPrefix } from '@voxplan/contracts/simulator';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Actor, AppContext, Scope } from '../context.ts';
import { badRequest, forbidden, unauthorized } from '../errors.ts';
import { AccessTokenError, type AccessTokenClaims } from '../lib/access-tokens.ts';
import { safeEqualHex, sha256 } from '../lib/keys.ts';
import { isoAfter, nowIso } from '../lib/time.ts';

declare module 'fastify' {
  interface FastifyRequest {
    actor?: Actor;
  }
}

const API_KEY_PREFIX = 'vxk_';
const MAX_ROW_ID = 2 ** 31 - 1;
const SIGN_IN_TABLES = ['auth_sessions', 'users', 'user_roles'] as const;

export function formatApiKey(id: number, secret: string): string {
  return `${API_KEY_PREFIX}${id}_${secret}`;
}

interface ActorRow {
  user_id: number;
  username: string;
  role_id: number | null;
  role: RoleAssignment['role'] | null;
  tenant_id: number | null;
}

/** One row per role (or one with no role), from the query that checked the credentials. */
function actorFromRows(rows: ActorRow[], extra: Partial<Actor>): Actor {
  const [first] = rows;
  const roles: RoleAssignment[] = rows
    .filter((row) => row.role_id !== null && row.role !== null)
    .map((row) => ({ id: row.role_id!, role: row.role!, tenant_id: row.tenant_id, user_id: row.user_id }));
  return { userId: first!.user_id, username: first!.username, roles, role: roleInWorkingTenant(roles), ...extra };
}

async function actorFromAccessToken(ctx: AppContext, token: string): Promise<Actor> {
  let claims: AccessTokenClaims;
  try {
    claims = ctx.tokens.verify(token);
  } catch (error) {
    throw unauthorized(error instanceof AccessTokenError && error.failure === 'expired_or_forged' ? 'invalid_token' : 'verifying_token_error');
  }
  const { sessionId, userId } = claims;
  // Every authenticated call asks this, so the answer is cached until one of the tables changes;
  // the time limits are checked here, on every call, not in the cached query.
  const signIn = await ctx.readCache.read(`auth\u0000${sessionId}\u0000${userId}`, SIGN_IN_TABLES, async () => {
    // One query checks the sign-in and loads the roles.
    const rows = await ctx.db
      .selectFrom('auth_sessions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .leftJoin('user_roles as r', 'r.user_id', 'u.id')
      .select(['u.id as user_id', 'u.username', 'r.id as role_id', 'r.role', 'r.tenant_id', 's.expires_time', 's.revoked_time'])
      .where('s.id', '=', sessionId)
      .where('s.user_id', '=', userId)
      .orderBy('r.id')
      .execute();
    const [first] = rows;
    if (!first) return undefined;
    return { actor: actorFromRows(rows, { sessionId }), expiresAt: Date.parse(first.expires_time), revoked: first.revoked_time !== null };
  });
  if (!signIn || signIn.revoked || signIn.expiresAt <= Date.now()) throw unauthorized('token_not_found');
  return signIn.actor;
}

async function actorFromApiKey(ctx: AppContext, key: string): Promise<Actor> {
  const match = /^vxk_(\d{1,12})_([A-Za-z0-9_-]{20,100})$/.exec(key);
  if (!match) throw unauthorized('invalid_api_key');
  const id = Number(match[1]);
  // Ids are 32-bit integer columns: PostgreSQL refuses a larger parameter instead of finding nothing.
  if (id > MAX_ROW_ID) throw unauthorized('api_key_not_found');
  const rows = await ctx.db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .leftJoin('user_roles as r', 'r.user_id', 'u.id')
    .select(['k.id', 'k.secret_hash', 'k.last_used_time', 'u.id as user_id', 'u.username', 'r.id as role_id', 'r.role', 'r.tenant_id'])
    .where('k.id', '=', id)
    .orderBy('r.id')
    .execute();
  const found = rows[0];
  if (!found) throw unauthorized('api_key_not_found');
  if (!safeEqualHex(found.secret_hash, sha256(match[2]!))) throw unauthorized('invalid_secret');
  // "Last used" is shown to the minute; writing it on every call would make each call a write.
  const now = nowIso();
  if (!found.last_used_time || found.last_used_time < isoAfter(-60)) {
    await ctx.db.updateTable('api_keys').set({ last_used_time: now }).where('id', '=', found.id).execute();
  }
  return actorFromRows(rows, { apiKeyId: found.id });
}

/**
 * A browser cannot set headers on a WebSocket handshake, so it offers the token as a subprotocol
 * (`bearer.<token>`) beside the real one; the server never echoes it back (docs/simulator.md).
 */
function bearerFromWebSocketProtocols(request: FastifyRequest): string | undefined {
  const offered = request.headers['sec-websocket-protocol'];
  if (typeof offered !== 'string') return undefined;
  const token = offered
    .split(',')
    .map((protocol) => protocol.trim())
    .find((protocol) => protocol.startsWith(bearerProtocolPrefix));
  return token && `Bearer ${token.slice(bearerProtocolPrefix.length)}`;
}

function credentialsOf(request: FastifyRequest): { kind: 'jwt' | 'api_key'; value: string } {
  const apiKeyHeader = request.headers['x-api-key'];
  if (typeof apiKeyHeader === 'string' && apiKeyHeader !== '') return { kind: 'api_key', value: apiKeyHeader };
  const header = request.headers.authorization || bearerFromWebSocketProtocols(request);
  if (header === undefined || header === '') throw unauthorized('auth_header_not_found');
  const [scheme = '', ...rest] = header.trim().split(/\s+/);
  if (scheme.toLowerCase() !== 'bearer') throw unauthorized('auth_not_bearer');
  if (rest.length !== 1) throw unauthorized('auth_header_malformed');
  const value = rest[0]!;
  return { kind: value.startsWith(API_KEY_PREFIX) ? 'api_key' : 'jwt', value };
}

/** Adds `authenticate` (an onRequest hook) for the routes that need a signed-in caller. */
export const authPlugin = fp(async (app: FastifyInstance, opts: { ctx: AppContext }) => {
  const { ctx } = opts;
  app.decorateRequest('actor', undefined);
  app.decorate('authenticate', async (request: FastifyRequest) => {
    const credentials = credentialsOf(request);
    request.actor =
      credentials.kind === 'api_key'
        ? await actorFromApiKey(ctx, credentials.value)
        : await actorFromAccessToken(ctx, credentials.value);
  });
});

declare module 'fastify' {
  interface FastifyInstance {
    authenticate: (request: FastifyRequest) => Promise<void>;
  }
}

export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw unauthorized('auth_header_not_found');
  return request.actor;
}

const TENANT_HEADER = 'x-tenant-id';

/**
 * Admins choose the tenant with a header (0 or none: every tenant); everybody else is confined to
 * the tenant of their first role, whatever they send.
 */
export function scopeOf(request: FastifyRequest): Scope {
  const actor = actorOf(request);
  const sourceIp = request.ip;
  if (actor.role === 'admin') {
    const raw = request.headers[TENANT_HEADER];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (value === undefined || value === '' || value === '0') return { actor, tenantId: null, sourceIp };
    if (!/^\d{1,10}$/.test(value) || Number(value) > MAX_ROW_ID) {
      throw badRequest('invalid_input', [{ path: TENANT_HEADER, message: 'expected a tenant id' }]);
    }
    return { actor, tenantId: Number(value), sourceIp };
  }
  return { actor, tenantId: actor.roles[0]?.tenant_id ?? null, sourceIp };
}

/**
 * The tenant a read of tenant-owned data is confined to: the scope's, or undefined for an
 * administrator over every tenant. Anybody else without a tenant is refused.
 */
export function tenantFilterOf(scope: Scope): number | undefined {
  if (scope.tenantId !== null) return scope.tenantId;
  if (scope.actor.role === 'admin') return undefined;
  throw forbidden('forbidden_tenant');
}

export type Access = 'member' | 'admin';

/** The role rules: admin-only areas answer no_role_permission, guests never write. */
export function assertAllowed(actor: Actor, access: Access, isWrite: boolean): void {
  let code: ErrorCode | undefined;
  if (access === 'admin' && actor.role !== 'admin') code = 'no_role_permission';
  else if (isWrite && actor.role === 'guest') code = 'readonly_only';
  if (code) throw forbidden(code);
}
