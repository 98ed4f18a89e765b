import { OutboundError } from '@voxplan/engine/ports';
import type { AppContext } from '../../context.ts';
import { claimDelivery, type DeliveryRow, findClaimableIds, finishAttempt } from './plan-webhook.repository.ts';
import { deliveryBody, webhookSecretOf } from './plan-webhook.service.ts';
import { signedRequestHeaders } from './plan-webhook.signature.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Waits after the 1st, 2nd, ... failed attempt; past the end of the list the last one repeats. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [10 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR];
/** The first attempt and seven retries: a receiver may be away for about ten hours. */
export const DEFAULT_MAX_ATTEMPTS = 8;

export interface DispatcherOptions {
  /** Milliseconds since the epoch; tests move it forward instead of waiting. */
  now?: () => number;
  /** In [0, 1), for the jitter. */
  random?: () => number;
  retryDelaysMs?: readonly number[];
  maxAttempts?: number;
  /** Each wait is spread by up to this fraction either way, so receivers that failed together are not retried together. */
  jitter?: number;
  /** How long a claim holds a delivery against other instances: longer than a request can take. */
  leaseMs?: number;
  /** The whole request, redirects included; the outbound client enforces it. */
  timeoutMs?: number;
  /** How often an idle dispatcher looks for due deliveries. */
  pollIntervalMs?: number;
  /** Deliveries sent at once by one instance. */
  batchSize?: number;
  log?: { warn(details: object, message: string): void; error(details: object, message: string): void };
}

type Settings = Required<Omit<DispatcherOptions, 'log'>> & Pick<DispatcherOptions, 'log'>;

const defaults: Omit<Settings, 'log'> = {
  now: Date.now,
  random: Math.random,
  retryDelaysMs: DEFAULT_RETRY_DELAYS_MS,
  maxAttempts: DEFAULT_MAX_ATTEMPTS,
  jitter: 0.2,
  leaseMs: 60 * SECOND,
  timeoutMs: 10 * SECOND,
  pollIntervalMs: 2 * SECOND,
  batchSize: 10,
};

/** The wait after the `attempts`-th failed attempt, jitter included. */
export function retryDelayMs(attempts: number, options: Pick<Settings, 'retryDelaysMs' | 'jitter' | 'random'>): number {
  const { retryDelaysMs: delays, jitter, random } = options;
  const base = delays[Math.min(Math.max(attempts, 1), delays.length) - 1] ?? 0;
  return Math.round(base * (1 + jitter * (2 * random() - 1)));
}

export type AttemptOutcome = { id: number; attempts: number; status: DeliveryRow['status'] };

export interface PlanWebhookDispatcher {
  /** Polls until stopped. */
  start(): void;
  /** Stops polling and waits for the attempts in progress to be recorded. */
  stop(): Promise<void>;
  /** One round: claims the due deliveries (up to the batch size) and sends them; answers what became of each. */
  runOnce(): Promise<AttemptOutcome[]>;
  /** One attempt at one due delivery now (undefined when another instance holds it, or it is not due). */
  attempt(id: number): Promise<AttemptOutcome | undefined>;
}

const iso = (ms: number) => new Date(ms).toISOString();
/** An outside desk's events travel with its hand-off's name (docs/handoff.md); a plan's with the webhook's. */
const userAgentOf = (event: string) => (event.startsWith('chat.') ? 'Voxplan-Handoff/1' : 'Voxplan-Webhook/1');
const MAX_ERROR_LENGTH = 500;

/**
 * Sends plan webhook deliveries from the database. Every instance runs one; a delivery is sent by
 * one instance at a time because each attempt first claims it with a lease (plan-webhook.repository.ts).
 */
export function createPlanWebhookDispatcher(ctx: Pick<AppContext, 'db' | 'keys' | 'outbound'>, options: DispatcherOptions = {}): PlanWebhookDispatcher {
  const settings: Settings = { ...defaults, ...options };
  const { now } = settings;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;

  async function send(row: DeliveryRow): Promise<{ ok: true; status: number } | { ok: false; status: number | null; error: string }> {
    const { secret } = await webhookSecretOf(ctx, ctx.db, row.tenant_id);
    const body = deliveryBody(row);
    const timestamp = Math.floor(now() / 1000);
    try {
      const answer = await ctx.outbound.request({
        method: 'POST',
        url: row.url,
        headers: signedRequestHeaders(secret, { body, timestampSeconds: timestamp, userAgent: userAgentOf(row.event), event: row.event, delivery: String(row.id) }),
        body,
        timeoutMs: settings.timeoutMs,
      });
      if (answer.status >= 200 && answer.status < 300) return { ok: true, status: answer.status };
      const excerpt = answer.body.trim().slice(0, 200);
      return { ok: false, status: answer.status, error: `HTTP ${answer.status}${excerpt ? `: ${excerpt}` : ''}` };
    } catch (error) {
      if (error instanceof OutboundError) return { ok: false, status: null, error: `${error.failure}: ${error.message}` };
      throw error;
    }
  }

  async function attempt(id: number): Promise<AttemptOutcome | undefined> {
    const claimed = await claimDelivery(ctx.db, id, iso(now()), iso(now() + settings.leaseMs));
    // Another instance took it first.
    if (!claimed) return undefined;
    let result: Awaited<ReturnType<typeof send>>;
    try {
      result = await send(claimed);
    } catch (error) {
      // Not the receiver's doing (the database, the secret): counted and retried like a failure.
      result = { ok: false, status: null, error: `internal: ${error instanceof Error ? error.message : String(error)}` };
    }
    const finished = iso(now());
    let status: DeliveryRow['status'];
    if (result.ok) {
      status = 'delivered';
      await finishAttempt(ctx.db, id, claimed.attempts, { status, last_status: result.status, last_error: null, delivered_time: finished });
    } else {
      const isLast = claimed.attempts >= settings.maxAttempts;
      status = isLast ? 'failed' : 'pending';
      const next = isLast ? finished : iso(now() + retryDelayMs(claimed.attempts, settings));
      await finishAttempt(ctx.db, id, claimed.attempts, {
        status,
        next_attempt_time: next,
        last_status: result.status,
        last_error: result.error.slice(0, MAX_ERROR_LENGTH),
      });
      if (isLast) settings.log?.warn({ deliveryId: id, event: claimed.event, attempts: claimed.attempts, error: result.error }, 'webhook delivery failed');
    }
    return { id, attempts: claimed.attempts, status };
  }

  async function runOnce(): Promise<AttemptOutcome[]> {
    const ids = await findClaimableIds(ctx.db, iso(now()), settings.batchSize);
    // Every attempt is waited for, so that none is still writing when stop() returns.
    const settled = await Promise.allSettled(ids.map(attempt));
    const failure = settled.find((result) => result.status === 'rejected');
    if (failure) throw failure.reason;
    return settled.flatMap((result) => (result.status === 'fulfilled' && result.value ? [result.value] : []));
  }

  function schedule(delayMs: number) {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      running = runOnce().then(
        // A full batch suggests more are due: go on at once instead of waiting a poll interval.
        (outcomes) => schedule(outcomes.length >= settings.batchSize ? 0 : settings.pollIntervalMs),
        (error: unknown) => {
          settings.log?.error({ err: error }, 'plan webhook dispatcher round failed');
          schedule(settings.pollIntervalMs);
        },
      );
    }, delayMs);
    // The dispatcher alone does not keep a process alive.
    timer.unref();
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      schedule(0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
    runOnce,
    attempt,
  };
}
