/**
 * What one statement costs the Node server through `pg` (issue 40): `npx tsx bench/channels/pg-statements.ts`
 * (bench/README.md, "PostgreSQL ÷ SQLite"). A throwaway PostgreSQL server; a turn's two statements
 * (the session's read, ten columns with a 2 KB state, and an update) and the instance bus's ping,
 * each sent 8,000 times through `pg`'s own Query (`pool.query` with a name, `SELECT 1`) and through
 * db/pg-statements.ts (`runNamed`, `syncPing`), 16 at a time (the ping one at a time, as the bus
 * sends it), three rounds. The figure is this process's CPU (user + system) a statement: steadier
 * on a shared machine than a whole call's, which moves with how fast PostgreSQL answers.
 */
import pg from 'pg';
import { startPostgres } from '../../apps/server/test/postgres-server.ts';
import { runNamed, syncPing } from '../../apps/server/src/db/pg-statements.ts';

const server = await startPostgres();
const pool = new pg.Pool({ connectionString: server.url, max: 10 });
await pool.query(`create table s (id text primary key, tenant_id integer, plan_id integer, is_draft integer, is_test integer, status text, state text, revision integer, timeout_time text, updated_time text)`);
const state = JSON.stringify({ blocks: Array.from({ length: 40 }, (_, i) => ({ id: `node-${i}`, value: 'x'.repeat(30) })) });
for (let i = 0; i < 100; i++) await pool.query('insert into s values ($1, 1, 2, 0, 0, $2, $3, 5, null, $4)', [`id${i}`, 'running', state, new Date().toISOString()]);
const text = 'select "id", "tenant_id", "plan_id", "is_draft", "is_test", "status", "state", "revision", "timeout_time", (select 1) as "outcome" from "s" where "id" = $1';
const update = 'update s set revision = revision + 1, updated_time = $2 where id = $1';
type Run = (i: number) => Promise<unknown>;
const oldRead: Run = (i) => pool.query({ name: 'r', text, values: [`id${i % 100}`] });
const newRead: Run = (i) => runNamed(pool, text, 'r2', [`id${i % 100}`]);
const oldWrite: Run = (i) => pool.query({ name: 'w', text: update, values: [`id${i % 100}`, new Date().toISOString()] });
const newWrite: Run = (i) => runNamed(pool, update, 'w2', [`id${i % 100}`, new Date().toISOString()]);
const bus = new pg.Client({ connectionString: server.url });
await bus.connect();
const oldPing: Run = () => bus.query('SELECT 1');
const newPing: Run = () => syncPing(bus);
async function measure(name: string, run: Run, total: number, inFlight: number) {
  let next = 0;
  const before = process.cpuUsage();
  const t = performance.now();
  await Promise.all(Array.from({ length: inFlight }, async () => { while (next < total) await run(next++); }));
  const cpu = process.cpuUsage(before);
  console.log(`${name.padEnd(10)} ${((cpu.user + cpu.system) / total).toFixed(1)} µs CPU each (user ${(cpu.user / total).toFixed(1)}, sys ${(cpu.system / total).toFixed(1)}), ${(total / ((performance.now() - t) / 1000)).toFixed(0)}/s`);
}
for (let round = 0; round < 3; round++) {
  for (const [name, run, inFlight] of [['read old', oldRead, 16], ['read new', newRead, 16], ['write old', oldWrite, 16], ['write new', newWrite, 16], ['ping old', oldPing, 1], ['ping new', newPing, 1]] as const) await measure(name, run, 8000, inFlight);
}
await bus.end();
await pool.end();
await server.stop();
