/**
 * The automatic rollback (docs/rollouts.md, "Automatic rollback"): a running rollout whose rule
 * says so is rolled back by the server when its candidate's goal rate is worse than the base's at
 * 95 % confidence, or when more of its sessions fail than the rule allows. Every instance looks
 * every minute; each rollout is checked by one instance at a time, the one that moves its
 * `auto_rollback_due_time` forward while it still holds what it read (as the WhatsApp template sync
 * claims numbers). The rollback is audited as the server's (no user), and told on the live feed.
 */
import type { Locale, Rollout, RolloutAutoRollbackEvent, RolloutRollbackCause } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import { claimDue } from '../../db/due-claims.ts';
import type { InstanceBus } from '../../db/instance-bus.ts';
import type { Database } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import type { AuditAuthor } from '../../resources/audit.recorder.ts';
import { startSweeper, type Sweeper } from '../sessions/chat-sweeper.ts';
import type { PlanRow } from '../visual-plans/plan-document.ts';
import { type VersionFigures, versionFigures } from './results.ts';
import { compareGoalRates, MIN_SESSIONS_PER_VERSION } from './results-statistics.ts';
import { endRollout } from './rollout-controls.ts';
import type { RolloutRow } from './rollout-rows.ts';

/** How often a rollout's rule is checked: its results change as sessions end, minute by minute. */
export const AUTO_ROLLBACK_INTERVAL_MS = 60_000;
/** The confidence a worse goal rate needs. */
export const GOAL_WORSE_CONFIDENCE = 0.95;
export const ROLLOUTS_TOPIC = 'rollouts';

/** The server, as the audit log names an automatic change: no user, no address. */
const SERVER: AuditAuthor = { actor: { userId: null, username: null }, sourceIp: null };

/** Claims the rollouts whose check is due, each by moving its due time forward only if it still holds the time read. */
export async function claimDueRollouts(db: Kysely<Database>, now: Date): Promise<number[]> {
  const due = await db
    .selectFrom('plan_rollouts')
    .select(['id', 'auto_rollback_due_time'])
    .where('state', '=', 'running')
    .where('auto_rollback', 'is not', null)
    .where((eb) => eb.or([eb('auto_rollback_due_time', 'is', null), eb('auto_rollback_due_time', '<=', now.toISOString())]))
    .orderBy('id')
    .limit(100)
    .execute();
  // A little under the interval: the next look of any instance finds it due.
  const next = new Date(now.getTime() + AUTO_ROLLBACK_INTERVAL_MS - 5_000).toISOString();
  return claimDue(db, 'plan_rollouts', 'auto_rollback_due_time', due.map((rollout) => ({ id: rollout.id, due: rollout.auto_rollback_due_time })), next);
}

const percent = (value: number, locale: Locale): string => `${(value * 100).toLocaleString(locale === 'pt' ? 'pt-BR' : 'en-US', { maximumFractionDigits: 1 })} %`;

/** Why the rule rolls the rollout back, in figures; undefined when it does not. */
export function rollbackCause(rule: NonNullable<Rollout['auto_rollback']>, base: VersionFigures, candidate: VersionFigures): RolloutRollbackCause | undefined {
  if (rule.max_failure_rate !== null && candidate.sessions >= MIN_SESSIONS_PER_VERSION && (candidate.failures / candidate.sessions) * 100 > rule.max_failure_rate) {
    return { rule: 'max_failure_rate', failures: candidate.failures, sessions: candidate.sessions, failure_rate: candidate.failures / candidate.sessions, max_failure_rate: rule.max_failure_rate };
  }
  if (!rule.goal_worse) return undefined;
  const comparison = compareGoalRates(base, candidate);
  if (!comparison.enough_data || comparison.confidence === null || comparison.goal_rate_difference === null) return undefined;
  if (comparison.goal_rate_difference >= 0 || comparison.confidence < GOAL_WORSE_CONFIDENCE) return undefined;
  return { rule: 'goal_worse', candidate_goal_rate: candidate.goal_rate!, base_goal_rate: base.goal_rate!, confidence: comparison.confidence };
}

/** The rollback's note (the rollout's `ended_note`): why, in the tenant's language, naming the plan and the figures. */
export function rollbackNote(cause: RolloutRollbackCause, planName: string, base: VersionFigures, candidate: VersionFigures, locale: Locale): string {
  const pt = locale === 'pt';
  if (cause.rule === 'max_failure_rate') {
    const rate = percent(cause.failure_rate, locale);
    const allowed = percent(cause.max_failure_rate / 100, locale);
    return pt
      ? `Reversão automática de “${planName}”: ${cause.failures} de ${cause.sessions} sessões da versão ${candidate.version} (${rate}) terminaram em erro do motor ou transferência com falha, acima dos ${allowed} permitidos.`
      : `Automatic rollback of “${planName}”: ${cause.failures} of ${cause.sessions} sessions of version ${candidate.version} (${rate}) ended in an engine error or a failed hand-off, above the ${allowed} allowed.`;
  }
  const candidateRate = percent(cause.candidate_goal_rate, locale);
  const baseRate = percent(cause.base_goal_rate, locale);
  const confidence = percent(cause.confidence, locale);
  return pt
    ? `Reversão automática de “${planName}”: a taxa de metas da versão ${candidate.version} foi ${candidateRate} (${candidate.converted} de ${candidate.sessions} sessões) contra ${baseRate} (${base.converted} de ${base.sessions}) da versão ${base.version}, pior com ${confidence} de confiança.`
    : `Automatic rollback of “${planName}”: version ${candidate.version}'s goal rate was ${candidateRate} (${candidate.converted} of ${candidate.sessions} sessions) against ${baseRate} (${base.converted} of ${base.sessions}) for version ${base.version}, worse at ${confidence} confidence.`;
}

interface RollbackMessage {
  tenant_id: number;
  event: RolloutAutoRollbackEvent;
}

/** Checks one claimed rollout; answers the event when it rolled it back. */
async function checkRollout(ctx: AppContext, rolloutId: number): Promise<RolloutAutoRollbackEvent | undefined> {
  const rollout: RolloutRow | undefined = await ctx.db.selectFrom('plan_rollouts').selectAll().where('id', '=', rolloutId).where('state', '=', 'running').executeTakeFirst();
  if (!rollout || rollout.auto_rollback === null) return undefined;
  const rule = JSON.parse(rollout.auto_rollback) as NonNullable<Rollout['auto_rollback']>;
  const tenant = await ctx.db.selectFrom('tenants').select('language').where('id', '=', rollout.tenant_id).executeTakeFirst();
  const locale: Locale = tenant?.language.toLowerCase().startsWith('pt') ? 'pt' : 'en';
  const [base, candidate] = await versionFigures(ctx.db, rollout);
  const plan = await ctx.db.selectFrom('visual_plans').selectAll().where('id', '=', rollout.plan_id).executeTakeFirst();
  if (!plan) return undefined;
  const cause = rollbackCause(rule, base, candidate);
  if (cause === undefined) return undefined;
  const note = rollbackNote(cause, plan.name, base, candidate, locale);
  try {
    const ended = await ctx.db.transaction().execute(async (trx) => {
      const current = (await trx.selectFrom('visual_plans').selectAll().where('id', '=', rollout.plan_id).executeTakeFirstOrThrow()) as PlanRow;
      return endRollout(trx, SERVER, current, 'auto_rollback', note);
    });
    return {
      type: 'rollout.auto_rollback',
      rollout_id: ended.id,
      plan_id: ended.plan_id,
      plan_name: plan.name,
      base_version: ended.base_version,
      candidate_version: ended.candidate_version,
      cause,
      note,
      at: ended.ended_time ?? new Date().toISOString(),
    };
  } catch (error) {
    // A person promoted or rolled it back meanwhile: theirs stands.
    if (error instanceof AppError && error.code === 'rollout_not_found') return undefined;
    throw error;
  }
}

/** One pass: the rollouts this instance claimed, each checked; answers the ids rolled back. */
export async function checkAutoRollbacks(ctx: AppContext, now = new Date()): Promise<number[]> {
  const rolledBack: number[] = [];
  for (const rolloutId of await claimDueRollouts(ctx.db, now)) {
    const event = await checkRollout(ctx, rolloutId);
    if (!event) continue;
    rolledBack.push(rolloutId);
    if (!ctx.bus.heard(ROLLOUTS_TOPIC)) continue;
    const tenantId = (await ctx.db.selectFrom('plan_rollouts').select('tenant_id').where('id', '=', rolloutId).executeTakeFirstOrThrow()).tenant_id;
    ctx.bus.publish(ROLLOUTS_TOPIC, { tenant_id: tenantId, event } satisfies RollbackMessage);
  }
  return rolledBack;
}

/** Calls `listener` with the automatic rollbacks of every instance (of one tenant when given). */
export function subscribeAutoRollbacks(bus: InstanceBus, listener: (event: RolloutAutoRollbackEvent) => void, filter: { tenantId?: number } = {}): () => void {
  return bus.subscribe(ROLLOUTS_TOPIC, (message) => {
    const { tenant_id, event } = message as RollbackMessage;
    if (filter.tenantId === undefined || tenant_id === filter.tenantId) listener(event);
  });
}

/** The check every minute on this instance (main.ts). */
export function startAutoRollback(ctx: AppContext, options: { intervalMs?: number; onError?: (error: unknown) => void } = {}): Sweeper {
  return startSweeper(() => checkAutoRollbacks(ctx), { intervalMs: options.intervalMs ?? AUTO_ROLLBACK_INTERVAL_MS, ...(options.onError && { onError: options.onError }) });
}
