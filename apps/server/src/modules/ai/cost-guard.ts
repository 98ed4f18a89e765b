import type { AiConfig } from '../../config.ts';

/** A session's count is forgotten after this long without a call: sessions end well before (chats time out in minutes). */
const SESSION_IDLE_MS = 6 * 3600_000;
const WINDOW_MS = 60_000;

export type GuardLimits = Pick<AiConfig, 'maxTokensPerSession' | 'callsPerTenantPerMinute'>;

/**
 * The AI cost guard of one server instance: calls a tenant makes in the current minute and tokens
 * a session has used. Counted in memory, so with several instances each enforces the limits on
 * the calls it makes (docs/ai.md).
 */
export function createCostGuard(limits: GuardLimits, now: () => number = Date.now) {
  const tenants = new Map<number, { windowStart: number; calls: number }>();
  const sessions = new Map<string, { tokens: number; lastAt: number }>();

  function forgetIdle(at: number): void {
    for (const [id, usage] of sessions) if (at - usage.lastAt > SESSION_IDLE_MS) sessions.delete(id);
    for (const [id, window] of tenants) if (at - window.windowStart >= WINDOW_MS) tenants.delete(id);
  }

  return {
    /** Takes one call of the tenant's minute; false when the minute's calls or the session's tokens are spent. */
    admit(tenantId: number, sessionId: string): boolean {
      const at = now();
      if (sessions.size + tenants.size > 10_000) forgetIdle(at);
      const used = sessions.get(sessionId);
      if (limits.maxTokensPerSession > 0 && used && used.tokens >= limits.maxTokensPerSession) return false;
      if (limits.callsPerTenantPerMinute > 0) {
        let window = tenants.get(tenantId);
        if (!window || at - window.windowStart >= WINDOW_MS) tenants.set(tenantId, (window = { windowStart: at, calls: 0 }));
        if (window.calls >= limits.callsPerTenantPerMinute) return false;
        window.calls++;
      }
      return true;
    },
    /** The tokens an answer reports having used. */
    spend(sessionId: string, tokens: number): void {
      const used = sessions.get(sessionId) ?? { tokens: 0, lastAt: 0 };
      used.tokens += tokens;
      used.lastAt = now();
      sessions.set(sessionId, used);
    },
  };
}

export type CostGuard = ReturnType<typeof createCostGuard>;
