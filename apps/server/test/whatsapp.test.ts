import type { PhoneNumber } from '@voxplan/contracts';
import { describe, expect, test } from 'vitest';
import { until } from './asterisk-pbx.ts';
import { errorOf } from './harness.ts';
import { APP_SECRET, delivery, deliver, eventsOf, handedOff, interactiveReply, member, menuNumber, messagesTable, NOTIFY_PHONE_ID, notifyNumber, NUMBER, PHONE_ID, sent, server, sessionOf, TOKEN, type Value, VERIFY_TOKEN, useWhatsappServer } from './whatsapp-fixture.ts';
import { nowSeconds, whatsappText as textMessage } from './whatsapp-graph.ts';

/**
 * WhatsApp Cloud API end to end: deliveries as Meta sends them (the documented webhook payloads,
 * signed with the app secret over the raw body), and a local server playing the Graph API's
 * messages endpoint, which records what the channel sends and answers as Meta does
 * (whatsapp-graph.ts, with the documentation it follows). The number's secret, the customer's name,
 * the verification handshake and a conversation; the rest is in whatsapp-limits.test.ts.
 */

useWhatsappServer();

describe('the number’s app secret', () => {
  test('is stored encrypted, shown masked, kept when the mask comes back and replaced when a new one does', async () => {
    expect(menuNumber.whatsapp_app_secret).toMatch(/^•+et-1$/);
    expect(menuNumber.whatsapp_webhook_url).toBe(`${server.config.publicUrl}/api/v1/hooks/whatsapp/${menuNumber.id}`);
    const stored = await server.ctx.db.selectFrom('numbers').select('whatsapp_app_secret').where('id', '=', menuNumber.id).executeTakeFirstOrThrow();
    expect(stored.whatsapp_app_secret).not.toContain(APP_SECRET);

    const kept = await server.call({ method: 'PATCH', url: `/numbers/${notifyNumber.id}`, token: member.token, payload: { whatsapp_app_secret: notifyNumber.whatsapp_app_secret } });
    expect(kept.statusCode, kept.body).toBe(200);
    expect(kept.json<PhoneNumber>().whatsapp_app_secret).toBe(notifyNumber.whatsapp_app_secret);
    // Still the secret deliveries are signed with.
    expect((await deliver(notifyNumber.id, delivery({ statuses: [] }, NOTIFY_PHONE_ID))).statusCode).toBe(200);

    const changed = await server.call({ method: 'PATCH', url: `/numbers/${notifyNumber.id}`, token: member.token, payload: { whatsapp_app_secret: 'another-secret' } });
    expect(changed.json<PhoneNumber>().whatsapp_app_secret).toMatch(/^•+cret$/);
    const old = await deliver(notifyNumber.id, delivery({ statuses: [] }, NOTIFY_PHONE_ID));
    expect(old.statusCode).toBe(403);
    const restored = await server.call({ method: 'PATCH', url: `/numbers/${notifyNumber.id}`, token: member.token, payload: { whatsapp_app_secret: APP_SECRET } });
    expect(restored.statusCode).toBe(200);
  });
});

describe('who the customer is', () => {
  test('the profile name Meta sends beside the message is kept for agents and the report', async () => {
    // Meta's own example of an incoming text, "messages webhook reference" (Incoming messages):
    // https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages
    // `value.contacts[].profile.name` beside `wa_id`, which is the message's `from`.
    const example = {
      contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: '16505551234' }],
      messages: [{ from: '16505551234', id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=', timestamp: nowSeconds(), type: 'text', text: { body: 'Does it come in another color?' } }],
    };
    expect((await deliver(menuNumber.id, delivery(example))).statusCode).toBe(200);
    const session = await until('the chat', () => server.ctx.db.selectFrom('sessions').select(['caller', 'customer']).where('id', '=', `whatsapp:${example.messages[0]!.id}`).executeTakeFirst());
    expect(session.caller).toBe('+16505551234');
    expect(JSON.parse(session.customer!)).toEqual({ name: 'Sheena Nelson', email: null, page_url: null, external_id: null, verified: false });

    // The user may share no name (Meta then leaves the profile out): the customer stays unknown, the number tells them apart.
    const nameless = { contacts: [{ wa_id: '16505550000' }], messages: [{ from: '16505550000', id: 'wamid.nameless-1', timestamp: nowSeconds(), type: 'text', text: { body: 'Hi' } }] };
    expect((await deliver(menuNumber.id, delivery(nameless))).statusCode).toBe(200);
    const unnamed = await until('the nameless chat', () => server.ctx.db.selectFrom('sessions').select('customer').where('id', '=', 'whatsapp:wamid.nameless-1').executeTakeFirst());
    expect(unnamed.customer).toBeNull();
  });
});

describe('the verification handshake', () => {
  const verify = (numberId: number, query: Record<string, string>) =>
    server.app.inject({ method: 'GET', url: `/api/v1/hooks/whatsapp/${numberId}?${new URLSearchParams(query).toString()}` });

  test('answers the challenge as text when the mode is subscribe and the token is the number’s', async () => {
    const response = await verify(menuNumber.id, { 'hub.mode': 'subscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '1158201444' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.body).toBe('1158201444');
  });

  test('refuses another token, another mode, another number’s token and an unknown number', async () => {
    const cases = [
      [menuNumber.id, { 'hub.mode': 'subscribe', 'hub.verify_token': 'guess', 'hub.challenge': '1' }],
      [menuNumber.id, { 'hub.mode': 'unsubscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '1' }],
      [notifyNumber.id, { 'hub.mode': 'subscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '1' }],
      [999_999, { 'hub.mode': 'subscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '1' }],
    ] as const;
    for (const [numberId, query] of cases) {
      const response = await verify(numberId, query);
      expect(response.statusCode, JSON.stringify(query)).toBe(403);
      expect(errorOf(response).code).toBe('invalid_whatsapp_verify_token');
      expect(response.body).not.toContain('"1"');
    }
  });
});

describe('a conversation', () => {
  const USER = '5511988887777';

  test('a menu answered by a button, a list answered by a row, a redelivery that runs nothing twice, and the end', async () => {
    const first = await deliver(menuNumber.id, delivery(textMessage(USER, 'wamid.in.1', 'Hi')));
    expect(first.statusCode, first.body).toBe(200);
    expect(sent.map((request) => request.url)).toEqual([`/graph/v23.0/${PHONE_ID}/messages`, `/graph/v23.0/${PHONE_ID}/messages`]);
    expect(sent.every((request) => request.authorization === `Bearer ${TOKEN}` && request.body.to === USER && request.body.messaging_product === 'whatsapp')).toBe(true);
    expect(sent[0]!.body).toMatchObject({ type: 'text', text: { body: 'Welcome to ACME.' } });
    expect(sent[1]!.body).toMatchObject({
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: 'How can we help?' },
        action: {
          buttons: [
            { type: 'reply', reply: { id: '1', title: 'Plans' } },
            { type: 'reply', reply: { id: '2', title: 'Support' } },
            { type: 'reply', reply: { id: '3', title: 'Billing' } },
          ],
        },
      },
    });
    const session = await sessionOf('wamid.in.1');
    expect(session.session).toMatchObject({ channel: 'chat', provider: 'whatsapp', caller: `+${USER}`, called: NUMBER, status: 'waiting' });

    sent.length = 0;
    const button = delivery(interactiveReply(USER, 'wamid.in.2', 'button_reply', { id: '1', title: 'Plans' }));
    expect((await deliver(menuNumber.id, button)).statusCode).toBe(200);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toMatchObject({
      type: 'interactive',
      interactive: {
        type: 'list',
        body: { text: 'Which plan?' },
        action: {
          sections: [
            {
              rows: [
                { id: '1', title: 'Basic' },
                { id: '2', title: 'Plus' },
                { id: '3', title: 'Pro' },
                // Over 24 characters: shortened in the title, whole in the description.
                { id: '4', title: 'Enterprise with volume …', description: 'Enterprise with volume discounts' },
                { id: '5', title: 'Other' },
              ],
            },
          ],
        },
      },
    });
    const events = await eventsOf('whatsapp:wamid.in.1');
    expect(events.map((event) => event.event_id)).toEqual(['start', 'wamid.in.2']);

    // Meta delivers the same message again: nothing runs, nothing is sent.
    sent.length = 0;
    expect((await deliver(menuNumber.id, button)).statusCode).toBe(200);
    expect(sent).toEqual([]);
    expect(await eventsOf('whatsapp:wamid.in.1')).toEqual(events);

    const row = delivery(interactiveReply(USER, 'wamid.in.3', 'list_reply', { id: '4', title: 'Enterprise with volume …', description: 'Enterprise with volume discounts' }));
    expect((await deliver(menuNumber.id, row)).statusCode).toBe(200);
    expect(sent.map((request) => request.body.text?.body)).toEqual(['Our sales team will write to you.', 'Bye!']);
    const ended = await sessionOf('wamid.in.1');
    expect(ended.session.status).toBe('ended');
    expect(ended.session.path.map((entry) => [entry.node_id, entry.exit])).toEqual([
      ['start', 'next'],
      ['welcome', 'next'],
      ['menu', '1'],
      ['plans', '4'],
      ['enterprise', 'next'],
      ['bye', null],
    ]);

    // The next message after the end starts a new conversation.
    sent.length = 0;
    expect((await deliver(menuNumber.id, delivery(textMessage(USER, 'wamid.in.4', 'Hello again')))).statusCode).toBe(200);
    expect(sent.map((request) => request.body.type)).toEqual(['text', 'interactive']);
    expect((await sessionOf('wamid.in.4')).session.status).toBe('waiting');
  });

  test('a chat left idle past the plan’s timeout ends with its chat_text, sent to the user over WhatsApp', async () => {
    await deliver(menuNumber.id, delivery(textMessage('5511933332222', 'wamid.in.idle', 'Hi')));
    sent.length = 0;
    // As if the plan's 30 minutes had gone by.
    await server.ctx.db.updateTable('sessions').set({ timeout_time: new Date(Date.now() - 1000).toISOString() }).where('id', '=', 'whatsapp:wamid.in.idle').execute();
    expect(await server.ctx.sessions.sweepTimeouts()).toContain('whatsapp:wamid.in.idle');
    expect(sent.map((request) => [request.url, request.body.to, request.body.text?.body])).toEqual([
      [`/graph/v23.0/${PHONE_ID}/messages`, '5511933332222', 'Closed for inactivity.'],
    ]);
    expect((await sessionOf('wamid.in.idle')).session.status).toBe('ended');
  });

  test('a hand-off: the conversation goes to the chat destination, whose answer (busy) reaches the user over WhatsApp', async () => {
    const USER_HANDOFF = '5511922221111';
    await deliver(menuNumber.id, delivery(textMessage(USER_HANDOFF, 'wamid.in.desk.1', 'Hi')));
    sent.length = 0;
    await deliver(menuNumber.id, delivery(interactiveReply(USER_HANDOFF, 'wamid.in.desk.2', 'button_reply', { id: '2', title: 'Support' })));
    await expect.poll(() => sent.length, { timeout: 10_000 }).toBe(2);
    expect(handedOff).toHaveLength(1);
    expect(handedOff[0]!.data).toMatchObject({ provider: 'whatsapp', caller: `+${USER_HANDOFF}`, called: NUMBER });
    expect(handedOff[0]!.data.transcript.map((entry) => [entry.from, entry.text])).toEqual([
      ['plan', 'Welcome to ACME.'],
      ['plan', 'How can we help?'],
      ['caller', '2'],
    ]);
    expect(sent.map((request) => [request.body.to, request.body.text?.body])).toEqual([
      [USER_HANDOFF, 'All our agents are busy.'],
      [USER_HANDOFF, 'Bye!'],
    ]);
    await expect.poll(async () => (await sessionOf('wamid.in.desk.1')).session.status).toBe('ended');
  });

  test('delivery statuses of the messages sent are recorded, never going back', async () => {
    await deliver(menuNumber.id, delivery(textMessage('5511977776666', 'wamid.in.status', 'Hi')));
    const [welcome, menu] = sent.map((request) => request.id);
    const statuses = (list: Value[]) => delivery({ statuses: list });
    const at = nowSeconds();
    expect((await deliver(menuNumber.id, statuses([{ id: welcome, status: 'delivered', timestamp: at, recipient_id: '5511977776666' }]))).statusCode).toBe(200);
    await deliver(menuNumber.id, statuses([{ id: welcome, status: 'read', timestamp: at, recipient_id: '5511977776666' }]));
    // Out of order: a late "sent" leaves it read.
    await deliver(menuNumber.id, statuses([{ id: welcome, status: 'sent', timestamp: at, recipient_id: '5511977776666' }]));
    await deliver(
      menuNumber.id,
      statuses([{ id: menu, status: 'failed', timestamp: at, recipient_id: '5511977776666', errors: [{ code: 131026, title: 'Message undeliverable' }] }]),
    );
    const rows = (await messagesTable()).filter((message) => message.id === welcome || message.id === menu);
    expect(rows.map((message) => [message.id, message.direction, message.status, message.error, message.session_id])).toEqual([
      [welcome, 'outbound', 'read', '', 'whatsapp:wamid.in.status'],
      [menu, 'outbound', 'failed', '131026 Message undeliverable', 'whatsapp:wamid.in.status'],
    ]);
  });
});
