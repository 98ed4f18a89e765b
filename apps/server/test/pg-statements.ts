import pg from 'pg';
import { SYNC_PING_TEXT } from '../src/db/pg-statements.ts';

/**
 * The text of every statement sent to PostgreSQL while `work` runs, the instance bus's pings and
 * notifications left out: what a request costs in round trips.
 */
export async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const texts: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function recorded(this: pg.Client, ...args: unknown[]) {
    const [config] = args;
    texts.push(typeof config === 'string' ? config : String((config as { text?: unknown } | undefined)?.text ?? ''));
    return (query as (...rest: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await work();
  } finally {
    pg.Client.prototype.query = query;
  }
  return texts.filter((text) => text !== SYNC_PING_TEXT && !text.includes('pg_notify'));
}
