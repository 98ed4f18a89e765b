/**
 * `GET /metrics` in Prometheus' text format (docs/metrics.md), with prom-client. Off unless
 * METRICS_TOKEN is set; then a scrape names it as a bearer token. Every instance serves its own:
 * what this process counts (sessions started and ended here, refusals, turn latency, the read
 * cache, the database pool, Node's event loop and memory), and what the database says at the
 * scrape (sessions running, the licence's use against its limits, plan webhook deliveries), which
 * is the installation's and so the same on every instance.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import { sql } from 'kysely';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AppContext } from '../../context.ts';
import { AppError, notFound } from '../../errors.ts';
import type { ChatHandOff } from '../sessions/chat-handoff.ts';
import type { SessionEvents } from '../sessions/session-events.ts';
import type { Metrics } from './metrics.types.ts';

export type { Metrics };

export function createMetrics(): Metrics {
  // A registry of its own, not prom-client's global one: tests run several servers in one process.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'voxplan_' });
  return {
    registry,
    sessionsStarted: new Counter({ name: 'voxplan_sessions_started_total', help: 'Calls and chats started on this instance (test sessions apart).', labelNames: ['channel', 'provider'], registers: [registry] }),
    sessionsEnded: new Counter({
      name: 'voxplan_sessions_ended_total',
      help: 'Calls and chats ended on this instance, by disposition (routed, retained, abandoned, failed, expired, missed).',
      labelNames: ['channel', 'provider', 'disposition'],
      registers: [registry],
    }),
    sessionsRefused: new Counter({ name: 'voxplan_sessions_refused_total', help: 'Calls and chats refused before they started, by error code (license_sessions_limit_reached).', labelNames: ['reason'], registers: [registry] }),
    turnDuration: new Histogram({
      name: 'voxplan_turn_duration_seconds',
      help: "Time to answer a provider's webhook (one turn of a call or chat), by provider.",
      labelNames: ['provider'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    handOffs: new Counter({
      name: 'voxplan_handoff_deliveries_total',
      help: "Chat hand-offs posted to a destination by this instance, by the block's exit they took (answer, busy, no_answer, failed).",
      labelNames: ['result'],
      registers: [registry],
    }),
    aiRequests: new Counter({
      name: 'voxplan_ai_requests_total',
      help: 'Requests this instance made to an AI provider, by operation (complete, transcribe) and result (ok, or the catalogue code of the failure).',
      labelNames: ['operation', 'result'],
      registers: [registry],
    }),
    aiTokens: new Counter({ name: 'voxplan_ai_tokens_total', help: "Tokens the AI provider's answers reported using.", registers: [registry] }),
    aiRefused: new Counter({ name: 'voxplan_ai_limit_refusals_total', help: 'AI requests the cost guard refused (ai_limit_reached): the tenant\'s minute or the session\'s tokens were spent.', registers: [registry] }),
    mediaFetchFailures: new Counter({
      name: 'voxplan_media_fetch_failures_total',
      help: 'Media that could not be fetched: prompts the PBX could not play (prompt), recordings that could not be downloaded for analysis (recording).',
      labelNames: ['kind'],
      registers: [registry],
    }),
  };
}

/** The hand-offs counted by the exit they took, test sessions' too: each is a real delivery to the tenant's receiver. */
export function countedHandOff(handOff: ChatHandOff, metrics: Metrics): ChatHandOff {
  return {
    ...handOff,
    async send(request) {
      const result = await handOff.send(request);
      metrics.handOffs.inc({ result: result.status });
      return result;
    },
  };
}

/** The session hooks with this instance's counts of starts and ends added; they run in the turn's transaction, as the others do. */
export function countedSessionEvents(events: SessionEvents, metrics: Metrics): SessionEvents {
  return {
    ...events,
    async onStarted(event, trx) {
      if (!event.is_test) metrics.sessionsStarted.inc({ channel: event.session.channel, provider: event.session.provider });
      await events.onStarted?.(event, trx);
    },
    async onEnded(event, trx) {
      if (!event.is_test) {
        metrics.sessionsEnded.inc({ channel: event.session.channel, provider: event.session.provider, disposition: event.report.disposition ?? 'none' });
      }
      await events.onEnded?.(event, trx);
    },
  };
}

/** A refusal of a start counted by its code, then thrown on. */
export function countedAdmission<Args extends unknown[]>(admit: (...args: Args) => Promise<void>, metrics: Metrics): (...args: Args) => Promise<void> {
  return async (...args) => {
    try {
      await admit(...args);
    } catch (error) {
      metrics.sessionsRefused.inc({ reason: error instanceof AppError ? error.code : 'error' });
      throw error;
    }
  };
}

/** The provider whose webhook a route is: the turns it runs are timed. */
function providerOfRoute(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const match = /^\/api\/v1\/(?:hooks\/(twilio|whatsapp)|(webchat))\//.exec(url);
  return match ? (match[1] ?? match[2]) : undefined;
}

/**
 * A collector that reads the database must neither fail the scrape nor hold it: past this it is
 * reported down (voxplan_collector_up 0) and the others are served, so that voxplan_database_up
 * says 0 during an outage instead of the whole scrape answering 500.
 */
const COLLECTOR_TIMEOUT_MS = 2_000;

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Gauges read from the database (and the licence service) when Prometheus scrapes. */
function registerInstallationGauges(ctx: AppContext, registry: Registry, scrape: ScrapeState): void {
  // The collections of the scrape under way: voxplan_collector_up, registered last, waits for them.
  const collecting = new Set<Promise<void>>();
  const outcomes = new Map<string, number>();
  /** `collect` bounded and guarded: a failure is the collector's 0, not the scrape's 500. */
  const guarded = (collector: string, collect: (gauge: Gauge) => Promise<void>) =>
    function (this: Gauge): Promise<void> {
      const run = (async () => {
        try {
          await within(collect(this), COLLECTOR_TIMEOUT_MS);
          outcomes.set(collector, 1);
        } catch {
          this.reset();
          outcomes.set(collector, 0);
        }
      })();
      collecting.add(run);
      void run.finally(() => collecting.delete(run));
      return run;
    };
  new Gauge({
    name: 'voxplan_sessions_running',
    help: 'Calls and chats running now in the installation (test sessions apart), by channel and provider.',
    labelNames: ['channel', 'provider'],
    registers: [registry],
    collect: guarded('sessions_running', async (gauge) => {
      const rows = await ctx.db
        .selectFrom('sessions')
        .select(['channel', 'provider', (eb) => eb.fn.countAll<string | number>().as('count')])
        .where('status', '=', 'waiting')
        .where('is_test', '=', 0)
        .groupBy(['channel', 'provider'])
        .execute();
      gauge.reset();
      for (const row of rows) gauge.set({ channel: row.channel, provider: row.provider }, Number(row.count));
    }),
  });
  const licence = async () => ctx.license.info();
  let reading: ReturnType<typeof licence> | undefined;
  // Both licence gauges are collected in one scrape: one reading for the two.
  const licenceOnce = () => {
    reading ??= licence().finally(() => setTimeout(() => (reading = undefined), 1000).unref());
    return reading;
  };
  const licenceGauge = (name: string, help: string, pick: (info: Awaited<ReturnType<typeof licence>>) => Record<string, number>) =>
    new Gauge({
      name,
      help,
      labelNames: ['kind'],
      registers: [registry],
      collect: guarded(name.replace(/^voxplan_/, ''), async (gauge) => {
        for (const [kind, value] of Object.entries(pick(await licenceOnce()))) gauge.set({ kind }, value);
      }),
    });
  licenceGauge('voxplan_license_limit', 'What the licence in force allows (or the defaults without one): concurrent_sessions, tenants, numbers.', (info) => info.limits);
  licenceGauge('voxplan_license_usage', 'What is used of each licence limit now: concurrent_sessions, tenants, numbers.', (info) => info.usage);
  new Gauge({
    name: 'voxplan_webhook_deliveries',
    help: "The plan webhook's deliveries kept in the installation, by status (pending, delivered, failed).",
    labelNames: ['status'],
    registers: [registry],
    collect: guarded('webhook_deliveries', async (gauge) => {
      const rows = await ctx.db
        .selectFrom('webhook_deliveries')
        .select(['status', (eb) => eb.fn.countAll<string | number>().as('count')])
        .groupBy('status')
        .execute();
      gauge.reset();
      for (const row of rows) gauge.set({ status: row.status }, Number(row.count));
    }),
  });
  new Gauge({
    name: 'voxplan_read_cache_hit_ratio',
    help: "Share of this instance's cached reads answered from its read cache since it started.",
    registers: [registry],
    collect() {
      const { hits, reads } = ctx.readCache.stats();
      this.set(reads === 0 ? 0 : hits / reads);
    },
  });
  new Gauge({
    name: 'voxplan_database_up',
    help: 'Whether the database answered a trivial query at the scrape (1) or not (0).',
    registers: [registry],
    async collect() {
      try {
        await within(sql`select 1`.execute(ctx.db), COLLECTOR_TIMEOUT_MS);
        this.set(1);
      } catch {
        this.set(0);
      }
    },
  });
  // prom-client starts every metric's collect in the order they were registered, then waits for all:
  // registered after the guarded ones, this one sees them under way and reports how they ended.
  new Gauge({
    name: 'voxplan_collector_up',
    help: 'Whether each collector that reads the database answered at this scrape (1) or failed or took over 2 s (0); a failed one leaves its gauges out.',
    labelNames: ['collector'],
    registers: [registry],
    async collect() {
      await Promise.all([...collecting]);
      for (const [collector, up] of outcomes) this.set({ collector }, up);
    },
  });
  const pool = ctx.databasePool;
  if (pool) {
    new Gauge({
      name: 'voxplan_database_pool_connections',
      help: "This instance's PostgreSQL pool: connections open (total), idle, and queries waiting for one (waiting), as they were when the scrape came (its own queries apart).",
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const stats = scrape.poolBefore ?? pool();
        for (const [state, value] of Object.entries(stats)) this.set({ state }, value);
      },
    });
  }
}

/** What the scrape route saw before the collectors ran: the pool, before the scrape's own queries wait for it. */
interface ScrapeState {
  poolBefore?: { total: number; idle: number; waiting: number };
}

const scrapes = new WeakMap<Registry, ScrapeState>();

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * Times the providers' webhooks; added before the routes are, so that it applies to them. The hook
 * goes on those routes alone, as each is added: on every other request an app-wide hook was one
 * more step, and a promise, for nothing (issue 40).
 */
export function timeProviderWebhooks(app: FastifyInstance, ctx: AppContext): void {
  const metrics = ctx.metrics;
  if (!metrics) return;
  app.addHook('onRoute', (route) => {
    const provider = providerOfRoute(route.url);
    if (!provider) return;
    const timed: onResponseHookHandler = (_request, reply, done) => {
      metrics.turnDuration.observe({ provider }, reply.elapsedTime / 1000);
      done();
    };
    route.onResponse = [...[route.onResponse ?? []].flat(), timed];
  });
}

/** `GET /metrics`: 404 while METRICS_TOKEN is not set, 401 without it as a bearer token. */
export function registerMetricsRoute(app: FastifyInstance, ctx: AppContext): void {
  const metrics = ctx.metrics;
  const token = ctx.config.metricsToken;
  if (!metrics) return;
  // One set of gauges per registry: an app built again on the same context (tests) reuses them.
  let scrape = scrapes.get(metrics.registry);
  if (!scrape) {
    scrape = {};
    scrapes.set(metrics.registry, scrape);
    registerInstallationGauges(ctx, metrics.registry, scrape);
  }
  const state = scrape;
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!token) throw notFound('not_found');
    const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (given === undefined || !sameText(given, token)) throw new AppError(401, 'invalid_token');
    state.poolBefore = ctx.databasePool?.();
    let body: string;
    try {
      body = await metrics.registry.metrics();
    } finally {
      state.poolBefore = undefined;
    }
    return reply.type(metrics.registry.contentType).send(body);
  });
}
