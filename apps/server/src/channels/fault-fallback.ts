/**
 * What a call hears when its turn cannot be answered in time (docs/deployment.md, "When the
 * database falters"): the turn is raced against PROVIDER_HOOK_DEADLINE_MS, and a failure of the
 * server's own or a turn past its deadline answers the system message `plan_cannot_start` ("This
 * service is not available right now") and hangs up, never a 5xx the provider turns into its own
 * "application error".
 */
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { systemMessage, type SystemMessage, tenantLanguage } from '../modules/sessions/system-messages.ts';

export type Settled<T> = { state: 'done'; value: T } | { state: 'failed'; error: unknown } | { state: 'late' };

/** `work`'s outcome, or `late` once `ms` have passed (the work goes on; the caller decides what its end does). */
export async function settleWithin<T>(work: Promise<T>, ms: number): Promise<Settled<T>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Settled<T>>((resolve) => {
    timer = setTimeout(() => resolve({ state: 'late' }), ms);
  });
  try {
    return await Promise.race([work.then((value): Settled<T> => ({ state: 'done', value }), (error: unknown): Settled<T> => ({ state: 'failed', error })), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A refusal meant for the caller (a bad signature, a form of the wrong type) stays one; anything else of the server's own answers the fallback. */
export const answersFallback = (error: unknown): boolean => !(error instanceof AppError && error.statusCode < 500);

/** How long the fallback may spend finding the tenant's language: the database may be what is away. */
const LANGUAGE_BOUND_MS = 500;

/**
 * The "not available right now" message in the tenant's language when it can be read quickly (the
 * read cache usually has it), else DEFAULT_LANGUAGE. `tenant`: how to find the tenant, if at all.
 */
export async function unavailableMessage(ctx: Pick<AppContext, 'db' | 'config' | 'readCache'>, tenant: () => Promise<number | undefined>): Promise<SystemMessage> {
  const language = (async () => tenantLanguage(ctx, await tenant()))();
  const read = await settleWithin(language, LANGUAGE_BOUND_MS);
  return systemMessage('plan_cannot_start', read.state === 'done' ? read.value : ctx.config.defaultLanguage);
}
