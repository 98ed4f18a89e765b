import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const execFileAsync = promisify(execFile);

export interface PostgresServer {
  url: string;
  /** Temp directory holding the cluster and its socket; removed by stop(). */
  dir: string;
  stop(): Promise<void>;
  /** Stops the server (fast: its connections are terminated) and keeps its data, for start() (fault tests). */
  halt(): Promise<void>;
  /** Starts the server halt() stopped, and waits until it accepts connections. */
  start(): Promise<void>;
  /** The server's processes (the postmaster and its children), to pause with SIGSTOP and resume with SIGCONT. */
  pids(): Promise<number[]>;
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

function findBinDir(): string {
  const fromEnv = process.env.PG_BIN;
  if (fromEnv) {
    if (!existsSync(join(fromEnv, 'initdb'))) throw new Error(`PG_BIN=${fromEnv} does not contain initdb`);
    return fromEnv;
  }
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+(\.\d+)?$/.test(v) && existsSync(join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], 'bin');
  }
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
    if (existsSync(join(dir, 'initdb'))) return dir;
  } catch {
    // pg_config missing: fall through to the error below
  }
  throw new Error('PostgreSQL binaries not found: install the postgresql package or set PG_BIN');
}

/**
 * Why startPostgres cannot run on this machine (its binaries are not installed), or undefined when
 * it can: for tests outside the postgres project, which start their own server.
 */
export function postgresMissing(): string | undefined {
  try {
    findBinDir();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('could not allocate a port'))));
    });
  });
}

async function waitForConnection(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`PostgreSQL did not accept connections within ${timeoutMs} ms`, { cause: error });
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = findBinDir();
  // initdb and postgres refuse to run as root, so drop to the postgres system user.
  const asRoot = process.getuid?.() === 0;
  const dir = await mkdtemp(join(tmpdir(), 'pg-test-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'postgres.log');

  const run = async (tool: string, args: string[]): Promise<void> => {
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), args];
    try {
      // cwd: the postgres user may not be able to read the caller's cwd (e.g. /root).
      await execFileAsync(cmd, argv, { cwd: dir });
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? '';
      const log = await readFile(logFile, 'utf8').catch(() => '');
      throw new Error(`${tool} failed: ${stderr.trim()}${log ? `\n--- ${logFile} ---\n${log.slice(-2000)}` : ''}`, { cause: error });
    }
  };

  let started = false;
  const stop = async (): Promise<void> => {
    try {
      if (started) await run('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w']);
      started = false;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  try {
    if (asRoot) {
      try {
        await execFileAsync('chown', ['postgres:', dir]);
      } catch (error) {
        throw new Error('Running as root but could not chown the data dir to the "postgres" user: install the postgresql package', { cause: error });
      }
    }
    // --auth=trust applies to local sockets and the loopback host lines initdb writes; nothing else is listed.
    await run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions']);
    const port = await freePort();
    // Settings go in the config file rather than `pg_ctl -o`, which passes them through a shell.
    const settings = {
      listen_addresses: '127.0.0.1',
      port: String(port),
      unix_socket_directories: dir,
      fsync: 'off',
      synchronous_commit: 'off',
      full_page_writes: 'off',
    };
    const conf = Object.entries(settings).map(([k, v]) => `${k} = '${v.replaceAll("'", "''")}'`).join('\n');
    await appendFile(join(dataDir, 'postgresql.conf'), `\n${conf}\n`);
    // -l is required: without it postgres inherits our stdio pipes and execFile never returns.
    await run('pg_ctl', ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '30']);
    started = true;
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    await waitForConnection(url, 30_000);
    const halt = async () => {
      await run('pg_ctl', ['stop', '-D', dataDir, '-m', 'fast', '-w']);
      started = false;
    };
    const start = async () => {
      await run('pg_ctl', ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '30']);
      started = true;
      await waitForConnection(url, 30_000);
    };
    const pids = async () => {
      const postmaster = Number((await readFile(join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
      const { stdout } = await execFileAsync('ps', ['-o', 'pid=', '--ppid', String(postmaster)]);
      return [postmaster, ...stdout.split('\n').map((line) => Number(line.trim())).filter((pid) => pid > 0)];
    };
    return { url, dir, stop, halt, start, pids };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

export async function createTestDatabase(adminUrl: string): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    // WITH (FORCE) terminates remaining connections first (PostgreSQL 13+).
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
