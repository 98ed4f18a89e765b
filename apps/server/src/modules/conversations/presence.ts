/**
 * Agents' presence (docs/conversations.md): online, away or offline per tenant, kept fresh by their
 * console's stream; a queue counts only the agents online now.
 */
import type { Agent, AgentStatus } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { nowIso } from '../../lib/time.ts';
import { servesTenant } from './agents.ts';
import type { ConversationContext } from './conversation-records.ts';

/**
 * An agent shown online whose console has said nothing for this long is taken as gone (a server
 * that stopped without closing its streams): a stream refreshes its agent's presence far more often.
 */
export const PRESENCE_STALE_MS = 90_000;

/** Agents of the queue who are online now (not away, their console open). */
export async function agentsOnline(db: Kysely<Database>, tenantId: number, destinationIds: readonly number[], now = Date.now()): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  if (destinationIds.length === 0) return counts;
  const rows = await db
    .selectFrom('destination_agents as a')
    .innerJoin('agent_presence as p', (join) => join.onRef('p.user_id', '=', 'a.user_id').on('p.tenant_id', '=', tenantId))
    .select(['a.destination_id', (eb) => eb.fn.countAll<string | number>().as('count')])
    .where('a.destination_id', 'in', destinationIds)
    .where('p.status', '=', 'online')
    .where('p.updated_at', '>=', new Date(now - PRESENCE_STALE_MS).toISOString())
    .groupBy('a.destination_id')
    .execute();
  for (const row of rows) counts.set(row.destination_id, Number(row.count));
  return counts;
}

/** The agent's presence in the scope's tenant: offline until they say otherwise (or their console's presence went stale). */
export async function presenceOf(ctx: Pick<ConversationContext, 'db'>, userId: number, tenantId: number): Promise<AgentStatus> {
  const row = await ctx.db.selectFrom('agent_presence').select(['status', 'updated_at']).where('user_id', '=', userId).where('tenant_id', '=', tenantId).executeTakeFirst();
  return statusOf(row?.status ?? null, row?.updated_at ?? null, Date.now());
}

/** A stored presence as it stands `now`: none is offline, and so is an online one gone stale. */
function statusOf(status: AgentStatus | null, updatedAt: string | null, now: number): AgentStatus {
  if (status === null || updatedAt === null) return 'offline';
  if (status === 'online' && updatedAt < new Date(now - PRESENCE_STALE_MS).toISOString()) return 'offline';
  return status;
}

/**
 * Everyone who may answer the tenant's chats (its users and the administrators), by name, with
 * their presence there: what a queue's agent picker and a transfer to a person offer, to every
 * user of the tenant (only administrators may list users).
 */
export async function listAgents(ctx: Pick<ConversationContext, 'db'>, tenantId: number): Promise<Agent[]> {
  const now = Date.now();
  const rows = await ctx.db
    .selectFrom('users as u')
    .leftJoin('agent_presence as p', (join) => join.onRef('p.user_id', '=', 'u.id').on('p.tenant_id', '=', tenantId))
    .select(['u.id', 'u.name', 'u.username', 'p.status', 'p.updated_at'])
    .where('u.id', 'in', (eb) => eb.selectFrom('user_roles').select('user_id').where(servesTenant(tenantId)))
    .orderBy('u.name')
    .orderBy('u.id')
    .execute();
  return rows.map((row) => ({ id: row.id, name: row.name || row.username, status: statusOf(row.status, row.updated_at, now) }));
}

/** Answers the stamp it wrote (`updated_at`). */
export async function setPresence(ctx: Pick<ConversationContext, 'db'>, userId: number, tenantId: number, status: AgentStatus): Promise<string> {
  const updated_at = nowIso();
  await ctx.db
    .insertInto('agent_presence')
    .values({ user_id: userId, tenant_id: tenantId, status, updated_at })
    .onConflict((oc) => oc.columns(['user_id', 'tenant_id']).doUpdateSet({ status, updated_at }))
    .execute();
  return updated_at;
}

/**
 * How long a console whose stream ended with its token's expiry has to open it again (it does so
 * at once, with a refreshed token) before its agent is taken as gone.
 */
export const PRESENCE_RECONNECT_GRACE_MS = 15_000;

/**
 * An online agent whose console's stream ended with its token, `stamp` the last presence that
 * stream wrote: offline now, unless a console of theirs said something since (a stream opened or
 * pinged, on any instance, wrote another stamp). Stamps are compared, not clocks, so instances
 * whose clocks differ do not decide it.
 */
export async function offlineUnlessBack(ctx: Pick<ConversationContext, 'db'>, userId: number, tenantId: number, stamp: string): Promise<void> {
  await ctx.db
    .updateTable('agent_presence')
    .set({ status: 'offline', updated_at: nowIso() })
    .where('user_id', '=', userId)
    .where('tenant_id', '=', tenantId)
    .where('status', '=', 'online')
    .where('updated_at', '=', stamp)
    .execute();
}

/** Keeps an online agent's presence fresh while their console's stream is open; leaves an away one alone. */
export async function refreshPresence(ctx: Pick<ConversationContext, 'db'>, userId: number, tenantId: number): Promise<string> {
  const updated_at = nowIso();
  await ctx.db.updateTable('agent_presence').set({ updated_at }).where('user_id', '=', userId).where('tenant_id', '=', tenantId).execute();
  return updated_at;
}
