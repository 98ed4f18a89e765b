/**
 * Backups of a SQLite installation (docs/backups.md): `npm run backup` copies the database of a
 * serving server process while requests write to it, with the master key the server generated;
 * `npm run restore` brings it into an empty DATA_DIR, where every table is as one commit left it
 * and a server started on it reads the stored secrets. PostgreSQL is backed up with pg_dump.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import type { Integrations } from '@voxplan/contracts';
import { afterAll, describe, expect, test } from 'vitest';
import { ADMIN, dialect } from './harness.ts';
import { type Cleanups, createTenantMemberOver, startServerProcess } from './server-process.ts';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const serverDir = path.resolve(import.meta.dirname, '..');
/** `npm run backup|restore -- <file>` as npm runs it: the workspace's script, in apps/server, with the server's environment. */
const command = (name: 'backup' | 'restore', file: string, env: NodeJS.ProcessEnv) =>
  promisify(execFile)('npm', ['run', name, '--', file], { cwd: serverDir, env: { ...process.env, ...env }, encoding: 'utf8' });

/** Every row of every table, in the order written (rowid), or of the primary key for a table without rowids. */
function tablesOf(file: string): Map<string, unknown[]> {
  const db = new SQLite(file, { readonly: true });
  try {
    const names = db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name").pluck().all() as string[];
    const orderOf = (name: string) => {
      const hasRowid = db.prepare("select 1 from sqlite_master where name = ? and sql not like '%without rowid%'").get(name) !== undefined;
      if (hasRowid) return 'rowid';
      const keys = (db.prepare(`select name from pragma_table_info(?) where pk > 0 order by pk`).pluck().all(name) as string[]).map((key) => `"${key}"`);
      return keys.join(', ');
    };
    return new Map(names.map((name) => [name, db.prepare(`select * from "${name}" order by ${orderOf(name)}`).all()]));
  } finally {
    db.close();
  }
}

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe.runIf(dialect === 'sqlite')('npm run backup and npm run restore', () => {
  test('backed up while the server writes, restored into an empty DATA_DIR: every table as one commit left it, the secrets readable', async () => {
    // No MASTER_KEY: the server generates DATA_DIR/master.key, which the backup must carry.
    const server = await startServerProcess(cleanups);
    const dataDir = server.env.DATA_DIR!;
    const { token: admin } = await server.call<{ token: string }>('POST', '/login', ADMIN);
    const member = await createTenantMemberOver(server.call, admin, 'backup');
    await server.call('PATCH', `/tenants/${member.tenantId}/integrations`, { twilio_sid: 'AC00000000000000000000000000000005', twilio_token: 'backed-up-secret' }, admin);

    // The write load: destinations created one after another, each with its audit entry, until told to stop.
    let written = 0;
    let writing = true;
    const load = (async () => {
      while (writing) {
        await server.call('POST', '/destinations', { name: `desk ${written}`, kind: 'voice', uri: `sip:desk${written}@pbx.example.com` }, member.token);
        written++;
      }
    })();
    const writtenAtLeast = async (count: number) => {
      while (written < count) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    await writtenAtLeast(10);
    const file = path.join(tempDir('voxplan-backup-'), 'voxplan.backup');
    const backedUp = await command('backup', file, { DATA_DIR: dataDir });
    expect(backedUp.stdout).toContain('with its master key');
    const afterBackup = written;
    await writtenAtLeast(afterBackup + 10);
    writing = false;
    await load;
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');

    const restoredDir = tempDir('voxplan-restored-');
    await command('restore', file, { DATA_DIR: restoredDir });
    // Into an empty DATA_DIR only: a second restore would overwrite an installation.
    await expect(command('restore', file, { DATA_DIR: restoredDir })).rejects.toMatchObject({ stderr: expect.stringContaining('exists') });
    expect(fs.readFileSync(path.join(restoredDir, 'master.key'), 'utf8')).toBe(fs.readFileSync(path.join(dataDir, 'master.key'), 'utf8'));

    // Every table: the copy holds the rows as they were at one commit during the load. Rows only
    // grew since (destinations and their audit entries), so each table of the copy is the
    // beginning of the same table now, and the written ones stop within the load.
    const source = tablesOf(path.join(dataDir, 'voxplan.db'));
    const restored = tablesOf(path.join(restoredDir, 'voxplan.db'));
    expect([...restored.keys()]).toEqual([...source.keys()]);
    for (const [name, rows] of restored) expect(rows, name).toEqual(source.get(name)!.slice(0, rows.length));
    const desks = restored.get('destinations')!.length;
    expect(desks).toBeGreaterThanOrEqual(10);
    expect(desks).toBeLessThan(source.get('destinations')!.length);
    const grown = [...restored].filter(([name, rows]) => rows.length !== source.get(name)!.length).map(([name]) => name);
    expect(grown).toContain('destinations');

    // A server on the restored DATA_DIR: the administrator signs in, the tenant's secret decrypts with the restored key.
    const restoredServer = await startServerProcess(cleanups, { DATA_DIR: restoredDir });
    const { token } = await restoredServer.call<{ token: string }>('POST', '/login', ADMIN);
    const integrations = await restoredServer.call<Integrations>('GET', `/tenants/${member.tenantId}/integrations`, undefined, token);
    expect(integrations.twilio_token).toMatch(/cret$/);
    const { count } = await restoredServer.call<{ count: number }>('GET', '/destinations/count', undefined, token, { 'x-tenant-id': String(member.tenantId) });
    expect(count).toBe(desks);
  }, 180_000);

  test('refused: a backup over an existing file, PostgreSQL, a file that is not a backup', async () => {
    const dir = tempDir('voxplan-backup-refusals-');
    const taken = path.join(dir, 'taken');
    fs.writeFileSync(taken, 'x');
    const dataDir = tempDir('voxplan-backup-data-');
    await expect(command('backup', taken, { DATA_DIR: dataDir })).rejects.toMatchObject({ stderr: expect.stringContaining('no database') });
    await expect(command('backup', path.join(dir, 'pg.backup'), { DATABASE_URL: 'postgres://localhost/voxplan' })).rejects.toMatchObject({ stderr: expect.stringContaining('pg_dump') });
    await expect(command('restore', taken, { DATA_DIR: tempDir('voxplan-restore-empty-') })).rejects.toMatchObject({ stderr: expect.stringContaining('not a Voxplan backup') });
  }, 120_000);
});
