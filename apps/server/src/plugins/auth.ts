import { type ErrorCode, type RoleAssignment, roleInWorkingTenant } from '@voxplan/contracts';
import { bearerProtocolPrefix } from '@voxplan/contracts/simulator';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { Actor, PlatformContext, Scope } from '../platform.ts';
import type { DialectName } from '../db/database.ts';
import { coalesce } from '../db/coalesce.ts';
import { AppError, badRequest, forbidden, unauthorized } from '../errors.ts';
import { AccessTokenError, type AccessTokenClaims, type SignInEnd } from '../lib/access-tokens.ts';
import { safeEqualHex, sha256 } from '../lib/keys.ts';
import { isoAfter, nowIso } from '../lib/time.ts';

declare module 'fastify' {
  interface FastifyRequest {
    actor?: Actor;
    /** When the caller's access token expires (ms since the epoch); undefined for an API key. */
    credentialsExpireAtMs?: number | undefined;
  }
}

const API_KEY_PREFIX = 'vxk_';
/** `Bearer`, one space, and a credential without spaces: what the general parse below reads the same way. */
const PLAIN_BEARER = /^Bearer [^\s]+$/;
const MAX_ROW_ID = 2 ** 31 - 1;
const SIGN_IN_TABLES = ['auth_sessions', 'users', 'user_roles'] as const;
/** What a write to may end the credentials of an open connection: a sign-in, its user, its roles, an API key. */
const CREDENTIAL_TABLES: readonly string[] = [...SIGN_IN_TABLES, 'api_keys'];
/**
 * How often open connections check their credentials anyway. On PostgreSQL every instance hears
 * every commit (and a lost bus connection counts as a write to everything), so this is only a
 * backstop; on SQLite the writes of another process on the same file are told to nobody, and
 * checking a sign-in nobody changed costs a kept answer (a look at the file's data_version).
 */
const RECHECK_MS: Record<DialectName, number> = { sqlite: 2_000, postgres: 15_000 };
/** setTimeout's longest delay; a token living longer is looked at again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

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

/** The caller, and when the credentials expire by themselves (an access token; an API key does not). */
interface Checked {
  actor: Actor;
  expiresAtMs?: number;
}

interface SignIn {
  actor: Actor;
  expiresAt: number;
  revoked: boolean;
}

/**
 * The read cache's key of a token's sign-in, made once for the claims a checked token keeps
 * (lib/access-tokens.ts answers the same object for the same token): the same string every call,
 * whose hash the cache's lookup computes once, not a new one to build and hash (issue 40).
 */
const signInKeys = new WeakMap<AccessTokenClaims, string>();
function signInKeyOf(claims: AccessTokenClaims): string {
  let key = signInKeys.get(claims);
  if (key === undefined) signInKeys.set(claims, (key = `auth\u0000${claims.sessionId}\u0000${claims.userId}`));
  return key;
}

/** The kept sign-in, checked against the clock on every call (the cached query leaves the time limits out). */
function holding(found: SignIn | undefined, claims: AccessTokenClaims): Checked {
  if (!found || found.revoked || found.expiresAt <= Date.now()) throw unauthorized('token_not_found');
  return { actor: found.actor, expiresAtMs: claims.expiresAtMs };
}

function claimsOf(ctx: PlatformContext, token: string): AccessTokenClaims {
  try {
    return ctx.tokens.verify(token);
  } catch (error) {
    throw unauthorized(error instanceof AccessTokenError && error.failure === 'expired_or_forged' ? 'invalid_token' : 'verifying_token_error');
  }
}

/**
 * Not an async function, nor is `authenticate`: every authenticated request runs them, and each
 * async layer is a promise and microtasks more (issue 40). A sign-in the read cache keeps is
 * answered at once, without a promise (SQLite; on PostgreSQL the cache answers after catching
 * up). A refusal thrown here reaches the caller as it is; `authenticate` turns it into a rejection.
 */
function actorFromClaims(ctx: PlatformContext, claims: AccessTokenClaims): Checked | Promise<Checked> {
  const { sessionId, userId } = claims;
  // Every authenticated call asks this, so the answer is cached until one of the tables changes;
  // the time limits are checked here, on every call, not in the cached query.
  const signIn = ctx.readCache.readMaybeNow(signInKeyOf(claims), SIGN_IN_TABLES, async (): Promise<SignIn | undefined> => {
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
  return signIn instanceof Promise ? signIn.then((found) => holding(found, claims)) : holding(signIn, claims);
}

async function actorFromApiKey(ctx: PlatformContext, key: string): Promise<Checked> {
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
  return { actor: actorFromRows(rows, { apiKeyId: found.id }) };
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
  // As a client writes it nearly always: read without the split below and its array (issue 40).
  if (PLAIN_BEARER.test(header)) {
    const value = header.slice(7);
    return { kind: value.startsWith(API_KEY_PREFIX) ? 'api_key' : 'jwt', value };
  }
  const [scheme = '', ...rest] = header.trim().split(/\s+/);
  if (scheme.toLowerCase() !== 'bearer') throw unauthorized('auth_not_bearer');
  if (rest.length !== 1) throw unauthorized('auth_header_malformed');
  const value = rest[0]!;
  return { kind: value.startsWith(API_KEY_PREFIX) ? 'api_key' : 'jwt', value };
}

/**
 * The bearer header a connection last presented, and the claims its token was found to hold. A
 * client sends the same header on every request of a kept-alive connection: the same header is
 * the same token, checked already, and its claims are taken without reading the header again or
 * looking the token up (a hash of its 200 characters, issue 40). Its expiry is still checked on
 * every request, and its sign-in too.
 */
const lastBearerOf = new WeakMap<object, { header: string; claims: AccessTokenClaims }>();

function checkCredentials(ctx: PlatformContext, request: FastifyRequest): Checked | Promise<Checked> {
  const { authorization } = request.headers;
  const socket = request.raw.socket as object | null;
  if (authorization && socket !== null && request.headers['x-api-key'] === undefined) {
    const last = lastBearerOf.get(socket);
    if (last !== undefined && last.header === authorization) {
      if (last.claims.expiresAtMs <= Date.now()) throw unauthorized('invalid_token');
      return actorFromClaims(ctx, last.claims);
    }
  }
  const credentials = credentialsOf(request);
  if (credentials.kind === 'api_key') return actorFromApiKey(ctx, credentials.value);
  const claims = claimsOf(ctx, credentials.value);
  if (authorization && socket !== null) lastBearerOf.set(socket, { header: authorization, claims });
  return actorFromClaims(ctx, claims);
}

interface Watched {
  request: FastifyRequest;
  end: (reason: SignInEnd) => void;
}

/**
 * Long-lived connections (the live feed, the simulator's socket) are authenticated once, when they
 * open; this keeps them honest afterwards. Each ends when its access token expires (the client
 * opens a new one with a fresh token), and as soon as a write to the sign-in tables leaves its
 * credentials refused or its roles changed: a sign-out, the user removed, a password changed, a
 * role taken away. On PostgreSQL every instance hears every commit over the bus, so a sign-out
 * through one instance ends the streams held by all (docs/security.md).
 */
function createSignInWatch(ctx: PlatformContext) {
  const watched = new Set<Watched>();
  let stopListening: (() => void) | undefined;
  let backstop: NodeJS.Timeout | undefined;

  /** undefined while the credentials hold as they did; a failure other than a refusal (the database) keeps the connection. */
  async function endOf(entry: Watched): Promise<SignInEnd | undefined> {
    const opened = entry.request.actor!;
    try {
      const { actor } = await checkCredentials(ctx, entry.request);
      return JSON.stringify(actor.roles) === JSON.stringify(opened.roles) ? undefined : 'sign_in_ended';
    } catch (error) {
      if (!(error instanceof AppError) || error.statusCode !== 401) return undefined;
      return error.code === 'invalid_token' ? 'token_expired' : 'sign_in_ended';
    }
  }

  const recheck = coalesce(async () => {
    await Promise.all(
      [...watched].map(async (entry) => {
        const reason = await endOf(entry);
        if (reason && watched.has(entry)) entry.end(reason);
      }),
    );
    return true;
  });
  // Later than the write's statement: on SQLite the check's read then queues behind its transaction.
  const soon = () => setImmediate(() => void recheck());

  return {
    /** Calls `end` once when the request's credentials no longer hold; answers the function that stops watching. */
    watch(request: FastifyRequest, expiresAtMs: number | undefined, end: (reason: SignInEnd) => void): () => void {
      let timer: NodeJS.Timeout | undefined;
      const stop = () => {
        clearTimeout(timer);
        if (!watched.delete(entry)) return;
        if (watched.size > 0) return;
        stopListening?.();
        stopListening = undefined;
        clearInterval(backstop);
      };
      const entry: Watched = {
        request,
        end: (reason) => {
          stop();
          end(reason);
        },
      };
      watched.add(entry);
      stopListening ??= ctx.readCache.watch(CREDENTIAL_TABLES, soon);
      if (watched.size === 1) backstop = setInterval(soon, RECHECK_MS[ctx.dialect]).unref();
      if (expiresAtMs !== undefined) {
        const arm = () => {
          const left = expiresAtMs - Date.now();
          if (left <= 0) entry.end('token_expired');
          else timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
        };
        arm();
      }
      return stop;
    },
  };
}

/** Adds `authenticate` (an onRequest hook) for the routes that need a signed-in caller, and `watchSignIn` for long-lived connections. */
export const authPlugin = fp(async (app: FastifyInstance, opts: { ctx: PlatformContext }) => {
  const { ctx } = opts;
  const signIns = createSignInWatch(ctx);
  app.decorateRequest('actor', undefined);
  // A property of the request, not a WeakMap keyed by it: an entry per request in a WeakMap was a
  // table the collector walked at every scavenge, for the few requests that stay open (issue 40).
  app.decorateRequest('credentialsExpireAtMs', undefined);
  const keep = (request: FastifyRequest, checked: Checked) => {
    request.actor = checked.actor;
    request.credentialsExpireAtMs = checked.expiresAtMs;
  };
  app.decorate('authenticate', (request: FastifyRequest): Promise<void> => {
    try {
      const checked = checkCredentials(ctx, request);
      if (!(checked instanceof Promise)) {
        keep(request, checked);
        return Promise.resolve();
      }
      return checked.then((held) => keep(request, held));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
  // A callback hook: a kept sign-in lets the request go on at once, without a promise (issue 40).
  app.decorate('authenticateHook', (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    let checked: Checked | Promise<Checked>;
    try {
      checked = checkCredentials(ctx, request);
    } catch (error) {
      done(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (!(checked instanceof Promise)) {
      keep(request, checked);
      done();
      return;
    }
    checked.then(
      (held) => {
        keep(request, held);
        done();
      },
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
    );
  });
  app.decorate('watchSignIn', (request: FastifyRequest, end: (reason: SignInEnd) => void) => signIns.watch(request, request.credentialsExpireAtMs, end));
});

declare module 'fastify' {
  interface FastifyInstance {
    authenticate: (request: FastifyRequest) => Promise<void>;
    /** `authenticate` as an onRequest hook of a scope whose routes all need a signed-in caller. */
    authenticateHook: onRequestHookHandler;
    /**
     * For a connection that stays open past its request (a stream, a socket): calls `end` once when
     * the credentials it was opened with expire or stop holding. Answers the function that stops
     * watching (call it when the connection closes by itself).
     */
    watchSignIn: (request: FastifyRequest, end: (reason: SignInEnd) => void) => () => void;
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
/**
 * A route option: guests read and never write, refused (403 readonly_only) before the body or the
 * params are validated, as the resources' writes are: a guest learns nothing from its inputs.
 */
export const writerGuard = { preValidation: async (request: FastifyRequest) => assertAllowed(scopeOf(request).actor, 'member', true) };

export function assertAllowed(actor: Actor, access: Access, isWrite: boolean): void {
  let code: ErrorCode | undefined;
  if (access === 'admin' && actor.role !== 'admin') code = 'no_role_permission';
  else if (isWrite && actor.role === 'guest') code = 'readonly_only';
  if (code) throw forbidden(code);
}
