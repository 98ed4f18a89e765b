import { existsSync } from 'node:fs';
import pg from 'pg';
import { expect, test } from 'vitest';
import { createTestDatabase, startPostgres } from './postgres-server.ts';

test('starts a throwaway server, creates and drops a database, cleans up', async () => {
  const server = await startPostgres();
  try {
    expect(server.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
    const db = await createTestDatabase(server.url);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ one: number; db: string }>('SELECT 1 AS one, current_database() AS db');
      expect(rows).toEqual([{ one: 1, db: new URL(db.url).pathname.slice(1) }]);
    } finally {
      await client.end();
    }
    await db.drop();
  } finally {
    await server.stop();
  }
  expect(existsSync(server.dir)).toBe(false);
}, 60_000);
