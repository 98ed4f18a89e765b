/**
 * Conversations (issue 30, docs/conversations.md) through the web chat as a visitor's page calls it
 * and the console's API: a chat reaching a queue destination waits for an agent (busy with nobody
 * online, no_answer when nobody takes it in time), one of two agents taking at once wins, the
 * customer's messages go to the agent and not the plan, the agent's messages and typing reach the
 * widget, transfer, close back to the plan or resolved; guests read only; tenants stay apart.
 */
import type { AuditEntry, CallReportRecord, ConversationDetail, ConversationEvent, ConversationRow, ConversationSummary, WebchatConversation } from '@voxplan/contracts';
import { describe, expect, test } from 'vitest';
import { until } from './asterisk-pbx.ts';
import { errorOf, q } from './harness.ts';
import { subscribeConversations } from '../src/modules/conversations/conversation-events.ts';
import { defaultClosingMessages } from '../src/modules/conversations/closing-message.ts';
import { server, admin, member, colleague, guest, stranger, queue, otherQueue, widget, view, texts, api, startChat, conversationOf, widgetShows, setPresence, useConversationsServer } from './conversations-fixture.ts';

useConversationsServer();

describe('a chat reaching a queue', () => {
  test('no agent online: the block takes busy at once, and the closed conversation says so', async () => {
    await setPresence(member.token, 'offline');
    await setPresence(colleague.token, 'away');
    const sessionId = await startChat();
    const shown = await widgetShows(sessionId, 'Everyone is busy.');
    expect(shown.status).toBe('ended');
    expect(await conversationOf(sessionId)).toMatchObject({ status: 'closed', outcome: 'busy' });
  });

  test('an agent online: the chat waits in the queue, parked (no idle timeout), listed for the queue’s agents only', async () => {
    await setPresence(member.token, 'online');
    const sessionId = await startChat();
    const record = await conversationOf(sessionId);
    expect(record).toMatchObject({ status: 'waiting', destination_id: queue.id });
    const session = await server.ctx.db.selectFrom('sessions').select(['status', 'timeout_time']).where('id', '=', sessionId).executeTakeFirstOrThrow();
    expect(session).toEqual({ status: 'waiting', timeout_time: null });
    const waiting = (await api(member.token, 'GET', '/conversations?status=waiting')).json<ConversationRow[]>();
    expect(waiting.find((row) => row.id === record.id)).toMatchObject({ queue: { id: queue.id, name: 'Support' }, agent: null, channel: 'chat', provider: 'webchat' });
    // Another tenant's user neither lists nor reads it.
    expect((await api(stranger.token, 'GET', '/conversations?status=waiting')).json<ConversationRow[]>()).toEqual([]);
    expect(errorOf(await api(stranger.token, 'GET', `/conversations/${record.id}`))).toMatchObject({ statusCode: 404, code: 'conversation_not_found' });
    expect(errorOf(await api(stranger.token, 'POST', `/conversations/${record.id}/take`))).toMatchObject({ statusCode: 404, code: 'conversation_not_found' });
    const summary = (await api(member.token, 'GET', '/conversations/summary')).json<ConversationSummary>();
    expect(summary.queues.find((row) => row.id === queue.id)).toMatchObject({ name: 'Support', agents_online: 1 });
    expect(summary.waiting).toBeGreaterThanOrEqual(1);
  });

  test('nobody takes it within the block’s timeout: no_answer, by the sweep of any instance', async () => {
    const sessionId = await startChat();
    const record = await conversationOf(sessionId);
    // The deadline passed (the block's timeout_s is 120 s): moved back rather than waited for.
    await server.ctx.db.updateTable('conversations').set({ deadline_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', record.id).execute();
    await server.ctx.sessions.sweepTimeouts();
    await widgetShows(sessionId, 'Nobody answered.');
    expect(await server.ctx.db.selectFrom('conversations').select(['status', 'outcome']).where('id', '=', record.id).executeTakeFirstOrThrow()).toEqual({ status: 'closed', outcome: 'no_answer' });
    // A take after the sweep is told the chat is closed.
    expect(errorOf(await api(member.token, 'POST', `/conversations/${record.id}/take`))).toMatchObject({ statusCode: 409, code: 'conversation_closed' });
  });
});

describe('an agent holds the chat', () => {
  let sessionId: string;
  let id: number;

  test('two agents take at once: one wins, the other is told conversation_taken', async () => {
    await setPresence(member.token, 'online');
    sessionId = await startChat();
    id = (await conversationOf(sessionId)).id;
    const [first, second] = await Promise.all([api(member.token, 'POST', `/conversations/${id}/take`), api(colleague.token, 'POST', `/conversations/${id}/take`)]);
    const statuses = [first.statusCode, second.statusCode].sort();
    expect(statuses).toEqual([200, 409]);
    const loser = first.statusCode === 409 ? first : second;
    expect(errorOf(loser).code).toBe('conversation_taken');
    const winner = first.statusCode === 200 ? member : colleague;
    // The test goes on with the member holding it.
    if (winner !== member) {
      const moved = await api(colleague.token, 'POST', `/conversations/${id}/transfer`, { agent_id: member.userId });
      expect(moved.statusCode, moved.body).toBe(200);
    }
    const row = (await api(member.token, 'GET', `/conversations/${id}`)).json<ConversationDetail>();
    expect(row).toMatchObject({ status: 'open', agent: { id: member.userId }, variables: { topic: 'billing' }, plan: { name: 'Front desk' } });
    expect(row.bot_transcript.map((entry) => entry.text)).toContain('Hello! Passing you to a person.');
  });

  test('the customer’s messages go to the agent, not the plan; the agent’s reach the widget with their name, and typing shows', async () => {
    const before = await server.ctx.sessions.find(sessionId);
    const said = await widget('POST', `/conversations/${sessionId}/messages`, { id: 'm1', text: 'I was charged twice' });
    expect(said.statusCode, said.body).toBe(200);
    // Sent again (a retry of the widget): stored once.
    await widget('POST', `/conversations/${sessionId}/messages`, { id: 'm1', text: 'I was charged twice' });
    expect((await server.ctx.sessions.find(sessionId))!.revision).toBe(before!.revision);
    const detail = (await api(member.token, 'GET', `/conversations/${id}`)).json<ConversationDetail>();
    // (A system note of the transfer comes first when the colleague won the race above.)
    // (The customer's place in the queue, the bot's, came before it.)
    expect(detail.messages.filter((message) => message.author !== 'system' && message.author !== 'bot').map((message) => [message.author, message.text])).toEqual([['customer', 'I was charged twice']]);
    expect(detail.unread).toBe(1);
    expect((await api(member.token, 'POST', `/conversations/${id}/read`)).statusCode).toBe(204);
    expect((await api(member.token, 'GET', '/conversations?status=open')).json<ConversationRow[]>().find((row) => row.id === id)).toMatchObject({
      unread: 0,
      last_message: { author: 'customer', text: 'I was charged twice' },
    });

    // The customer types in the widget: the consoles hear conversation.customer_typing (the widget's own poll is not woken).
    const heard: ConversationEvent[] = [];
    const stop = subscribeConversations(server.ctx.bus, ({ event }) => heard.push(event), { tenantId: member.tenantId });
    expect((await widget('POST', `/conversations/${sessionId}/typing`, {})).statusCode).toBe(204);
    await until('the customer’s typing', async () => heard.find((event) => event.type === 'conversation.customer_typing'));
    stop();
    expect(heard).toEqual([{ type: 'conversation.customer_typing', conversation_id: id }]);

    expect((await api(member.token, 'POST', `/conversations/${id}/typing`)).statusCode).toBe(204);
    const typing = await until('the widget to show the typing', async () => (await view(sessionId)).typing ?? undefined);
    expect(typing).toEqual({ type: 'typing', agent_name: member.username });

    // The widget's long poll, waiting past what it shows, answers with the agent's message.
    const shown = await view(sessionId);
    const polled = widget('GET', `/conversations/${sessionId}?after=${shown.revision}&wait=25`);
    const sent = await api(member.token, 'POST', `/conversations/${id}/messages`, { text: 'Let me check that for you.' });
    expect(sent.statusCode, sent.body).toBe(201);
    const after = (await polled).json<WebchatConversation>();
    expect(after.typing).toBeNull();
    expect(texts(after).slice(-2)).toEqual(['user: I was charged twice', `agent(${member.username}): Let me check that for you.`]);
    expect(after.revision).toBeGreaterThan(shown.revision);
    // Only the agent holding it writes.
    expect(errorOf(await api(colleague.token, 'POST', `/conversations/${id}/messages`, { text: 'Hi' }))).toMatchObject({ statusCode: 409, code: 'conversation_not_yours' });
  });

  test('guests read conversations but change nothing', async () => {
    expect((await api(guest.token, 'GET', `/conversations/${id}`)).statusCode).toBe(200);
    expect((await api(guest.token, 'GET', '/conversations?status=open')).json<ConversationRow[]>().map((row) => row.id)).toContain(id);
    for (const [url, payload] of [
      ['take', undefined],
      ['messages', { text: 'Hi' }],
      ['close', { outcome: 'resolved' }],
      ['transfer', { queue_id: otherQueue.id }],
      // It writes the agent's unread count: refused as every write is.
      ['read', undefined],
      ['typing', undefined],
    ] as const) {
      expect(errorOf(await api(guest.token, 'POST', `/conversations/${id}/${url}`, payload))).toMatchObject({ statusCode: 403, code: 'readonly_only' });
    }
  });

  test('transfer to another queue: it waits there for that queue’s agents', async () => {
    const moved = await api(member.token, 'POST', `/conversations/${id}/transfer`, { queue_id: otherQueue.id });
    expect(moved.json<ConversationRow>()).toMatchObject({ status: 'waiting', queue: { id: otherQueue.id, name: 'Billing' }, agent: null });
    expect((await api(member.token, 'GET', '/conversations?status=waiting')).json<ConversationRow[]>().map((row) => row.id)).not.toContain(id);
    expect((await api(colleague.token, 'GET', '/conversations?status=waiting')).json<ConversationRow[]>().map((row) => row.id)).toContain(id);
    expect((await api(colleague.token, 'POST', `/conversations/${id}/take`)).statusCode).toBe(200);
  });

  test('close back to the plan: the plan goes on from the answer exit, and the widget shows it', async () => {
    expect(errorOf(await api(member.token, 'POST', `/conversations/${id}/close`, { outcome: 'back_to_plan' }))).toMatchObject({ code: 'conversation_not_yours' });
    const closed = await api(colleague.token, 'POST', `/conversations/${id}/close`, { outcome: 'back_to_plan' });
    expect(closed.json<ConversationRow>()).toMatchObject({ status: 'closed', outcome: 'back_to_plan' });
    await widgetShows(sessionId, 'Welcome back to the bot.');
    // The plan has the chat again: a message is the plan's.
    expect(errorOf(await api(colleague.token, 'POST', `/conversations/${id}/messages`, { text: 'Hi' })).code).toBe('conversation_closed');
    const entries = (await api(admin, 'GET', `/audit?${q('filter', { where: { entity: 'conversation', entity_id: String(id) }, order: ['id ASC'] })}`)).json<AuditEntry[]>();
    expect(entries.map((entry) => (entry.after as { event: string }).event)).toEqual(expect.arrayContaining(['take', 'transfer', 'close']));
  });

  test('close resolved: the chat ends', async () => {
    const resolvedSession = await startChat();
    const record = await conversationOf(resolvedSession);
    // The customer is told their place once the start has answered (queue-place.ts); a take before
    // that rightly tells them nothing, so the agent takes the chat after it, as a person would.
    await until('the queue place line', async () => ((await view(resolvedSession)).messages.some((message) => message.text.includes('in the queue')) ? true : undefined));
    expect((await api(member.token, 'POST', `/conversations/${record.id}/take`)).statusCode).toBe(200);
    await widget('POST', `/conversations/${resolvedSession}/messages`, { id: 'r1', text: 'Refund of order 4711 please' });
    expect((await api(member.token, 'POST', `/conversations/${record.id}/messages`, { text: 'Anything else?' })).statusCode).toBe(201);
    expect((await api(member.token, 'POST', `/conversations/${record.id}/close`, { outcome: 'resolved' })).statusCode).toBe(200);
    await until('the chat to end', async () => ((await view(resolvedSession)).status === 'ended' ? true : undefined));
    const closedList = (await api(member.token, 'GET', '/conversations?status=closed&q=4711')).json<ConversationRow[]>();
    expect(closedList.map((row) => [row.id, row.outcome])).toEqual([[record.id, 'resolved']]);

    // The chat's report shows the hand-off and what was said with the agent, by name.
    const reports = await until('the report', async () => {
      const found = (await api(member.token, 'GET', `/reports?${q('filter', { where: { session_id: resolvedSession } })}`)).json<CallReportRecord[]>();
      return found.length > 0 ? found : undefined;
    });
    expect(reports[0]!.handoffs).toEqual([
      {
        conversation_id: record.id,
        queue: { id: queue.id, name: 'Support' },
        agent: { id: member.userId, name: member.username },
        outcome: 'resolved',
        wait_s: expect.any(Number),
        handling_s: expect.any(Number),
        messages: [
          // Told while waiting (queue-place.ts).
          { author: 'bot', agent_name: null, text: expect.stringContaining('in the queue'), attachment: null, at: expect.any(String) },
          { author: 'customer', agent_name: null, text: 'Refund of order 4711 please', attachment: null, at: expect.any(String) },
          { author: 'agent', agent_name: member.username, text: 'Anything else?', attachment: null, at: expect.any(String) },
          // The queue has no closing message of its own: the default, in the session's language.
          { author: 'agent', agent_name: member.username, text: defaultClosingMessages.en, attachment: null, at: expect.any(String) },
        ],
      },
    ]);
  });
});

