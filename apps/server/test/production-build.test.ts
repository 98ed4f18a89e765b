/**
 * The production build (apps/server/scripts/build.ts, what `npm start` runs): the server bundled to
 * JavaScript and run by plain `node`, no TypeScript loader, serving the API and running a plan's
 * Lua in its workers from the worker bundled ahead of time, its source map naming the TypeScript
 * files for stack traces.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN } from './harness.ts';
import { builtEntry, type Cleanups, createTenantMemberOver, type ServerProcess, startServerProcess } from './server-process.ts';
import { connectSimulator } from './simulator-client.ts';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('the server built to JavaScript', () => {
  let server: ServerProcess;

  beforeAll(async () => {
    const serverDir = path.resolve(import.meta.dirname, '..');
    await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(serverDir, 'scripts/build.ts')], { cwd: serverDir });
    server = await startServerProcess(cleanups, {}, { built: true });
  }, 120_000);

  test('plain node runs it: no TypeScript loader, source maps on', () => {
    expect(server.child.spawnargs.join(' ')).not.toContain('tsx');
    expect(server.child.spawnargs).toContain('--enable-source-maps');
    expect(server.child.spawnargs).toContain(builtEntry);
    expect(fs.existsSync(`${builtEntry}.map`)).toBe(true);
  });

  test('a plan whose Lua block picks the exit runs in the built server', async () => {
    const { token: admin } = await server.call<{ token: string }>('POST', '/login', ADMIN);
    const member = await createTenantMemberOver(server.call, admin, 'built');
    const plan = await server.call<{ id: number; version: number }>('POST', '/visual-plans', { name: 'Built' }, member.token);
    const document = {
      nodes: [
        { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: {} },
        { id: 'pick', type: 'fx', position: { x: 0, y: 100 }, data: { script: "return 'vip'", returns: ['vip', 'regular'] } },
        { id: 'vip', type: 'play_message', position: { x: 0, y: 200 }, data: { voice_text: 'Welcome, valued caller.' } },
        { id: 'bye', type: 'hangup', position: { x: 0, y: 300 }, data: {} },
      ],
      edges: [
        { id: 'e1', source: 'start', source_exit: 'next', target: 'pick' },
        { id: 'e2', source: 'pick', source_exit: 'vip', target: 'vip' },
        { id: 'e3', source: 'vip', source_exit: 'next', target: 'bye' },
      ],
    };
    await server.call('PUT', `/visual-plans/${plan.id}/document`, { base_version: plan.version, ...document }, member.token);
    const client = await connectSimulator(`http://127.0.0.1:${server.port}`, plan.id, member.token);
    const frames = await client.turn({ type: 'start', channel: 'voice' });
    await client.close();
    const said = frames.flatMap((frame) => (frame.type === 'action' && frame.action.type === 'say' ? [frame.action.text] : []));
    expect(said).toEqual(['Welcome, valued caller.']);
  });

  test('its source map leads stack traces back to the TypeScript files', () => {
    const map = JSON.parse(fs.readFileSync(`${builtEntry}.map`, 'utf8')) as { sources: string[] };
    expect(map.sources).toEqual(expect.arrayContaining(['../src/main.ts', '../src/channels/twilio/twilio.routes.ts', '../../../packages/engine/src/interpreter.ts']));
  });
});
