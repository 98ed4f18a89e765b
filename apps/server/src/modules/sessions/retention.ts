/**
 * The retention job (issue 17, docs/sessions.md "Retention"), on every instance: closes voice
 * sessions whose end never arrived (at once for a call its provider says has ended, through the
 * channel's `endLostCalls`: Twilio's; else past the end timeout), then deletes reports, sessions and their events older than the
 * general setting `reports_retention_days`, and closed conversations older than `conversations_retention_days`. The statistics rollups are kept: they are what the
 * dashboard reads for periods, and they hold no caller's data.
 *
 * Several instances may run it at once. An expiry is a turn of the session (the `expire` event),
 * stored only over the revision it read and under one event id, so a session is closed once
 * whoever gets there first; the pruning takes an advisory lock on PostgreSQL, so one instance at a
 * time works through the old rows.
 */
import { type Kysely, sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import { sharedTransactionRunner } from '../../db/write-batch.ts';
import { readSystemSetting } from '../configurations/settings.ts';
import { startSweeper, type Sweeper } from './chat-sweeper.ts';
import { pruneClosedConversations } from '../conversations/conversation-retention.ts';

/** How often each instance runs a pass. */
export const RETENTION_INTERVAL_MS = 5 * 60_000;
/** Rows deleted per transaction: a pass never holds the database for long. */
const PRUNE_BATCH = 1000;

export interface PrunedCounts {
  reports: number;
  sessions: number;
  events: number;
  /** Closed conversations, with their messages and files (`conversations_retention_days`). */
  conversations?: number;
}

export interface RetentionPass {
  /** Twilio calls closed `expired` because Twilio says they have ended (their status callback was lost). */
  lost: string[];
  /** Voice sessions closed `expired` past the end timeout. */
  expired: string[];
  pruned: PrunedCounts;
}

type RetentionContext = Pick<AppContext, 'db' | 'dialect' | 'sessions' | 'keys' | 'config' | 'channels'> & Partial<Pick<AppContext, 'readCache' | 'outboundCalls'>>;

/**
 * The advisory lock a prune batch takes on PostgreSQL: while one instance prunes, the others leave
 * it to that one rather than race it through the same rows (which would be safe, only wasted).
 */
export const PRUNE_LOCK_KEY = 1_700_170_017;

/**
 * Deletes the reports that started before `before`, and the ended sessions (with their events)
 * that did, a batch per transaction. A session still waiting is left: it ends first (a chat by the
 * sweeper, a call by the expiry), and goes on a later pass. On PostgreSQL each batch first takes
 * PRUNE_LOCK_KEY for its transaction; when another instance holds it, this pass prunes no more.
 */
export async function pruneBefore(
  ctx: Pick<AppContext, 'db' | 'dialect'>,
  before: string,
  options: { batch?: number; signal?: AbortSignal } = {},
): Promise<PrunedCounts> {
  const batch = options.batch ?? PRUNE_BATCH;
  const writes = sharedTransactionRunner(ctx.db, ctx.dialect);
  const counts: PrunedCounts = { reports: 0, sessions: 0, events: 0 };
  /** Runs one batch; answers how many rows it took, or null when another instance is pruning. */
  const inBatch = (work: (trx: Kysely<Database>) => Promise<number>) =>
    writes.run(async (trx): Promise<number | null> => {
      if (ctx.dialect === 'postgres') {
        const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${PRUNE_LOCK_KEY}) as locked`.execute(trx);
        if (!rows[0]?.locked) return null;
      }
      return work(trx);
    });
  // After a long stop there may be a million rows to go: stopping the job ends the pass between batches.
  const isStopped = () => options.signal?.aborted === true;
  let taken: number | null = batch;
  while (taken === batch && !isStopped()) {
    taken = await inBatch(async (trx) => {
      const old = trx.selectFrom('call_reports').select('id').where('start_time', '<', before).limit(batch);
      const deleted = Number((await trx.deleteFrom('call_reports').where('id', 'in', old).executeTakeFirst()).numDeletedRows);
      counts.reports += deleted;
      return deleted;
    });
  }
  taken = taken === null ? null : batch;
  while (taken === batch && !isStopped()) {
    taken = await inBatch(async (trx) => {
      const ids = (await trx.selectFrom('sessions').select('id').where('created_time', '<', before).where('status', '=', 'ended').limit(batch).execute()).map(
        (row) => row.id,
      );
      if (ids.length === 0) return 0;
      counts.events += Number((await trx.deleteFrom('session_events').where('session_id', 'in', ids).executeTakeFirst()).numDeletedRows);
      counts.sessions += Number((await trx.deleteFrom('sessions').where('id', 'in', ids).executeTakeFirst()).numDeletedRows);
      return ids.length;
    });
  }
  return counts;
}

/** One pass of the job, with the settings as stored now. `now`: the tests' clock; `signal`: the job stopping. */
export async function runRetentionPass(ctx: RetentionContext, options: { now?: Date; signal?: AbortSignal; log?: (message: string) => void } = {}): Promise<RetentionPass> {
  const now = options.now ?? new Date();
  const [retentionDays, endTimeoutMinutes, conversationDays] = await Promise.all([
    readSystemSetting(ctx.db, 'reports_retention_days'),
    readSystemSetting(ctx.db, 'voice_session_end_timeout_minutes'),
    readSystemSetting(ctx.db, 'conversations_retention_days'),
  ]);
  // Calls whose provider never told their end, from the channels that can ask it (Twilio).
  const lost: string[] = [];
  for (const channel of ctx.channels.all()) if (channel.endLostCalls) lost.push(...(await channel.endLostCalls(ctx, now, options.log)));
  const expired = await ctx.sessions.expireStale(new Date(now.getTime() - endTimeoutMinutes * 60_000).toISOString());
  // Placed calls whose end never came are ended with their report (docs/outbound.md).
  await ctx.outboundCalls?.sweepStale(now);
  const pruned = await pruneBefore(ctx, new Date(now.getTime() - retentionDays * 86_400_000).toISOString(), { signal: options.signal });
  const conversationsBefore = new Date(now.getTime() - conversationDays * 86_400_000).toISOString();
  pruned.conversations = await pruneClosedConversations(ctx, conversationsBefore, { lockKey: PRUNE_LOCK_KEY, signal: options.signal });
  return { lost, expired, pruned };
}

/** Starts the job on this instance; stop it before the database closes. */
export function startRetentionJob(ctx: RetentionContext, options: { intervalMs?: number; onError?: (error: unknown) => void; log?: (message: string) => void } = {}): Sweeper {
  return startSweeper((signal) => runRetentionPass(ctx, { signal, log: options.log }), { intervalMs: options.intervalMs ?? RETENTION_INTERVAL_MS, onError: options.onError });
}
