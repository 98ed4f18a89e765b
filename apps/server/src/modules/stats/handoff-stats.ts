/**
 * The hand-offs to people over a period, per queue and per agent (docs/handoff.md, "Outcomes";
 * docs/api.md, "Statistics"). Read from the conversations themselves, not the rollups: a
 * conversation changes (taken, closed) long after its session's hour, and what waits now counts.
 */
import type { HandOffFigures, StatsHandOffs } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

interface HandOffRow {
  destination_id: number | null;
  agent_id: number | null;
  status: 'waiting' | 'open' | 'closed';
  outcome: string | null;
  created_at: string;
  taken_at: string | null;
  closed_at: string | null;
}

const seconds = (from: string, to: number): number => Math.max(0, (to - Date.parse(from)) / 1000);

/** The figures of a group of hand-offs, waits still running counted up to `now`. */
export function handOffFiguresOf(rows: readonly HandOffRow[], now: number): HandOffFigures {
  const waits: number[] = [];
  const handlings: number[] = [];
  const count = (outcomes: readonly string[]) => rows.filter((row) => row.outcome !== null && outcomes.includes(row.outcome)).length;
  for (const row of rows) {
    // Nobody online: the chat never waited.
    if (row.outcome !== 'busy') {
      const end = row.taken_at ?? row.closed_at;
      waits.push(seconds(row.created_at, end === null ? now : Date.parse(end)));
    }
    if (row.taken_at !== null && row.closed_at !== null) handlings.push(seconds(row.taken_at, Date.parse(row.closed_at)));
  }
  const average = (values: readonly number[]) => (values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length);
  return {
    handoffs: rows.length,
    taken: rows.filter((row) => row.taken_at !== null).length,
    resolved: count(['resolved']),
    back_to_plan: count(['back_to_plan']),
    missed: count(['busy', 'no_answer']),
    abandoned: count(['abandoned']),
    waiting_now: rows.filter((row) => row.status === 'waiting').length,
    open_now: rows.filter((row) => row.status === 'open').length,
    average_wait_s: average(waits),
    longest_wait_s: waits.length === 0 ? null : Math.round(Math.max(...waits)),
    average_handling_s: average(handlings),
  };
}

/**
 * The period's hand-offs (those that reached a queue or desk in it) and every one waiting or held
 * now, of the tenant (undefined: every tenant), grouped by the queue and the agent named.
 */
export async function handOffStats(db: Kysely<Database>, tenantId: number | undefined, from: string, to: string, now = Date.now()): Promise<StatsHandOffs> {
  let query = db
    .selectFrom('conversations as c')
    .leftJoin('destinations as d', 'd.id', 'c.destination_id')
    .leftJoin('users as u', 'u.id', 'c.agent_id')
    .select(['c.destination_id', 'c.agent_id', 'c.status', 'c.outcome', 'c.created_at', 'c.taken_at', 'c.closed_at', 'd.name as queue_name', 'u.name as agent_name'])
    .where((eb) => eb.or([eb.and([eb('c.created_at', '>=', from), eb('c.created_at', '<', to)]), eb('c.status', '<>', 'closed')]));
  if (tenantId !== undefined) query = query.where('c.tenant_id', '=', tenantId);
  const rows = await query.execute();
  const grouped = <K extends 'destination_id' | 'agent_id'>(key: K, nameOf: (row: (typeof rows)[number]) => string | null) => {
    const groups = new Map<number, { name: string; rows: HandOffRow[] }>();
    for (const row of rows) {
      const id = row[key];
      const name = nameOf(row);
      if (id === null || name === null) continue;
      const group = groups.get(id) ?? { name, rows: [] };
      group.rows.push(row);
      groups.set(id, group);
    }
    return [...groups]
      .map(([id, group]) => ({ id, name: group.name, figures: handOffFiguresOf(group.rows, now) }))
      .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
  };
  return {
    at: new Date(now).toISOString(),
    totals: handOffFiguresOf(rows, now),
    queues: grouped('destination_id', (row) => row.queue_name),
    agents: grouped('agent_id', (row) => row.agent_name),
  };
}
