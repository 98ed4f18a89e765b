/**
 * A real Asterisk (22.10.1, built from source by the vendored build.sh) for the tests and the bench:
 * started in the foreground with a private configuration in a temporary folder (its own run, log,
 * spool and database directories), so several may run at once, each talking to its own FastAGI
 * listener. Calls are placed with `channel originate Local/<caller script>@caller extension
 * <number>@ivr`: the Local channel's second half plays the caller (keys, hanging up), the first runs
 * the dialplan that hands the call to Voxplan.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Where build.sh is: ASTERISK_BUILD_SCRIPT, else the shared vendor folder beside the repository
 * (`../shared/vendor/asterisk`, as the issue describes it).
 */
function buildScript(): string | undefined {
  const repo = path.resolve(import.meta.dirname, '../../..');
  const candidates = [process.env.ASTERISK_BUILD_SCRIPT, path.resolve(repo, '../shared/vendor/asterisk/build.sh'), '/work/shared/vendor/asterisk/build.sh'];
  return candidates.find((candidate): candidate is string => candidate !== undefined && candidate !== '' && fs.existsSync(candidate));
}

/**
 * The asterisk binary, built on first use (2-3 minutes on 2 cores, once per machine: later runs find
 * the build). The sqlite and postgres projects may ask at once: `flock` lets one build while the
 * other waits, then finds it. Undefined, with the reason, when there is no build script.
 */
export function asteriskBinary(): { binary: string } | { missing: string } {
  if (process.env.ASTERISK_BINARY) return { binary: process.env.ASTERISK_BINARY };
  const script = buildScript();
  if (!script) return { missing: 'no Asterisk build script (set ASTERISK_BUILD_SCRIPT to vendor/asterisk/build.sh)' };
  const lock = path.join(os.tmpdir(), 'voxplan-asterisk-build.lock');
  const output = execFileSync('flock', [lock, 'bash', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 });
  const binary = output.trim().split('\n').at(-1) ?? '';
  return fs.existsSync(binary) ? { binary } : { missing: `build.sh printed no binary: ${binary}` };
}

/** A free TCP port on loopback (listened on, then released): parallel test files and benches never share one. */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export interface Pbx {
  /** Its folder: etc/, log/, spool/ (MixMonitor writes in spool/monitor/). */
  dir: string;
  /** The asterisk process (the bench reads its CPU time). */
  pid: number;
  monitorDir: string;
  /** A CLI command on the running PBX (`asterisk -C … -rx`); its output. */
  cli(command: string): Promise<string>;
  /** Places a call: the caller's side runs `<caller>@caller`, the call itself `<exten>@ivr`. */
  originate(caller: string, exten: string): Promise<void>;
  /** The full log so far (verbose, with `agi set debug on`: every AGI line sent and received). */
  log(): string;
  /** Polls the log until the pattern appears after `from` (an offset in the log); its match. */
  waitForLog(pattern: RegExp, options?: { from?: number; timeoutMs?: number }): Promise<RegExpExecArray>;
  stop(): Promise<void>;
}

export interface PbxOptions {
  binary: string;
  /** The FastAGI listener calls are handed to. */
  agiPort: number;
  /** Extra contexts of extensions.conf (the callers' scripts `[caller]`, the dial destinations). */
  dialplan: string;
  /** The Manager Interface (AMI), on loopback: off unless given. Its user may read call events and originate. */
  manager?: { port: number; username: string; secret: string };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` gives a value, for up to `timeoutMs` (generous: the machine may be loaded). */
export async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(100);
  }
}

export async function startPbx(options: PbxOptions): Promise<Pbx> {
  const prefix = path.resolve(path.dirname(options.binary), '..');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-pbx-'));
  const sub = (name: string) => {
    const folder = path.join(dir, name);
    fs.mkdirSync(folder, { recursive: true });
    return folder;
  };
  const etc = sub('etc');
  const monitorDir = path.join(sub('spool'), 'monitor');
  fs.mkdirSync(monitorDir);
  const conf = path.join(etc, 'asterisk.conf');
  fs.writeFileSync(
    conf,
    [
      '[directories]',
      `astetcdir => ${etc}`,
      `astmoddir => ${path.join(prefix, 'lib/asterisk/modules')}`,
      `astvarlibdir => ${sub('lib')}`,
      `astdbdir => ${path.join(dir, 'lib')}`,
      `astkeydir => ${path.join(dir, 'lib')}`,
      `astdatadir => ${path.join(dir, 'lib')}`,
      `astagidir => ${sub('agi-bin')}`,
      `astspooldir => ${path.join(dir, 'spool')}`,
      `astrundir => ${sub('run')}`,
      // Where res_http_media_cache keeps the prompts it fetched: its own, not the build's.
      `astcachedir => ${sub('cache')}`,
      `astlogdir => ${sub('log')}`,
      `astsbindir => ${path.dirname(options.binary)}`,
      '[options]',
      'verbose = 3',
      'nocolor = yes',
      // Calls here are many and short; the default would refuse new ones on a loaded machine.
      'minmemfree = 0',
      '',
    ].join('\n'),
  );
  const files: Record<string, string> = {
    'modules.conf': '[modules]\nautoload = yes\n',
    'logger.conf': '[general]\n[logfiles]\nfull => notice,warning,error,verbose\n',
    'extensions.conf': [
      '[general]',
      'static = yes',
      '[globals]',
      `AGIPORT = ${options.agiPort}`,
      // The call as a PBX hands it to Voxplan: the dialled number is the script.
      '[ivr]',
      'exten => _X.,1,AGI(agi://127.0.0.1:${AGIPORT}/${EXTEN})',
      ' same => n,Hangup()',
      // A call the server placed (AMI Originate), once answered: machine detection when asked, then
      // the session's FastAGI with AMD's verdict (docs/channels-asterisk.md, the same snippet).
      '[voxplan-outbound]',
      'exten => s,1,ExecIf($["${VOXPLAN_AMD}" = "yes"]?AMD())',
      ' same => n,AGI(agi://127.0.0.1:${AGIPORT}/outbound/${VOXPLAN_SESSION},${AMDSTATUS})',
      ' same => n,Hangup()',
      options.dialplan,
      '',
    ].join('\n'),
    // Keeps Local channels' audio flowing without a timing source complaint.
    'musiconhold.conf': '[general]\n',
    // AMD() declines to load without its file; its defaults (amd.conf.sample) are what it is tested with.
    'amd.conf': '[general]\n',
    'manager.conf': options.manager
      ? [
          '[general]',
          'enabled = yes',
          `port = ${options.manager.port}`,
          'bindaddr = 127.0.0.1',
          `[${options.manager.username}]`,
          `secret = ${options.manager.secret}`,
          'deny = 0.0.0.0/0.0.0.0',
          'permit = 127.0.0.1/255.255.255.255',
          'read = call',
          'write = originate',
          '',
        ].join('\n')
      : '[general]\nenabled = no\n',
  };
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(etc, name), text);

  const child: ChildProcess = spawn(options.binary, ['-C', conf, '-f', '-n', '-q'], { stdio: 'ignore' });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const cli = async (command: string) => (await run(options.binary, ['-C', conf, '-rx', command], { encoding: 'utf8' })).stdout;
  await until('Asterisk to boot', async () => {
    if (exited) throw new Error('Asterisk exited at start');
    return (await cli('core waitfullybooted').catch(() => undefined))?.includes('fully booted') ? true : undefined;
  });
  await cli('agi set debug on');
  const logFile = path.join(dir, 'log', 'full');
  const log = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '');
  return {
    dir,
    pid: child.pid ?? 0,
    monitorDir,
    cli,
    async originate(caller, exten) {
      await cli(`channel originate Local/${caller}@caller extension ${exten}@ivr`);
    },
    log,
    waitForLog: ({ source }, { from = 0, timeoutMs = 60_000 } = {}) =>
      until(`the PBX to log /${source}/`, () => new RegExp(source, 'm').exec(log().slice(from)) ?? undefined, timeoutMs),
    async stop() {
      if (!exited) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        await cli('core stop now').catch(() => child.kill('SIGKILL'));
        await Promise.race([gone, sleep(10_000).then(() => child.kill('SIGKILL'))]);
      }
      // VOXPLAN_KEEP_PBX=1 keeps the folder (its log/full) to look into a failure.
      if (process.env.VOXPLAN_KEEP_PBX === '1') process.stderr.write(`PBX folder kept: ${dir}\n`);
      else fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
