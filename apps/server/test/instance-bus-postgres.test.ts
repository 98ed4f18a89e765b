/**
 * The instance bus on PostgreSQL (db/instance-bus.ts), between instances on one database: the
 * order of its messages, who counts as listening, and its listening connection cut and back.
 * Whole server processes on one database: instances.test.ts.
 */
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { openDatabase } from '../src/db/database.ts';
import { BUS_APPLICATION_NAME, createPostgresBus, type PostgresBus, type PostgresBusOptions } from '../src/db/instance-bus.ts';
import { dialect, startTestServer, type TestServer } from './harness.ts';
import type { Cleanups } from './server-process.ts';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe.runIf(dialect === 'postgres')('the bus between instances', () => {
  test('messages published together arrive in order, equal ones too', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.close());
    const other = openDatabase({ databaseUrl: server.config.databaseUrl, dataDir: server.config.dataDir });
    cleanups.push(() => other.close());
    await other.ready;
    const heard: unknown[] = [];
    cleanups.push(other.bus.subscribe('test', (message) => heard.push(message)));
    // PostgreSQL folds equal notifications of one transaction into one, and a batch is one.
    for (const message of [{ n: 1 }, { n: 1 }, { n: 2 }, { n: 1 }]) server.ctx.bus.publish('test', message);
    await expect.poll(() => heard).toEqual([{ n: 1 }, { n: 1 }, { n: 2 }, { n: 1 }]);
  });

  /** A bus of its own on the test server's database, closed after the file. */
  async function busOn(server: TestServer, options: Pick<PostgresBusOptions, 'interestRefreshMs' | 'interestLingerMs'>): Promise<PostgresBus> {
    const pool = new pg.Pool({ connectionString: server.config.databaseUrl, max: 2 });
    const bus = createPostgresBus({ connectionString: server.config.databaseUrl!, pool, onWrite: () => {}, onGap: () => {}, ...options });
    cleanups.push(async () => {
      await bus.close();
      await pool.end();
    });
    await bus.ready;
    return bus;
  }

  test('an instance counts a topic as heard only while another listens to it (or lately did), and then publishes to it', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.close());
    const [publisher, listener] = [await busOn(server, { interestRefreshMs: 100, interestLingerMs: 200 }), await busOn(server, { interestRefreshMs: 100, interestLingerMs: 200 })];
    // Nobody listens: a turn's live events would be made and sent for nothing.
    expect(publisher.heard('sessions')).toBe(false);
    const heard: unknown[] = [];
    const stop = listener.subscribe('sessions', (message) => heard.push(message));
    await expect.poll(() => publisher.heard('sessions')).toBe(true);
    expect(publisher.heard('other topic')).toBe(false);
    publisher.publish('sessions', { n: 1 });
    await expect.poll(() => heard).toEqual([{ n: 1 }]);
    // The listener leaves: announced for its linger, then no longer, and its silence is heard.
    stop();
    await expect.poll(() => publisher.heard('sessions'), { timeout: 10_000 }).toBe(false);
  });

  test('an instance that starts late learns at once who listens, without waiting for their next announcement', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.close());
    // Announced again only every hour: what the late one learns comes from its question.
    const listener = await busOn(server, { interestRefreshMs: 3_600_000 });
    cleanups.push(listener.subscribe('sessions', () => {}));
    const late = await busOn(server, { interestRefreshMs: 3_600_000 });
    await expect.poll(() => late.heard('sessions')).toBe(true);
  });
});

describe.runIf(dialect === 'postgres')('the listening connection', () => {
  test('when it is cut, no answer kept before is served, and the cache works again once it is back', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.close());
    const token = await server.login();
    const tenant = await server.call({ method: 'POST', url: '/tenants', token, payload: { name: 'cut' } });
    const tenantId = tenant.json<{ id: number }>().id;
    const created = await server.call({ method: 'POST', url: '/destinations', token, tenant: tenantId, payload: { name: 'cut', kind: 'voice', uri: 'sip:cut@pbx.example.com' } });
    const id = created.json<{ id: number }>().id;
    const description = async () => (await server.call({ method: 'GET', url: `/destinations/${id}`, token, tenant: tenantId })).json<{ description: string }>().description;
    for (let i = 0; i < 3; i++) expect(await description()).toBe('');

    const admin = new pg.Client({ connectionString: server.config.databaseUrl });
    await admin.connect();
    cleanups.push(() => admin.end());
    const cut = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [BUS_APPLICATION_NAME]);
    expect(cut.rowCount).toBe(1);
    // Written while the bus cannot hear them: one before the server reads the record again (and
    // may keep it), one after.
    const write = (text: string) => admin.query('UPDATE destinations SET description = $1 WHERE id = $2', [text, id]);
    await write('while cut');
    expect([await description(), await description()]).toEqual(['while cut', 'while cut']);
    await write('still cut');
    // Back: it listens again (a new backend), and nothing kept before it did is served.
    await expect.poll(async () => (await admin.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [BUS_APPLICATION_NAME])).rowCount).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await description()).toBe('still cut');
    await admin.query('UPDATE destinations SET description = $1 WHERE id = $2', ['after', id]);
    expect(await description()).toBe('after');
  });
});
