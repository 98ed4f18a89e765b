import {
  type ChatTarget,
  chatTargetOf,
  type Destination,
  type DestinationKind,
  destinationCreateSchema,
  destinationSchema,
  destinationUpdateSchema,
  destinationUriMessage,
  isValidDestinationUri,
} from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { badRequest } from '../../errors.ts';
import { defineResource, memberKeptTenantRecords, type Row, tenantRecordFields, type WriteContext } from '../../resources/definition.ts';
import { servesTenant } from '../conversations/agents.ts';
import { assertNotReferenced } from '../visual-plans/plan-references.ts';

/** The agents a queue may name: those who serve its tenant (conversations/agents.ts). */
async function assertAgentsOfTenant(db: Kysely<Database>, tenantId: number, agentIds: readonly number[]): Promise<void> {
  const unique = [...new Set(agentIds)];
  if (unique.length === 0) return;
  const found = await db
    .selectFrom('user_roles')
    .select('user_id')
    .distinct()
    .where('user_id', 'in', unique)
    .where(servesTenant(tenantId))
    .execute();
  const known = new Set(found.map((row) => row.user_id));
  const strangers = unique.filter((id) => !known.has(id));
  if (strangers.length > 0) throw badRequest('agent_not_in_tenant', strangers.map((id) => ({ path: `agent_ids.${agentIds.indexOf(id)}`, message: `user ${id} is not a user of this tenant` })));
}

/** The users serving each queue of `rows`, in one query. */
async function agentsOf(db: Kysely<Database>, rows: readonly Row[]): Promise<Map<number, number[]>> {
  const ids = rows.filter((row) => row.chat_target === 'queue').map((row) => row.id);
  const agents = new Map<number, number[]>();
  if (ids.length === 0) return agents;
  const found = await db.selectFrom('destination_agents').select(['destination_id', 'user_id']).where('destination_id', 'in', ids).orderBy('user_id').execute();
  for (const { destination_id, user_id } of found) agents.set(destination_id, [...(agents.get(destination_id) ?? []), user_id]);
  return agents;
}

/**
 * The destination as it will be once the input is applied (a patch may send one field alone):
 * its URI must suit its kind and chat target, and a queue must have agents of its tenant.
 * Answers the columns to write; `agent_ids` is written by afterWrite.
 */
async function destinationValues(input: Record<string, unknown>, write: WriteContext, before?: Row): Promise<Record<string, unknown>> {
  const { agent_ids: agentInput, ...columns } = input as Record<string, unknown> & { agent_ids?: number[] };
  const kind = (input.kind ?? before?.kind) as DestinationKind;
  const target = chatTargetOf(kind, (input.chat_target ?? (input.kind === undefined || input.kind === before?.kind ? before?.chat_target : undefined)) as ChatTarget | null | undefined);
  const uri = (input.uri ?? before?.uri ?? '') as string;
  if (before && !isValidDestinationUri(kind, uri, target)) throw badRequest('invalid_input', [{ path: 'uri', message: destinationUriMessage(kind, target) }]);
  if (target === 'queue') {
    const agentIds = agentInput ?? (before ? (await agentsOf(write.trx, [before])).get(before.id) ?? [] : []);
    if (agentIds.length === 0) throw badRequest('queue_has_no_agents', [{ path: 'agent_ids', message: 'a queue needs at least one agent' }]);
    const tenantId = (before?.tenant_id as number | undefined) ?? write.scope.tenantId!;
    await assertAgentsOfTenant(write.trx, tenantId, agentIds);
  } else if (agentInput !== undefined && agentInput.length > 0) {
    throw badRequest('invalid_input', [{ path: 'agent_ids', message: 'only a chat queue has agents' }]);
  }
  return { ...columns, chat_target: target };
}

const isQueue = (row: Row): boolean => row.chat_target === 'queue';
/**
 * A destination that is no chat queue, as the client sees it: it has no agents. The row is
 * completed in place (present's rows are the caller's own, fresh from the database): a copy of
 * each row cost about 2 µs, 50 for a page of 25 (issue 40).
 */
const withoutAgents = (row: Row): Destination => {
  row.agent_ids = [];
  return row as unknown as Destination;
};

export const destinationsResource = defineResource({
  entity: 'destination',
  path: '/destinations',
  table: 'destinations',
  ...memberKeptTenantRecords,
  fields: {
    ...tenantRecordFields,
    name: 'string',
    kind: 'string',
    uri: 'string',
    description: 'string',
    chat_target: 'string',
    closing_message_en: 'string',
    closing_message_pt: 'string',
  },
  defaultOrder: [{ field: 'name', direction: 'asc' }],
  output: destinationSchema,
  createInput: destinationCreateSchema,
  updateInput: destinationUpdateSchema,
  unique: [{ columns: ['tenant_id', 'uri'], code: 'uri_already_exists' }],
  toValues: (input, write, before) => destinationValues(input, write, before),
  async afterWrite(id, input, { trx }, { values, before }) {
    // destinationValues writes the chat target every time: no need to read it back (issue 40).
    const target = 'chat_target' in values ? values.chat_target : (await trx.selectFrom('destinations').select('chat_target').where('id', '=', id).executeTakeFirstOrThrow()).chat_target;
    // A destination that is no longer a queue keeps no agents. Only a queue has any (this hook sees
    // to it, and a removed row's go with it), so one that was none before, or is new, has none to remove.
    if (target !== 'queue') {
      if (before?.chat_target === 'queue') await trx.deleteFrom('destination_agents').where('destination_id', '=', id).execute();
      return;
    }
    const agentIds = input.agent_ids as number[] | undefined;
    if (agentIds === undefined) return;
    await trx.deleteFrom('destination_agents').where('destination_id', '=', id).execute();
    await trx
      .insertInto('destination_agents')
      .values([...new Set(agentIds)].map((userId) => ({ destination_id: id, user_id: userId })))
      .execute();
  },
  present(rows, db): Promise<Destination[]> | Destination[] {
    // Most destinations are not chat queues: their answer needs no query, nor the promise of one,
    // nor the closures made anew on each call (issue 40).
    if (!rows.some(isQueue)) return rows.map(withoutAgents);
    return agentsOf(db, rows).then((agents) => rows.map((row) => ({ ...(row as unknown as Omit<Destination, 'agent_ids'>), agent_ids: agents.get(row.id) ?? [] })));
  },
  readTables: ['destination_agents'],
  // A plan's destination block dials it: not removable while a plan's draft or published version names it.
  inUseCode: 'destination_in_use',
  beforeDelete: (rows, write) => assertNotReferenced(write, 'destination', rows, 'destination_in_use'),
});
