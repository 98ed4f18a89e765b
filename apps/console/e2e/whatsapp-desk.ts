/**
 * A desk of WhatsApp chats for the Conversations e2e files: the console on the local Graph API, a
 * tenant member (Ana) in a chat queue, the plan that hands a chat to it, and a WhatsApp number; and
 * a customer's text delivered as Meta delivers it (signed with the number's app secret).
 */
import type { Destination, PhoneNumber } from '@voxplan/contracts';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { createTenantMember, type TenantMember } from '../../server/test/harness.ts';
import { storePlan } from '../../server/test/sessions-helpers.ts';
import { type GraphApi, signWhatsapp, startGraphApi, whatsappDelivery } from '../../server/test/whatsapp-graph.ts';
import { handoffPlan } from './chat-handoff.ts';
import { type ConsoleHarness, createNumber, startConsole } from './harness.ts';

export interface WhatsAppDesk {
  harness: ConsoleHarness;
  graph: GraphApi;
  ana: TenantMember;
  number: PhoneNumber;
  /** A customer's text as Meta delivers it, written `agoMs` ago by Meta's clock; `name` is their profile's (none: not known). */
  customerWrites(customer: string, text: string, options?: { name?: string; agoMs?: number }): Promise<void>;
  close(): Promise<void>;
}

export async function startWhatsAppDesk(options: { slug: string; number: string; phoneId: string; token: string; secret: string; queue: { name: string } & Record<string, unknown> }): Promise<WhatsAppDesk> {
  const graph = await startGraphApi();
  const harness = await startConsole({ WHATSAPP_GRAPH_URL: graph.graphUrl, WHATSAPP_GRAPH_VERSION: 'v23.0' });
  const admin = await harness.server.login();
  const ana = await createTenantMember(harness.server, admin, options.slug);
  const queue = await harness.server.call({ method: 'POST', url: '/destinations', token: ana.token, payload: { kind: 'chat', chat_target: 'queue', agent_ids: [ana.userId], ...options.queue } });
  expect(queue.statusCode, queue.body).toBe(201);
  const plan = await storePlan(harness.server.ctx, ana.tenantId, handoffPlan(queue.json<Destination>().id));
  const number = await createNumber(harness.server, ana.token, {
    number: options.number,
    provider: 'whatsapp',
    chat_plan_id: plan,
    whatsapp_phone_number_id: options.phoneId,
    whatsapp_token: options.token,
    whatsapp_app_secret: options.secret,
  });
  let messageCount = 0;
  return {
    harness,
    graph,
    ana,
    number,
    async customerWrites(customer, text, { name, agoMs = 0 } = {}) {
      const timestamp = String(Math.floor((Date.now() - agoMs) / 1000));
      const message = { from: customer, id: `wamid.${options.slug}.${++messageCount}`, timestamp, type: 'text', text: { body: text } };
      const value = name === undefined ? { messages: [message] } : { contacts: [{ profile: { name }, wa_id: customer }], messages: [message] };
      const body = JSON.stringify(whatsappDelivery(value, options.phoneId));
      const answer = await fetch(`${harness.baseUrl}/api/v1/hooks/whatsapp/${number.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWhatsapp(body, options.secret) },
        body,
      });
      expect(answer.status).toBe(200);
    },
    async close() {
      await harness.close();
      await graph.close();
    },
  };
}

/** Whether the element is wholly inside the page's viewport, as a person sees it without scrolling. */
export async function inView(page: Page, locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  const viewport = page.viewportSize()!;
  return box !== null && box.y >= 0 && box.x >= 0 && box.y + box.height <= viewport.height && box.x + box.width <= viewport.width;
}
