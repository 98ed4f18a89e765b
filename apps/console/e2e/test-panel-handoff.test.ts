import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, type TenantMember } from '../../server/test/harness.ts';
import { type ConsoleHarness, createPlan, startConsole } from './harness.ts';

/**
 * A chat's hand-off in the editor's test panel (docs/handoff.md): the server posts the
 * conversation to the chat destination, so the panel says it waits for the receiver instead of
 * asking the tester how the destination answered, then shows the exit the receiver's answer chose.
 */
let harness: ConsoleHarness;
let member: TenantMember;
let planId: number;
let receiver: http.Server;
/** Answers the hand-off the receiver holds, once the test has seen the panel wait. */
let release: ((body: string) => void) | null = null;

const node = (id: string, type: string, x: number, data: Record<string, unknown> = {}) => ({ id, type, position: { x, y: 0 }, data });
const edge = (source: string, exit: string, target: string) => ({ id: `${source}-${exit}`, source, source_exit: exit, target });

beforeAll(async () => {
  harness = await startConsole();
  const admin = await harness.server.login();
  member = await createTenantMember(harness.server, admin, 'handoffpanel');

  receiver = http.createServer((request, response) => {
    request.resume();
    release = (body) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(body);
    };
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { db } = harness.server.ctx;
  await db.updateTable('configurations').set({ value: 'true' }).where('name', '=', 'outbound_allow_loopback').execute();
  // The API takes only https URLs for chat destinations; the local receiver speaks plain http.
  const now = new Date().toISOString();
  const destination = await db
    .insertInto('destinations')
    .values({ tenant_id: member.tenantId, name: 'Support desk', kind: 'chat', uri: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/handoff`, description: '', created_time: now, updated_time: now })
    .returning('id')
    .executeTakeFirstOrThrow();

  planId = (
    await createPlan(harness.server, member.token, 'Hand-off', {
      nodes: [
        node('start', 'start', 0),
        node('agent', 'destination', 250, { destination_id: destination.id, timeout_s: 60 }),
        node('busy', 'play_message', 500, { voice_text: 'Everyone is busy.', chat_text: 'Everyone is busy.' }),
      ],
      edges: [edge('start', 'next', 'agent'), edge('agent', 'busy', 'busy')],
    })
  ).id;
});
afterAll(async () => {
  await harness.close();
  await new Promise((resolve) => receiver.close(resolve));
});

async function openPanel(locale?: string): Promise<Page> {
  const { page } = await harness.newPage(locale === undefined ? {} : { locale });
  await harness.signIn(page, member.username, member.password);
  await page.goto(`/visual-plan/${planId}`);
  await page.getByTestId('plan-canvas').locator('.react-flow__node').first().waitFor();
  await page.getByTestId('editor-test').click();
  await page.getByTestId('test-panel').waitFor();
  return page;
}

describe('test panel, a chat handed off', () => {
  test.each([
    { locale: undefined, connected: 'Connected', waiting: 'Handing the chat to Support desk: waiting for its answer…' },
    { locale: 'pt-BR', connected: 'Conectado', waiting: 'Transferindo a conversa para Support desk: aguardando a resposta…' },
  ])('waits for the receiver, then follows the exit it chose ($connected)', async ({ locale, connected, waiting }) => {
    release = null;
    const page = await openPanel(locale);
    const panel = page.getByTestId('test-panel');
    await expect.poll(() => page.getByTestId('test-panel-connection').textContent()).toBe(connected);
    await panel.getByText('Chat', { exact: true }).click();
    await page.getByTestId('test-panel-start').click();

    await expect.poll(() => page.getByTestId('test-panel-handoff').textContent()).toBe(waiting);
    // The server hands the chat off: the tester is not asked how the destination answered.
    expect(await panel.getByRole('button', { name: /busy|ocupado/i }).count()).toBe(0);
    await expect.poll(() => release !== null).toBe(true);
    release!('{"status":"busy"}');

    await expect.poll(() => page.getByTestId('test-panel-transcript').textContent()).toContain('Everyone is busy.');
    expect(await page.getByTestId('test-panel-handoff').count()).toBe(0);
    expect(await page.locator('[data-testid="plan-node"][data-node-id="busy"]').getAttribute('data-visited')).toBe('true');
  });
});
