import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN, startTestServer, type TestServer } from './harness.ts';

const serverDir = path.resolve(import.meta.dirname, '..');
const tsx = path.resolve(serverDir, '../../node_modules/.bin/tsx');

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the command as an operator would, against the test server's database, with `input` on standard input. */
function setPassword(server: TestServer, args: string[], input = ''): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = execFile(
      tsx,
      ['src/cli/set-password.ts', ...args],
      {
        cwd: serverDir,
        env: {
          PATH: process.env.PATH,
          DATA_DIR: server.config.dataDir,
          ...(server.config.databaseUrl && { DATABASE_URL: server.config.databaseUrl }),
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end(input);
  });
}

describe('npm run set-password: a way back for whoever lost the password', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ LOGIN_MAX_FAILURES_PER_USER: '3' });
  });
  afterAll(() => server.close());

  const login = (password: string) => server.call({ method: 'POST', url: '/login', payload: { username: ADMIN.username, password } });

  test('a locked-out administrator gets a new password: it works at once, the old one and old sign-ins do not', async () => {
    const before = await login(ADMIN.password);
    expect(before.statusCode).toBe(200);
    const oldCookie = before.cookies.find((cookie) => cookie.name === 'voxplan_refresh')!.value;
    for (let attempt = 0; attempt < 3; attempt += 1) await login('wrong-password');
    expect((await login(ADMIN.password)).json()).toMatchObject({ error: { code: 'too_many_attempts' } });

    const outcome = await setPassword(server, [ADMIN.username], 'brand-new-password\n');
    expect(outcome, outcome.stderr).toMatchObject({ code: 0 });
    expect(outcome.stdout).toContain('password of admin is changed');

    expect((await login('brand-new-password')).statusCode).toBe(200);
    expect((await login(ADMIN.password)).json()).toMatchObject({ error: { code: 'invalid_credentials' } });
    const refreshed = await server.call({ method: 'GET', url: '/refresh', cookies: { voxplan_refresh: oldCookie } });
    expect(refreshed.statusCode).toBe(401);

    const token = await server.login(ADMIN.username, 'brand-new-password');
    const audit = await server.call({ method: 'GET', url: `/audit?filter=${encodeURIComponent(JSON.stringify({ where: { entity: 'user_password' } }))}`, token });
    expect(audit.json()).toEqual([expect.objectContaining({ action: 'update', user_id: null, after: { password: '••••' } })]);
  });

  test('--generate prints a password that signs in', async () => {
    const outcome = await setPassword(server, [ADMIN.username, '--generate']);
    expect(outcome.code, outcome.stderr).toBe(0);
    const generated = /Password: (\S+)/.exec(outcome.stdout)?.[1];
    expect(generated).toBeDefined();
    expect((await login(generated!)).statusCode).toBe(200);
  });

  // Five runs of the command, each a tsx start-up: several seconds apiece beside the console's tests.
  test('an unknown user, a short password or a wrong call changes nothing and says why', { timeout: 120_000 }, async () => {
    const current = await setPassword(server, [ADMIN.username], 'current-password-9\n');
    expect(current.code).toBe(0);

    const unknown = await setPassword(server, ['nobody'], 'another-password\n');
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringContaining('no user is named "nobody"') });
    const short = await setPassword(server, [ADMIN.username], 'short\n');
    expect(short).toMatchObject({ code: 1, stderr: expect.stringContaining('8 to 200 characters') });
    const noName = await setPassword(server, []);
    expect(noName).toMatchObject({ code: 2, stderr: expect.stringContaining('usage: npm run set-password') });

    expect((await login('current-password-9')).statusCode).toBe(200);
  });
});
