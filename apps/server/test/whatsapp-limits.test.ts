import type { PhoneNumber } from '@voxplan/contracts';
import { beforeAll, describe, expect, test } from 'vitest';
import { until } from './asterisk-pbx.ts';
import { takeDatabaseAway } from './database-away.ts';
import { errorOf } from './harness.ts';
import { storePlan } from './sessions-helpers.ts';
import { APP_SECRET, delivery, deliver, edge, eventsOf, interactiveReply, LONG_PHONE_ID, LONG_PROMPT, longMenuNumber, member, menuNumber, messagesTable, node, NOTIFY_PHONE_ID, notifyNumber, plan, sent, server, sessionOf, sign, TOKEN, useWhatsappServer } from './whatsapp-fixture.ts';
import { INTERACTIVE_BODY_LIMIT, whatsappText as textMessage } from './whatsapp-graph.ts';

/**
 * WhatsApp Cloud API end to end, continued from whatsapp.test.ts: deliveries while the database is
 * away and deliveries refused, send_message and the 24-hour window, Meta's limits on interactive
 * messages, and a person holding the chat.
 */

useWhatsappServer();

describe('while the database is away (docs/channels-whatsapp.md)', () => {
  const USER = '5511940403737';
  /** What the user was sent: a text's body, an interactive message's prompt. */
  const shown = () => sent.map((request) => request.body.text?.body ?? (request.body.interactive as { body?: { text?: string } } | undefined)?.body?.text);
  const messageRows = (id: string) => server.ctx.db.selectFrom('whatsapp_messages').select('id').where('id', '=', id).execute();

  /** Delivers `payload` while the database is away: 503 with Retry-After, so that Meta delivers it again, and nothing sent. */
  async function deliverWhileAway(payload: unknown): Promise<void> {
    const bringBack = takeDatabaseAway(server.ctx.dialect);
    let refused;
    try {
      refused = await deliver(menuNumber.id, payload);
    } finally {
      bringBack();
    }
    expect(refused.statusCode, refused.body).toBe(503);
    expect(refused.headers['retry-after']).toBe('2');
    expect(errorOf(refused).code).toBe('database_unavailable');
    expect(sent).toEqual([]);
  }

  test('a delivery answered 503 runs when Meta delivers it again, once however often it comes', async () => {
    const first = delivery(textMessage(USER, 'wamid.away.1', 'Hi'));
    await deliverWhileAway(first);
    expect(await server.ctx.sessions.find('whatsapp:wamid.away.1')).toBeUndefined();

    // Meta's redelivery once the database is back starts the conversation; a second one runs nothing.
    expect((await deliver(menuNumber.id, first)).statusCode).toBe(200);
    expect(shown()).toEqual(['Welcome to ACME.', 'How can we help?']);
    sent.length = 0;
    expect((await deliver(menuNumber.id, first)).statusCode).toBe(200);
    expect(sent).toEqual([]);
    expect(await messageRows('wamid.away.1')).toHaveLength(1);

    // Mid-conversation: the button reply answered 503 is taken on its redelivery, once.
    const button = delivery(interactiveReply(USER, 'wamid.away.2', 'button_reply', { id: '1', title: 'Plans' }));
    await deliverWhileAway(button);
    expect((await eventsOf('whatsapp:wamid.away.1')).map((event) => event.event_id)).toEqual(['start']);
    expect((await deliver(menuNumber.id, button)).statusCode).toBe(200);
    expect(shown()).toEqual(['Which plan?']);
    sent.length = 0;
    expect((await deliver(menuNumber.id, button)).statusCode).toBe(200);
    expect(sent).toEqual([]);
    expect((await eventsOf('whatsapp:wamid.away.1')).map((event) => event.event_id)).toEqual(['start', 'wamid.away.2']);
    expect(await messageRows('wamid.away.2')).toHaveLength(1);
  });
});

describe('deliveries refused', () => {
  test('a missing signature, another secret’s, or a body changed after signing: 403, nothing runs', async () => {
    const payload = delivery(textMessage('5511966665555', 'wamid.in.forged', 'Hi'));
    const body = JSON.stringify(payload);
    const before = await messagesTable();
    const attempts = [
      deliver(menuNumber.id, payload, { signature: null }),
      deliver(menuNumber.id, payload, { signature: sign(body, 'not-the-secret') }),
      deliver(menuNumber.id, payload, { signature: 'sha256=zz' }),
      // Signed, then changed: the same JSON with other spacing is other bytes.
      deliver(menuNumber.id, payload, { signature: sign(body), body: JSON.stringify(payload, null, 1) }),
      // Signed with this number's secret, posted to a number that has none.
      deliver(999_999, payload),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.statusCode, response.body).toBe(403);
      expect(errorOf(response).code).toBe('invalid_whatsapp_signature');
    }
    expect(sent).toEqual([]);
    expect(await server.ctx.sessions.find('whatsapp:wamid.in.forged')).toBeUndefined();
    expect(await messagesTable()).toEqual(before);
  });
});

describe('send_message over WhatsApp and the 24-hour window', () => {
  test('inside the window the block sends the text and takes sent', async () => {
    expect((await deliver(notifyNumber.id, delivery(textMessage('5511955554444', 'wamid.in.fresh', 'Hi'), NOTIFY_PHONE_ID))).statusCode).toBe(200);
    expect(sent.map((request) => [request.url, request.body.to, request.body.text?.body])).toEqual([
      [`/graph/v23.0/${NOTIFY_PHONE_ID}/messages`, '5511955554444', 'Your ticket is open.'],
      [`/graph/v23.0/${NOTIFY_PHONE_ID}/messages`, '5511955554444', 'Sent.'],
    ]);
    const { session } = await sessionOf('wamid.in.fresh');
    expect(session.path.find((entry) => entry.node_id === 'notify')?.exit).toBe('sent');
  });

  test('a user whose last message is over 24 hours old gets nothing free-form: the block takes failed', async () => {
    // Meta redelivers for days after an outage: this message was written 25 hours ago.
    const old = String(Math.floor(Date.now() / 1000) - 25 * 3600);
    const response = await deliver(notifyNumber.id, delivery(textMessage('5511944443333', 'wamid.in.old', 'Hi', old), NOTIFY_PHONE_ID));
    expect(response.statusCode).toBe(200);
    expect(sent).toEqual([]);
    const { session } = await sessionOf('wamid.in.old');
    expect(session.path.find((entry) => entry.node_id === 'notify')?.exit).toBe('failed');
    expect(session.path.some((entry) => entry.node_id === 'ko')).toBe(true);
  });
});

describe('Meta’s limits', () => {
  test('a list whose prompt is longer than an interactive body: the prompt first as text, then the list, all accepted', async () => {
    expect(LONG_PROMPT.length).toBeGreaterThanOrEqual(1500);
    const response = await deliver(longMenuNumber.id, delivery(textMessage('5511977776666', 'wamid.in.long', 'Hi'), LONG_PHONE_ID));
    expect(response.statusCode, response.body).toBe(200);
    expect(sent.map((request) => request.body.type)).toEqual(['text', 'interactive']);
    const [text, list] = sent.map((request) => request.body);
    const body = (list!.interactive as { type: string; body: { text: string }; action: { sections: Array<{ rows: unknown[] }> } });
    expect(body.type).toBe('list');
    expect(Array.from(body.body.text).length).toBeLessThanOrEqual(INTERACTIVE_BODY_LIMIT);
    expect(body.action.sections[0]!.rows).toHaveLength(5);
    // Nothing of the prompt is lost, and it reads in order.
    expect(`${text!.text!.body} ${body.body.text}`).toBe(LONG_PROMPT);
    // Meta accepted both: each is recorded with the id it answered.
    const rows = (await messagesTable()).filter((row) => row.direction === 'outbound' && row.number_id === longMenuNumber.id);
    expect(rows.map((row) => row.status)).toEqual(['accepted', 'accepted']);
  });
});

describe('a person holds the chat (issue 30, docs/conversations.md)', () => {
  const USER = '5511988887777';
  const QUEUE_PHONE_ID = '106540352242925';
  let queueNumber: PhoneNumber;

  beforeAll(async () => {
    const queue = await server.call({ method: 'POST', url: '/destinations', token: member.token, payload: { name: 'People', kind: 'chat', chat_target: 'queue', agent_ids: [member.userId] } });
    expect(queue.statusCode, queue.body).toBe(201);
    const people = await storePlan(
      server.ctx,
      member.tenantId,
      plan(
        'WhatsApp people',
        [
          node('start', 'start', {}),
          node('hello', 'play_message', { chat_text: 'Passing you to a person.' }),
          node('agent', 'destination', { destination_id: queue.json<{ id: number }>().id, timeout_s: 120 }),
          node('back', 'play_message', { chat_text: 'Welcome back to the bot.' }),
        ],
        [edge('start', 'next', 'hello'), edge('hello', 'next', 'agent'), edge('agent', 'answer', 'back')],
      ),
    );
    const created = await server.call({
      method: 'POST',
      url: '/numbers',
      token: member.token,
      payload: { number: '+551140000005', chat_plan_id: people, whatsapp_phone_number_id: QUEUE_PHONE_ID, provider: 'whatsapp', whatsapp_token: TOKEN, whatsapp_app_secret: APP_SECRET },
    });
    expect(created.statusCode, created.body).toBe(201);
    queueNumber = created.json<PhoneNumber>();
    expect((await server.call({ method: 'PUT', url: '/agents/me', token: member.token, payload: { status: 'online' } })).statusCode).toBe(200);
  });

  const sentTexts = () => sent.filter((request) => request.body.to === USER).map((request) => request.body.text?.body);

  test('the customer’s messages go to the agent, the agent’s go out through the Graph API, and closing gives the chat back to the plan', async () => {
    expect((await deliver(queueNumber.id, delivery(textMessage(USER, 'wamid.people.1', 'Hi'), QUEUE_PHONE_ID))).statusCode).toBe(200);
    const sessionId = 'whatsapp:wamid.people.1';
    const conversation = await until('the conversation', () => server.ctx.db.selectFrom('conversations').selectAll().where('session_id', '=', sessionId).executeTakeFirst());
    expect(conversation).toMatchObject({ status: 'waiting', provider: 'whatsapp', caller: `+${USER}` });
    expect((await server.call({ method: 'POST', url: `/conversations/${conversation.id}/take`, token: member.token })).statusCode).toBe(200);

    const reply = await server.call({ method: 'POST', url: `/conversations/${conversation.id}/messages`, token: member.token, payload: { text: 'Hello, this is Ana from support.' } });
    expect(reply.statusCode, reply.body).toBe(201);
    expect(sentTexts()).toContain('Hello, this is Ana from support.');

    const revision = (await server.ctx.sessions.find(sessionId))!.revision;
    expect((await deliver(queueNumber.id, delivery(textMessage(USER, 'wamid.people.2', 'My order is late'), QUEUE_PHONE_ID))).statusCode).toBe(200);
    // Meta delivers it again: stored once.
    expect((await deliver(queueNumber.id, delivery(textMessage(USER, 'wamid.people.2', 'My order is late'), QUEUE_PHONE_ID))).statusCode).toBe(200);
    const detail = (await server.call({ method: 'GET', url: `/conversations/${conversation.id}`, token: member.token })).json<{ messages: Array<{ author: string; text: string }> }>();
    // (The queue's place line, the bot's, came first.)
    expect(detail.messages.filter((message) => message.author !== 'bot').map((message) => `${message.author}: ${message.text}`)).toEqual(['agent: Hello, this is Ana from support.', 'customer: My order is late']);
    // Not a turn of the plan: the session did not move, and the plan said nothing.
    expect((await server.ctx.sessions.find(sessionId))!.revision).toBe(revision);

    const closed = await server.call({ method: 'POST', url: `/conversations/${conversation.id}/close`, token: member.token, payload: { outcome: 'back_to_plan' } });
    expect(closed.statusCode, closed.body).toBe(200);
    await until('the plan’s reply', () => (sentTexts().includes('Welcome back to the bot.') ? true : undefined));
  });
});
