/**
 * Who may answer a tenant's chats (docs/conversations.md): its users with the `user` role, and the
 * administrators, who may act in any tenant. Guests only read, so they answer nothing. One
 * predicate for the queue's agents, a transfer's target and the agent list (GET /agents).
 */
import type { ExpressionBuilder } from 'kysely';
import type { Database } from '../../db/schema.ts';

/** A `user_roles` row that lets its user serve `tenantId`. */
export const servesTenant = (tenantId: number) => (eb: ExpressionBuilder<Database, 'user_roles'>) =>
  eb.or([eb('role', '=', 'admin'), eb.and([eb('role', '=', 'user'), eb('tenant_id', '=', tenantId)])]);
