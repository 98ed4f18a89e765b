/**
 * `npm run backup -- <file>` and `npm run restore -- <file>` (docs/backups.md): they read the
 * server's environment (DATABASE_URL, DATA_DIR, MASTER_KEY); a relative <file> is taken from where
 * npm was run.
 */
import path from 'node:path';
import { loadConfig } from '../config.ts';
import { backup, BackupError, restore } from '../db/backup.ts';
import { sqliteFileOf } from '../db/database.ts';

const usage = 'usage: npm run backup -- <file> | npm run restore -- <file>';

async function main(argv: string[]): Promise<void> {
  const [command, file, ...rest] = argv;
  if ((command !== 'backup' && command !== 'restore') || !file || rest.length > 0) throw new BackupError(usage);
  const config = loadConfig();
  // npm runs the workspace's script in apps/server; INIT_CWD is where it was typed.
  const where = path.resolve(process.env.INIT_CWD ?? process.cwd(), file);
  if (command === 'backup') {
    const { masterKeyIncluded } = await backup(config, where);
    process.stdout.write(
      `backed up ${sqliteFileOf(config)} to ${file}${masterKeyIncluded ? ' with its master key: keep the file as secret as DATA_DIR' : '; the master key is MASTER_KEY, keep it apart'}\n`,
    );
  } else {
    await restore(config, where);
    process.stdout.write(`restored ${file} into ${sqliteFileOf(config)}\n`);
  }
}

try {
  await main(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof BackupError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 2;
}
