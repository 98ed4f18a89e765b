/**
 * `npm run set-password -- <username> [--generate]`: gives a user a new password from the server's
 * shell, for whoever lost the administrator's generated one. It reads the same environment as the
 * server (DATABASE_URL, DATA_DIR), so it changes the database the server uses. The password is
 * asked twice without echo on a terminal, read from the first line of standard input when piped,
 * or generated and printed with --generate; never taken from the command line, where the shell's
 * history and the process list would keep it.
 */
import { passwordMinLength, passwordSchema } from '@voxplan/contracts';
import { type Config, loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { randomToken } from '../lib/keys.ts';
import { replacePassword } from '../modules/users/user-password.ts';

const usage = 'usage: npm run set-password -- <username> [--generate]';

class CommandError extends Error {}

/** Sets the password of the user named `username`; the database is opened and closed here. */
async function setPassword(config: Config, username: string, password: string): Promise<void> {
  const checked = passwordSchema.safeParse(password);
  if (!checked.success) throw new CommandError(`the password needs ${passwordMinLength} to 200 characters`);
  const handle = openDatabase(config);
  try {
    await migrateToLatest(handle.db, handle.dialect);
    const user = await handle.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirst();
    if (!user) throw new CommandError(`no user is named "${username}" (names are case-sensitive)`);
    // Written by nobody who signed in: the audit log shows the change with no user and no address.
    await replacePassword(handle.db, { actor: { userId: null, username: null }, sourceIp: null }, user.id, password);
  } finally {
    await handle.close();
  }
}

async function readLine(input: NodeJS.ReadStream): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

/** Reads a line from the terminal without showing it. */
async function askHidden(question: string): Promise<string> {
  const { stdin, stderr } = process;
  stderr.write(question);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  try {
    let answer = '';
    for await (const chunk of stdin) {
      for (const char of String(chunk)) {
        if (char === '\r' || char === '\n') return answer;
        if (char === '\u0003') throw new CommandError('cancelled');
        answer = char === '\u007f' || char === '\b' ? answer.slice(0, -1) : answer + char;
      }
    }
    return answer;
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    stderr.write('\n');
  }
}

async function obtainPassword(shouldGenerate: boolean): Promise<{ password: string; isGenerated: boolean }> {
  if (shouldGenerate) return { password: randomToken(12), isGenerated: true };
  if (!process.stdin.isTTY) return { password: await readLine(process.stdin), isGenerated: false };
  const password = await askHidden('New password: ');
  if ((await askHidden('Again: ')) !== password) throw new CommandError('the two passwords differ');
  return { password, isGenerated: false };
}

async function main(args: string[]): Promise<number> {
  const shouldGenerate = args.includes('--generate');
  const names = args.filter((arg) => arg !== '--generate');
  if (names.length !== 1 || names[0]!.startsWith('-')) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  const username = names[0]!;
  try {
    const { password, isGenerated } = await obtainPassword(shouldGenerate);
    await setPassword(loadConfig(), username, password);
    process.stdout.write(`The password of ${username} is changed; every sign-in of that user was ended.\n`);
    if (isGenerated) process.stdout.write(`\n  Password: ${password}\n\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`set-password: ${error instanceof CommandError ? error.message : String(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
