/**
 * The chat hand-off (docs/handoff.md): a `destination` block on a chat posts the conversation to
 * the chat destination's URL, signed like the plan webhook, and the receiver's answer decides the
 * block's exit. Failures to get an answer are retried with back-off while the user waits, until
 * the block's `timeout_s` runs out; then the exit is `failed`.
 */
import { type Action, currentFrame, type DialStatus, type Session } from '@voxplan/engine';
import { OutboundError } from '@voxplan/engine/ports';
import type { AppContext } from '../../context.ts';
import { retryDelayMs } from '../plan-webhook/plan-webhook.dispatcher.ts';
import { webhookSecretOf } from '../plan-webhook/plan-webhook.service.ts';
import { signedRequestHeaders } from '../plan-webhook/plan-webhook.signature.ts';

export type DialAction = Extract<Action, { type: 'dial' }>;

export const HANDOFF_EVENT = 'chat.handoff';

/** The answers a receiver may give in `status`: the destination block's exits. */
export const handOffStatuses = ['answer', 'busy', 'no_answer', 'failed'] as const satisfies readonly DialStatus[];
/** Or `accepted`: the desk keeps the conversation and writes back through the reply URL (docs/conversations.md). */
export const ACCEPTED = 'accepted';
type HandOffStatus = (typeof handOffStatuses)[number] | typeof ACCEPTED;

export interface HandOffRequest {
  /** The session as the turn that reached the destination left it. */
  session: Session;
  dial: DialAction;
  is_test: boolean;
  /** The same on every attempt of this hand-off: `X-Voxplan-Delivery` and `id` in the body. */
  delivery_id: string;
  /** Where and with what the desk writes back, should it answer `accepted`. */
  reply?: { url: string; token: string };
}

export interface HandOffResult {
  status: HandOffStatus;
  attempts: number;
  /** Why the exit is `failed`, for the log; null otherwise. */
  error: string | null;
}

export interface ChatHandOff {
  /** Posts the conversation until the receiver answers or the block's timeout runs out. */
  send(request: HandOffRequest): Promise<HandOffResult>;
  /** No new attempt starts; resolves once the attempts under way are done. Hand-offs still waiting answer `failed`. */
  stop(): Promise<void>;
}

export interface ChatHandOffOptions {
  /** Milliseconds since the epoch; the signature's timestamp and the deadline. */
  now?: () => number;
  /** In [0, 1), for the jitter. */
  random?: () => number;
  /** Waits after the 1st, 2nd, ... failed attempt; past the end of the list the last one repeats. */
  retryDelaysMs?: readonly number[];
  jitter?: number;
  /** One attempt at most; shorter when less of the block's timeout is left. */
  attemptTimeoutMs?: number;
}

/** Short waits: a person is waiting in the chat, and the block's timeout bounds them all. */
export const DEFAULT_HANDOFF_RETRY_DELAYS_MS: readonly number[] = [500, 1000, 2000, 4000, 8000];
const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;
const MAX_ERROR_LENGTH = 200;

/** Statuses worth another attempt: the receiver is away or overloaded, not refusing. */
const isRetryableStatus = (status: number): boolean => status === 408 || status === 429 || status >= 500;

/** The request's body: the plan webhook's envelope, with the conversation as `data`. */
export function handOffBody(request: HandOffRequest, createdTime: string): string {
  const { session, dial } = request;
  const plan = currentFrame(session);
  return JSON.stringify({
    id: request.delivery_id,
    event: HANDOFF_EVENT,
    created_time: createdTime,
    tenant_id: session.tenant_id,
    plan_id: plan.plan_id,
    data: {
      session_id: session.id,
      is_test: request.is_test,
      channel: session.channel,
      provider: session.provider,
      caller: session.caller,
      called: session.called,
      protocol: session.protocol,
      started_at: session.started_at,
      plan: { id: plan.plan_id, version: plan.plan_version, name: plan.plan_name },
      destination: { id: dial.destination_id, name: dial.name },
      timeout_s: dial.timeout_s,
      transcript: dial.transcript ?? session.transcript,
      variables: dial.variables ?? session.variables,
      ...(request.reply && { reply: request.reply }),
    },
  });
}

/**
 * What a 2xx answer says: an empty body is a plain `answer`; otherwise a JSON object whose
 * `status` is one of the exits. Anything else is the receiver's mistake, and `failed`.
 */
export function statusOfAnswer(body: string): { status: HandOffStatus; error: string | null } {
  if (body.trim() === '') return { status: 'answer', error: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { status: 'failed', error: 'the answer is not JSON' };
  }
  const status = typeof parsed === 'object' && parsed !== null ? (parsed as { status?: unknown }).status : undefined;
  if (status === undefined) return { status: 'answer', error: null };
  return ([...handOffStatuses, ACCEPTED] as readonly unknown[]).includes(status)
    ? { status: status as HandOffStatus, error: null }
    : { status: 'failed', error: `unknown status ${JSON.stringify(status).slice(0, 50)}` };
}

export function createChatHandOff(ctx: Pick<AppContext, 'db' | 'keys' | 'outbound'>, options: ChatHandOffOptions = {}): ChatHandOff {
  const now = options.now ?? Date.now;
  const delays = { retryDelaysMs: options.retryDelaysMs ?? DEFAULT_HANDOFF_RETRY_DELAYS_MS, jitter: options.jitter ?? 0.2, random: options.random ?? Math.random };
  const attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  let isStopped = false;
  const waits = new Set<() => void>();
  const running = new Set<Promise<unknown>>();

  /** Sleeps, unless stop() comes first; answers whether the whole wait passed. */
  function wait(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        waits.delete(wake);
        resolve(!isStopped);
      };
      const timer = setTimeout(wake, ms);
      waits.add(wake);
    });
  }

  /** One attempt: an exit, or the reason to try again. */
  async function attempt(request: HandOffRequest, body: string, timeoutMs: number): Promise<{ status: HandOffStatus; error: string | null } | { retry: string }> {
    const { secret } = await webhookSecretOf(ctx, ctx.db, request.session.tenant_id);
    const headers = signedRequestHeaders(secret, {
      body,
      timestampSeconds: Math.floor(now() / 1000),
      userAgent: 'Voxplan-Handoff/1',
      event: HANDOFF_EVENT,
      delivery: request.delivery_id,
    });
    try {
      const answer = await ctx.outbound.request({ method: 'POST', url: request.dial.uri, headers, body, timeoutMs });
      if (answer.status >= 200 && answer.status < 300) return statusOfAnswer(answer.body);
      const error = `HTTP ${answer.status}${answer.body.trim() ? `: ${answer.body.trim().slice(0, MAX_ERROR_LENGTH)}` : ''}`;
      return isRetryableStatus(answer.status) ? { retry: error } : { status: 'failed', error };
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      // A refused or malformed address will not get better by waiting.
      if (error.failure === 'forbidden_address' || error.failure === 'invalid_url') return { status: 'failed', error: `${error.failure}: ${error.message}` };
      return { retry: `${error.failure}: ${error.message}` };
    }
  }

  async function send(request: HandOffRequest): Promise<HandOffResult> {
    const startedAt = now();
    const deadline = startedAt + request.dial.timeout_s * 1000;
    const body = handOffBody(request, new Date(startedAt).toISOString());
    for (let attempts = 1; ; attempts++) {
      if (isStopped) return { status: 'failed', attempts: attempts - 1, error: 'the server is stopping' };
      const outcome = await attempt(request, body, Math.max(1, Math.min(attemptTimeoutMs, deadline - now())));
      if ('status' in outcome) return { ...outcome, attempts };
      const delay = retryDelayMs(attempts, delays);
      if (now() + delay >= deadline) return { status: 'failed', attempts, error: `no answer within ${request.dial.timeout_s} s; last: ${outcome.retry}` };
      if (!(await wait(delay))) return { status: 'failed', attempts, error: 'the server is stopping' };
    }
  }

  return {
    send(request) {
      const sent = send(request);
      running.add(sent);
      void sent.finally(() => running.delete(sent)).catch(() => {});
      return sent;
    },
    async stop() {
      isStopped = true;
      for (const wake of [...waits]) wake();
      await Promise.allSettled([...running]);
    },
  };
}
