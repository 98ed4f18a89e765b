import { type Kysely, sql } from 'kysely';
import type { AiConfig } from '../../config.ts';
import type { Database } from '../../db/schema.ts';

/** A session's tokens are forgotten after this long without an AI answer: sessions end well before (chats time out in minutes). */
const SESSION_IDLE_MS = 6 * 3600_000;
const MINUTE_MS = 60_000;

export type GuardLimits = Pick<AiConfig, 'maxTokensPerSession' | 'callsPerTenantPerMinute'>;

/**
 * The AI cost guard: the requests a tenant makes in each minute (UTC) and the tokens each session's
 * answers used, counted in the database, so that every instance of one database enforces the same
 * limits: a session's turns go to whichever instance its channel reaches, and a tenant's calls are
 * spread over all of them (docs/ai.md).
 */
export function createCostGuard(db: Kysely<Database>, limits: GuardLimits, now: () => number = Date.now) {
  /** The minute this instance last pruned in: once a minute is enough, and any instance may do it. */
  let prunedMinute = -1;

  async function prune(at: number, minute: number): Promise<void> {
    if (minute === prunedMinute) return;
    prunedMinute = minute;
    await db.deleteFrom('ai_tenant_minutes').where('minute', '<', minute - 1).execute();
    await db
      .deleteFrom('ai_session_tokens')
      .where('updated_time', '<', new Date(at - SESSION_IDLE_MS).toISOString())
      .execute();
  }

  /** Takes one request of the tenant's minute unless the minute's are spent: one statement, so two instances cannot both take the last. */
  async function takeCall(tenantId: number, minute: number): Promise<boolean> {
    const taken = await db
      .insertInto('ai_tenant_minutes')
      .values({ tenant_id: tenantId, minute, calls: 1 })
      .onConflict((conflict) =>
        conflict
          .columns(['tenant_id', 'minute'])
          .doUpdateSet({ calls: sql<number>`ai_tenant_minutes.calls + 1` })
          .where('ai_tenant_minutes.calls', '<', limits.callsPerTenantPerMinute),
      )
      .returning('calls')
      .executeTakeFirst();
    return taken !== undefined;
  }

  return {
    /** Takes one request of the tenant's minute; false when the minute's requests or the session's tokens are spent. */
    async admit(tenantId: number, sessionId: string): Promise<boolean> {
      const at = now();
      const minute = Math.floor(at / MINUTE_MS);
      await prune(at, minute);
      if (limits.maxTokensPerSession > 0) {
        const used = await db.selectFrom('ai_session_tokens').select('tokens').where('session_id', '=', sessionId).executeTakeFirst();
        if (used && used.tokens >= limits.maxTokensPerSession) return false;
      }
      return limits.callsPerTenantPerMinute <= 0 || takeCall(tenantId, minute);
    },
    /** The tokens an answer reports having used. */
    async spend(sessionId: string, tokens: number): Promise<void> {
      if (limits.maxTokensPerSession <= 0 || tokens <= 0) return;
      await db
        .insertInto('ai_session_tokens')
        .values({ session_id: sessionId, tokens, updated_time: new Date(now()).toISOString() })
        .onConflict((conflict) =>
          conflict.column('session_id').doUpdateSet({
            tokens: sql<number>`ai_session_tokens.tokens + excluded.tokens`,
            updated_time: (eb) => eb.ref('excluded.updated_time'),
          }),
        )
        .execute();
    },
  };
}

export type CostGuard = ReturnType<typeof createCostGuard>;
