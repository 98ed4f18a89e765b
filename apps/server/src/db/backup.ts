/**
 * Backups of a SQLite installation (docs/backups.md; the commands are src/cli/backup.ts): copied
 * while it serves, and brought back into an empty DATA_DIR.
 *
 * The copy is made with SQLite's online backup API (better-sqlite3's `backup`) in one step: a read
 * transaction on the WAL database, so the server's writes go on meanwhile and the copy is the
 * database as one commit left it. The backup is one SQLite file: the copy, plus a table
 * `voxplan_backup` holding the master key the data is encrypted with (DATA_DIR/master.key), unless
 * MASTER_KEY is set (then it is kept apart, wherever the operator keeps MASTER_KEY). The file is
 * as secret as DATA_DIR: it is written readable by its owner only.
 */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import type { Config } from '../config.ts';
import { isPostgresUrl, sqliteFileOf } from './database.ts';
import { masterKeyFileOf, parseMasterKey } from '../lib/keys.ts';

/** A backup or restore that cannot be done, and why: said to the operator as it is. */
export class BackupError extends Error {}

const BACKUP_TABLE = 'voxplan_backup';
const BACKUP_FORMAT = '1';
/** The most pages better-sqlite3 lets one backup step copy: all that remain. */
const ALL_PAGES = 0x7fffffff;

function sqliteOnly(config: Config, command: string): string {
  if (isPostgresUrl(config.databaseUrl)) throw new BackupError(`${command} is for SQLite; DATABASE_URL is PostgreSQL: use pg_dump and pg_restore (docs/backups.md)`);
  return sqliteFileOf(config);
}

export async function backup(config: Config, target: string): Promise<{ masterKeyIncluded: boolean }> {
  const database = sqliteOnly(config, 'backup');
  if (!fs.existsSync(database)) throw new BackupError(`no database at ${database} (DATA_DIR, DATABASE_URL)`);
  let masterKey: string | undefined;
  if (!config.masterKey) {
    const keyFile = masterKeyFileOf(config.dataDir);
    if (!fs.existsSync(keyFile)) throw new BackupError(`no master key at ${keyFile} and MASTER_KEY is not set: the data could not be read back`);
    masterKey = parseMasterKey(fs.readFileSync(keyFile, 'utf8')).toString('hex');
  }
  if (fs.existsSync(target)) throw new BackupError(`${target} exists: choose another file`);
  const partial = `${target}.partial`;
  fs.rmSync(partial, { force: true });
  const source = new SQLite(database, { fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    // After the first (empty) step, every page in one: a backup left between steps while another
    // process commits starts over, and under steady writes could start over for ever.
    await source.backup(partial, { progress: () => ALL_PAGES });
  } finally {
    source.close();
  }
  const copy = new SQLite(partial);
  try {
    // One self-contained file, with no -wal beside it.
    copy.pragma('journal_mode = DELETE');
    copy.exec(`create table ${BACKUP_TABLE} (name text primary key, value text not null)`);
    const put = copy.prepare(`insert into ${BACKUP_TABLE} (name, value) values (?, ?)`);
    put.run('format', BACKUP_FORMAT);
    put.run('created_time', new Date().toISOString());
    if (masterKey) put.run('master_key', masterKey);
  } finally {
    copy.close();
  }
  fs.chmodSync(partial, 0o600);
  fs.renameSync(partial, target);
  return { masterKeyIncluded: masterKey !== undefined };
}

export async function restore(config: Config, backupFile: string): Promise<void> {
  const database = sqliteOnly(config, 'restore');
  if (!fs.existsSync(backupFile)) throw new BackupError(`no backup at ${backupFile}`);
  const keyFile = masterKeyFileOf(config.dataDir);
  for (const existing of [database, `${database}-wal`, ...(config.masterKey ? [] : [keyFile])]) {
    if (fs.existsSync(existing)) throw new BackupError(`${existing} exists: a backup is restored into an empty DATA_DIR (move the current one away first)`);
  }
  const rows = (() => {
    const reader = new SQLite(backupFile, { readonly: true, fileMustExist: true });
    try {
      return new Map((reader.prepare(`select name, value from ${BACKUP_TABLE}`).all() as Array<{ name: string; value: string }>).map((row) => [row.name, row.value]));
    } catch {
      throw new BackupError(`${backupFile} is not a Voxplan backup (npm run backup)`);
    } finally {
      reader.close();
    }
  })();
  if (rows.get('format') !== BACKUP_FORMAT) throw new BackupError(`${backupFile} is a backup of format ${rows.get('format') ?? '?'}; this version reads ${BACKUP_FORMAT}`);
  const storedKey = rows.get('master_key');
  if (!storedKey && !config.masterKey) throw new BackupError('the backup holds no master key (it was made with MASTER_KEY set): set MASTER_KEY to the same key');
  if (storedKey && config.masterKey && parseMasterKey(config.masterKey).toString('hex') !== storedKey) {
    throw new BackupError('MASTER_KEY is not the key the backup was made with: its secrets could not be read');
  }
  fs.mkdirSync(path.dirname(database), { recursive: true });
  const partial = `${database}.partial`;
  fs.copyFileSync(backupFile, partial);
  const copy = new SQLite(partial);
  try {
    copy.exec(`drop table ${BACKUP_TABLE}`);
    copy.exec('vacuum');
  } finally {
    copy.close();
  }
  fs.chmodSync(partial, 0o600);
  if (storedKey && !config.masterKey) fs.writeFileSync(keyFile, `${storedKey}\n`, { mode: 0o600, flag: 'wx' });
  fs.renameSync(partial, database);
}

