/**
 * The dashboard's live view (issue 17): the sessions running now, the live feed of their events
 * from every instance as Server-Sent Events, and the system status. docs/api.md, "Statistics".
 */
import {
  type ActiveSession,
  LIVE_SESSIONS_LIMIT,
  type LiveEventKind,
  type LiveStatsEvent,
  type StatsLive,
  statsLiveEventsQuerySchema,
  statsLiveSchema,
  type StatsSystem,
  statsSystemSchema,
} from '@voxplan/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { type RawBuilder, sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { DialectName } from '../../db/database.ts';
import { eventStreams, sendEventStream, sseMessage } from '../../lib/event-stream.ts';
import { scopeOf, tenantFilterOf } from '../../plugins/auth.ts';
import { REFUSALS_WINDOW_S } from '../license/license.service.ts';
import { runningSessions } from '../sessions/sessions.repository.ts';
import { type LiveSessionEvent, subscribeLiveSessions } from '../sessions/live-events.ts';
import { timeTrivialQuery } from '../system/health.routes.ts';
import { subscribeCampaignProgress } from '../campaigns/campaigns.service.ts';
import { subscribeAutoRollbacks } from '../rollouts/auto-rollback.ts';
import type { HostReading } from '../system/system-info.routes.ts';
import serverPackage from '../../../package.json' with { type: 'json' };

/** The window `new_per_second` is measured over. */
export const NEW_SESSIONS_WINDOW_S = 10;
/**
 * A comment line this often keeps proxies from closing an idle stream (the contract's 15 s); read
 * when a stream opens, so that a test can shorten it.
 */
export const liveFeedTiming = { pingMs: 15_000 };

// Imported, not read from a path beside this file: the production build bundles it (apps/server/scripts/build.ts).
const serverVersion = serverPackage.version;

/** The block a stored session is at: the last of its path, read from its JSON state by the database. */
function lastBlockColumns(dialect: DialectName): { node_id: RawBuilder<string | null>; block_type: RawBuilder<string | null> } {
  if (dialect === 'postgres') {
    return { node_id: sql`(state::jsonb -> 'path' -> -1 ->> 'node_id')`, block_type: sql`(state::jsonb -> 'path' -> -1 ->> 'type')` };
  }
  return { node_id: sql`json_extract(state, '$.path[#-1].node_id')`, block_type: sql`json_extract(state, '$.path[#-1].type')` };
}

/** Running sessions, test sessions left out: the tenant's, or every tenant's when `tenantId` is undefined. */
function runningSessionsOf(ctx: AppContext, tenantId: number | undefined) {
  const query = runningSessions(ctx.db);
  return tenantId === undefined ? query : query.where('tenant_id', '=', tenantId);
}

/** The `LIVE_SESSIONS_LIMIT` most recently started running sessions, oldest first. */
async function activeSessions(ctx: AppContext, tenantId: number | undefined): Promise<ActiveSession[]> {
  const block = lastBlockColumns(ctx.dialect);
  const newest = await runningSessionsOf(ctx, tenantId)
    .select(['id', 'tenant_id', 'plan_id', 'channel', 'provider', 'direction', 'caller', 'called', 'created_time'])
    .select([block.node_id.as('node_id'), block.block_type.as('block_type')])
    .orderBy('created_time', 'desc')
    .orderBy('id', 'desc')
    .limit(LIVE_SESSIONS_LIMIT)
    .execute();
  return newest.reverse().map((row) => ({
    session_id: row.id,
    tenant_id: row.tenant_id,
    plan_id: row.plan_id,
    channel: row.channel as ActiveSession['channel'],
    provider: row.provider as ActiveSession['provider'],
    direction: row.direction as ActiveSession['direction'],
    caller: row.caller,
    called: row.called,
    started_at: row.created_time,
    node_id: row.node_id,
    block_type: row.block_type,
  }));
}

/** How many sessions run, and how many of them are calls (the voice channel). */
async function runningCounts(ctx: AppContext, tenantId: number | undefined): Promise<{ total: number; calls: number }> {
  const rows = await runningSessionsOf(ctx, tenantId)
    .select((eb) => ['channel', eb.fn.countAll().as('count')])
    .groupBy('channel')
    .execute();
  const total = rows.reduce((sum, row) => sum + Number(row.count), 0);
  return { total, calls: Number(rows.find((row) => row.channel === 'voice')?.count ?? 0) };
}

/** Sessions (not tests) stored since `since`. */
async function sessionsSince(ctx: AppContext, tenantId: number | undefined, since: string): Promise<number> {
  let query = ctx.db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('created_time', '>=', since)
    .where('is_test', '=', 0);
  if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
  return Number((await query.executeTakeFirstOrThrow()).count);
}

/** A live session event as the dashboard's feed tells it. */
export function liveStatsEventOf(event: LiveSessionEvent): LiveStatsEvent {
  switch (event.type) {
    case 'session.started': {
      const { session_id, tenant_id, plan_id, channel, provider, direction, caller, called, at } = event;
      return {
        type: 'session.started',
        session: { session_id, tenant_id, plan_id, channel, provider, direction, caller, called, started_at: at, node_id: null, block_type: null },
      };
    }
    case 'node.entered':
      return { type: 'node.entered', session_id: event.session_id, node_id: event.node_id, block_type: event.block_type, at: event.at };
    case 'session.ended':
      return { type: 'session.ended', session_id: event.session_id, channel: event.channel, disposition: event.disposition, hangup_cause: event.hangup_cause, at: event.at };
  }
}

/** The database's size on disk in bytes, or null when it cannot be told. */
async function databaseSize(ctx: AppContext): Promise<number | null> {
  const query =
    ctx.dialect === 'postgres'
      ? sql<{ size: string | number }>`select pg_database_size(current_database()) as size`
      : sql<{ size: string | number }>`select page_count * page_size as size from pragma_page_count(), pragma_page_size()`;
  const size = (await query.execute(ctx.db)).rows[0]?.size;
  return size === undefined ? null : Number(size);
}

/** How far back the system status looks for calls with a prompt that could not be played. */
export const UNPLAYABLE_PROMPTS_WINDOW_S = 3600;

/** Calls of the last hour whose report's failure is a prompt the PBX could not play (the session went on: not engine_error). */
async function unplayablePrompts(ctx: AppContext, tenantId: number | undefined): Promise<StatsSystem['prompts']> {
  const since = new Date(Date.now() - UNPLAYABLE_PROMPTS_WINDOW_S * 1000).toISOString();
  let query = ctx.db
    .selectFrom('call_reports')
    .where('start_time', '>=', since)
    .where('is_test', '=', 0)
    .where('failure', 'like', '%"code":"prompt_unplayable"%');
  if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
  const [count, last] = await Promise.all([
    query.select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow(),
    query.select(['session_id', 'start_time', 'failure']).orderBy('start_time', 'desc').limit(1).executeTakeFirst(),
  ]);
  const message = last?.failure ? (JSON.parse(last.failure) as { message?: string }).message ?? '' : '';
  return {
    window_s: UNPLAYABLE_PROMPTS_WINDOW_S,
    unplayable_calls: Number(count.count),
    last: last ? { session_id: last.session_id, at: last.start_time, message } : null,
  };
}

/** Calls and chats the licence refused in the last hour (kept by the licence service for this). */
async function licenceRefusals(ctx: AppContext, tenantId: number | undefined): Promise<StatsSystem['refusals']> {
  let query = ctx.db.selectFrom('session_refusals').where('created_time', '>=', new Date(Date.now() - REFUSALS_WINDOW_S * 1000).toISOString());
  if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
  const row = await query.select((eb) => [eb.fn.countAll<string | number>().as('count'), eb.fn.max('created_time').as('last_at')]).executeTakeFirstOrThrow();
  return { window_s: REFUSALS_WINDOW_S, refused_sessions: Number(row.count), last_at: row.last_at ?? null };
}

async function systemStatus(ctx: AppContext, hostReading: () => Promise<HostReading>, tenantId: number | undefined): Promise<StatsSystem> {
  const [host, database, prompts, refusals] = await Promise.all([
    hostReading(),
    (async () => {
      try {
        const latency = await timeTrivialQuery(ctx);
        return { status: 'ok' as const, latency_ms: Math.round(latency * 100) / 100, size_bytes: await databaseSize(ctx) };
      } catch {
        return { status: 'error' as const, latency_ms: null, size_bytes: null };
      }
    })(),
    unplayablePrompts(ctx, tenantId).catch(() => ({ window_s: UNPLAYABLE_PROMPTS_WINDOW_S, unplayable_calls: 0, last: null })),
    licenceRefusals(ctx, tenantId).catch(() => ({ window_s: REFUSALS_WINDOW_S, refused_sessions: 0, last_at: null })),
  ]);
  return {
    server: { status: 'ok', version: serverVersion, uptime_s: Math.round(process.uptime()) },
    database: { ...database, dialect: ctx.dialect },
    disk: { total_bytes: host.bytes.disk_total, free_bytes: host.bytes.disk_available },
    memory: { total_bytes: host.bytes.memory_total, free_bytes: host.bytes.memory_available, process_rss_bytes: process.memoryUsage.rss() },
    prompts,
    refusals,
  };
}

/** `GET /stats/live`, `GET /stats/live/events` and `GET /stats/system`; every reader of the tenant may call them. */
export function registerStatsLiveRoutes(app: FastifyInstance, ctx: AppContext, hostReading: () => Promise<HostReading>): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const openStreams = eventStreams(app);

  routes.get(
    '/stats/live',
    {
      schema: {
        tags: ['stats'],
        description:
          `The ${LIVE_SESSIONS_LIMIT} most recently started sessions running now (test sessions left out) with the block each is in, ` +
          `how many run in all (active_total) and how many of them are calls (active_calls), and sessions started per second over the last ${NEW_SESSIONS_WINDOW_S} s.`,
        response: { 200: statsLiveSchema },
      },
    },
    async (request): Promise<StatsLive> => {
      const tenantId = tenantFilterOf(scopeOf(request));
      const now = new Date();
      const since = new Date(now.getTime() - NEW_SESSIONS_WINDOW_S * 1000).toISOString();
      const [active, counts, recent] = await Promise.all([activeSessions(ctx, tenantId), runningCounts(ctx, tenantId), sessionsSince(ctx, tenantId, since)]);
      return {
        at: now.toISOString(),
        active,
        // Counted apart from the list: a session may start or end between the two reads, so never fewer than listed.
        active_total: Math.max(counts.total, active.length),
        active_calls: counts.calls,
        window_s: NEW_SESSIONS_WINDOW_S,
        new_per_second: recent / NEW_SESSIONS_WINDOW_S,
      };
    },
  );

  routes.get(
    '/stats/live/events',
    {
      schema: {
        tags: ['stats'],
        produces: ['text/event-stream'],
        description:
          'Server-Sent Events (text/event-stream) of the sessions of every instance: `event:` names the type (session.started, ' +
          'node.entered, session.ended), campaigns\' counts (campaign.progress, at most once a second per campaign) and rollouts rolled back by their automatic rule (rollout.auto_rollback), `data:` is one JSON object (LiveStatsEvent in the contracts). Test sessions are left out; a ' +
          '`: ping` comment comes every 15 s. The stream ends when the access token expires (`: closed token_expired`) and as soon as ' +
          'the sign-in ends or its roles change (`: closed sign_in_ended`): open it again with a fresh token. Send the Authorization header ' +
          'as on every call (read it with fetch and a stream reader: EventSource cannot send headers). Start from GET /stats/live. ' +
          '`only` keeps one kind: sessions (session.*, node.entered), campaigns (campaign.progress) or rollouts (rollout.auto_rollback).',
        querystring: statsLiveEventsQuerySchema,
      },
    },
    async (request, reply) => {
      const tenantId = tenantFilterOf(scopeOf(request));
      const { only } = request.query;
      const wants = (kind: LiveEventKind) => only === undefined || only === kind;
      return sendEventStream(app, openStreams, request, reply, {
        pingMs: liveFeedTiming.pingMs,
        subscribe: (send) => {
          const filter = tenantId === undefined ? {} : { tenantId };
          const stops = [
            wants('sessions') &&
              subscribeLiveSessions(
                ctx.bus,
                (event) => {
                  if (!event.is_test) send(sseMessage(liveStatsEventOf(event)));
                },
                filter,
              ),
            wants('campaigns') && subscribeCampaignProgress(ctx.bus, (event) => send(sseMessage(event)), filter),
            wants('rollouts') && subscribeAutoRollbacks(ctx.bus, (event) => send(sseMessage(event)), filter),
          ];
          return () => {
            for (const stop of stops) if (stop) stop();
          };
        },
      });
    },
  );

  routes.get(
    '/stats/system',
    {
      schema: {
        tags: ['stats'],
        description:
          'The server, the database (the time of a trivial query, its size), the disk and the memory; the host figures are read at most every 5 s. ' +
          'prompts: the calls of the last hour (of the tenant) with a prompt the telephony platform could not play, and the latest one’s failure message. ' +
          'refusals: the calls and chats of the last hour (of the tenant) the licence refused (license_sessions_limit_reached), and when the latest was.',
        response: { 200: statsSystemSchema },
      },
    },
    async (request) => {
      // Any signed-in user of a tenant sees the status; the administrator too, with or without a tenant.
      return systemStatus(ctx, hostReading, tenantFilterOf(scopeOf(request)));
    },
  );
}
