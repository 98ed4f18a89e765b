/**
 * The retention job (issue 17, docs/sessions.md "Retention"), on every instance: closes voice
 * sessions whose end never arrived, then deletes reports, sessions and their events older than the
 * general setting `reports_retention_days`. The statistics rollups are kept: they are what the
 * dashboard reads for periods, and they hold no caller's data.
 *
 * Several instances may run it at once. An expiry is a turn of the session (the `expire` event),
 * stored only over the revision it read and under one event id, so a session is closed once
 * whoever gets there first; deleting rows another instance deleted deletes nothing.
 */
import type { AppContext } from '../../context.ts';
import { sharedTransactionRunner } from '../../db/write-batch.ts';
import { readSystemSetting } from '../configurations/settings.ts';
import { startSweeper, type Sweeper } from './chat-sweeper.ts';

/** How often each instance runs a pass. */
export const RETENTION_INTERVAL_MS = 5 * 60_000;
/** Rows deleted per transaction: a pass never holds the database for long. */
const PRUNE_BATCH = 1000;

export interface PrunedCounts {
  reports: number;
  sessions: number;
  events: number;
}

export interface RetentionPass {
  /** Voice sessions closed `expired`. */
  expired: string[];
  pruned: PrunedCounts;
}

type RetentionContext = Pick<AppContext, 'db' | 'dialect' | 'sessions'>;

/**
 * Deletes the reports that started before `before`, and the ended sessions (with their events)
 * that did, a batch per transaction. A session still waiting is left: it ends first (a chat by the
 * sweeper, a call by the expiry), and goes on a later pass.
 */
export async function pruneBefore(
  ctx: Pick<AppContext, 'db' | 'dialect'>,
  before: string,
  options: { batch?: number; signal?: AbortSignal } = {},
): Promise<PrunedCounts> {
  const batch = options.batch ?? PRUNE_BATCH;
  // After a long stop there may be a million rows to go: stopping the job ends the pass between batches.
  const isStopped = () => options.signal?.aborted === true;
  const { db } = ctx;
  const writes = sharedTransactionRunner(db, ctx.dialect);
  const counts: PrunedCounts = { reports: 0, sessions: 0, events: 0 };
  while (!isStopped()) {
    const ids = (await db.selectFrom('call_reports').select('id').where('start_time', '<', before).limit(batch).execute()).map((row) => row.id);
    if (ids.length === 0) break;
    counts.reports += await writes.run(async (trx) => Number((await trx.deleteFrom('call_reports').where('id', 'in', ids).executeTakeFirst()).numDeletedRows));
    if (ids.length < batch) break;
  }
  while (!isStopped()) {
    const ids = (
      await db.selectFrom('sessions').select('id').where('created_time', '<', before).where('status', '=', 'ended').limit(batch).execute()
    ).map((row) => row.id);
    if (ids.length === 0) break;
    await writes.run(async (trx) => {
      counts.events += Number((await trx.deleteFrom('session_events').where('session_id', 'in', ids).executeTakeFirst()).numDeletedRows);
      const deleted = Number((await trx.deleteFrom('sessions').where('id', 'in', ids).executeTakeFirst()).numDeletedRows);
      counts.sessions += deleted;
      return deleted;
    });
    if (ids.length < batch) break;
  }
  return counts;
}

/** One pass of the job, with the settings as stored now. `now`: the tests' clock; `signal`: the job stopping. */
export async function runRetentionPass(ctx: RetentionContext, options: { now?: Date; signal?: AbortSignal } = {}): Promise<RetentionPass> {
  const now = options.now ?? new Date();
  const [retentionDays, endTimeoutMinutes] = await Promise.all([
    readSystemSetting(ctx.db, 'reports_retention_days'),
    readSystemSetting(ctx.db, 'voice_session_end_timeout_minutes'),
  ]);
  const expired = await ctx.sessions.expireStale(new Date(now.getTime() - endTimeoutMinutes * 60_000).toISOString());
  const pruned = await pruneBefore(ctx, new Date(now.getTime() - retentionDays * 86_400_000).toISOString(), { signal: options.signal });
  return { expired, pruned };
}

/** Starts the job on this instance; stop it before the database closes. */
export function startRetentionJob(ctx: RetentionContext, options: { intervalMs?: number; onError?: (error: unknown) => void } = {}): Sweeper {
  return startSweeper((signal) => runRetentionPass(ctx, { signal }), { intervalMs: options.intervalMs ?? RETENTION_INTERVAL_MS, onError: options.onError });
}
