/**
 * What a real manager will not do on demand (asterisk-outbound.test.ts has the real one): drop a
 * logged-in connection (the client logs in again by itself), greet as something else, and the
 * pure mappings of the dial's outcome and AMD's verdict (main/pbx.c, app_amd.c).
 */
import net from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { AmiClient } from './ami-client.ts';
import { answeredByOfAmd, originateOutcome } from './ami-dialer.ts';

const servers: net.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A manager as main/manager.c speaks: the greeting, then each action answered by `answer`. */
async function fakeManager(greeting: string, answer: (action: Record<string, string>, socket: net.Socket) => void): Promise<{ port: number; logins: () => number }> {
  let logins = 0;
  const server = net.createServer((socket) => {
    socket.setEncoding('utf8');
    socket.write(`${greeting}\r\n`);
    let buffered = '';
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\r\n\r\n'); end !== -1; end = buffered.indexOf('\r\n\r\n')) {
        const action = Object.fromEntries(buffered.slice(0, end).split('\r\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
        buffered = buffered.slice(end + 4);
        if (action.Action === 'Login') logins += 1;
        answer(action, socket);
      }
    });
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, logins: () => logins };
}

const ok = (action: Record<string, string>, message: string) => `Response: Success\r\nActionID: ${action.ActionID}\r\nMessage: ${message}\r\n\r\n`;

test('a connection that drops after the login is made again, and actions go on', async () => {
  let first = true;
  const manager = await fakeManager('Asterisk Call Manager/9.0.0', (action, socket) => {
    if (action.Action === 'Login') {
      socket.write(ok(action, 'Authentication accepted'));
      // The first connection is cut at once, as a PBX restarting would.
      if (first) {
        first = false;
        setImmediate(() => socket.destroy());
      }
      return;
    }
    socket.write(ok(action, 'Pong'));
  });
  const client = new AmiClient({ host: '127.0.0.1', port: manager.port, username: 'voxplan', secret: 'x', reconnectDelayMs: 10 });
  const reconnected = new Promise<void>((resolve) => client.once('disconnected', () => client.once('connected', () => resolve())));
  await client.connect();
  await reconnected;
  expect(manager.logins()).toBe(2);
  expect(await client.action({ Action: 'Ping' })).toMatchObject({ response: 'Success', message: 'Pong' });
  await client.close();
});

test('a server that is no Asterisk manager is unreachable, said so', async () => {
  const other = await fakeManager('SSH-2.0-OpenSSH_9.6', () => undefined);
  const client = new AmiClient({ host: '127.0.0.1', port: other.port, username: 'voxplan', secret: 'x' });
  await expect(client.connect()).rejects.toMatchObject({ code: 'ami_unreachable', message: expect.stringContaining('not an Asterisk manager') });
  expect(other.logins()).toBe(0);
});

test('a value holding a line break is refused before anything is sent (it would smuggle in another action)', async () => {
  const manager = await fakeManager('Asterisk Call Manager/9.0.0', (action, socket) => socket.write(ok(action, 'Authentication accepted')));
  const client = new AmiClient({ host: '127.0.0.1', port: manager.port, username: 'voxplan', secret: 'x' });
  await expect(client.action({ Action: 'Originate', CallerID: '+5511\r\n\r\nAction: Command' })).rejects.toThrow(/line break/);
  await client.close();
});

test('OriginateResponse as the dial outcome; AMDSTATUS as answered_by', () => {
  expect(originateOutcome('Success', 4, 3_000, 30_000)).toBe('answer');
  expect(originateOutcome('Failure', 5, 100, 30_000)).toBe('busy');
  expect(originateOutcome('Failure', 3, 30_000, 30_000)).toBe('no_answer');
  expect(originateOutcome('Failure', 0, 30_000, 30_000)).toBe('no_answer');
  expect(originateOutcome('Failure', 0, 200, 30_000)).toBe('failed');
  expect(originateOutcome('Failure', 8, 200, 30_000)).toBe('failed');
  expect(['HUMAN', 'MACHINE', 'NOTSURE', 'HANGUP', undefined].map(answeredByOfAmd)).toEqual(['human', 'machine', 'unknown', 'unknown', 'unknown']);
});
