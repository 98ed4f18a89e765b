/**
 * A customer waiting in a queue is told a person is coming, with their place (issue 36, 2;
 * docs/conversations.md, "Waiting in a queue"): once when the wait starts (with the expected wait
 * when the queue's recent waits give one), then each time the place changes, never once taken.
 * The line is a `bot` message of the conversation in the chat's language, sent through the chat's
 * channel like a person's message; the widget shows it as the plan's lines.
 *
 * Each place is told at most once per conversation and queue: the message's external id is
 * `queue-place:<queue>:<place>`, unique per conversation, so instances that count the same change
 * at once store (and send) it once. A place seen again (a chat transferred ahead of this one, then
 * taken) is not told twice.
 */
import { type ConversationRow, queuePlaceMessages } from '@voxplan/contracts';
import { sql } from 'kysely';
import { deliverToCustomer } from './customer-router.ts';
import { chatLanguageOf } from './closing-message.ts';
import { addMessage, type ConversationContext, type ConversationRecord, publish, rowOf } from './conversation-records.ts';

/** Recent waits the expected wait is drawn from: the queue's last takes, within a day, at least 3 of them. */
const RECENT_TAKES = 10;
const RECENT_MS = 24 * 60 * 60 * 1000;
const RECENT_MIN = 3;

const placeKey = (queueId: number, place: number) => `queue-place:${queueId}:${place}`;

/** The customer's line for `place`, in `language`; `minutes` adds the expected wait. */
export function queuePlaceText(language: 'en' | 'pt', place: number, minutes: number | null): string {
  const texts = queuePlaceMessages[language];
  const line = place === 1 ? texts.next : texts.place.replace('{place}', String(place));
  return minutes === null ? line : `${line} ${texts.wait.replace('{minutes}', String(minutes))}`;
}

/** The average wait of the queue's recent takes, in whole minutes (at least 1), or null without enough of them. */
async function expectedWaitMinutes(ctx: ConversationContext, queueId: number, now: number): Promise<number | null> {
  const recent = await ctx.db
    .selectFrom('conversations')
    .select(['created_at', 'taken_at'])
    .where('destination_id', '=', queueId)
    .where('taken_at', 'is not', null)
    .where('taken_at', '>=', new Date(now - RECENT_MS).toISOString())
    .orderBy('taken_at', 'desc')
    .limit(RECENT_TAKES)
    .execute();
  if (recent.length < RECENT_MIN) return null;
  const total = recent.reduce((sum, row) => sum + Math.max(0, Date.parse(row.taken_at!) - Date.parse(row.created_at)), 0);
  return Math.max(1, Math.ceil(total / recent.length / 60_000));
}

/**
 * Tells each chat waiting in queue `queueId` whose place it was not told yet. Called after any
 * change of the queue's waiting chats (one arrives, is taken, leaves, is moved). Answers how many
 * were told. A failure to send is the channel's (WhatsApp's window): the line stays in the
 * conversation and the agent sees it.
 */
export async function tellQueuePlaces(ctx: ConversationContext, queueId: number | null, now = Date.now()): Promise<number> {
  if (queueId === null) return 0;
  const waiting = await ctx.db
    .selectFrom('conversations as c')
    .innerJoin('sessions as s', 's.id', 'c.session_id')
    .select(['c.id', 'c.tenant_id', 'c.session_id', 'c.provider', 'c.caller', 's.state'])
    .select((eb) =>
      eb
        .selectFrom('conversation_messages as m')
        .select(sql<number>`count(*)`.as('told'))
        .whereRef('m.conversation_id', '=', 'c.id')
        .where('m.author', '=', 'bot')
        .where('m.external_id', 'like', `queue-place:${queueId}:%`)
        .as('told'),
    )
    .where('c.destination_id', '=', queueId)
    .where('c.status', '=', 'waiting')
    .orderBy('c.created_at')
    .orderBy('c.id')
    .execute();
  let told = 0;
  let minutes: number | null | undefined;
  for (const [index, record] of waiting.entries()) {
    const place = index + 1;
    const key = placeKey(queueId, place);
    const already = await ctx.db.selectFrom('conversation_messages').select('id').where('conversation_id', '=', record.id).where('external_id', '=', key).executeTakeFirst();
    if (already) continue;
    // Taken (or gone) since the list was read: nothing more to tell.
    const still = await ctx.db.selectFrom('conversations').select('id').where('id', '=', record.id).where('status', '=', 'waiting').where('destination_id', '=', queueId).executeTakeFirst();
    if (!still) continue;
    // The expected wait only with the first line: after that the place says how it goes.
    const first = Number(record.told ?? 0) === 0;
    if (first && minutes === undefined) minutes = await expectedWaitMinutes(ctx, queueId, now);
    const language = await chatLanguageOf(ctx.db, record.state);
    const text = queuePlaceText(language, place, first ? (minutes ?? null) : null);
    const message = await addMessage(ctx, record, { author: 'bot', text, external_id: key });
    // Stored by another instance first: that one sends it.
    if (!message) continue;
    told += 1;
    await deliverToCustomer(ctx, record, message);
  }
  return told;
}

/** Publishes a conversation's change to the consoles and tells the chats still waiting in its queue their new place. */
export async function publishRow(ctx: ConversationContext, record: ConversationRecord, type: 'conversation.waiting' | 'conversation.taken' | 'conversation.closed' | 'conversation.transferred'): Promise<ConversationRow> {
  const row = await rowOf(ctx.db, record.id);
  publish(ctx, record, { type, conversation_id: record.id, conversation: row });
  // Every change of a queue's waiting chats passes here: those still waiting hear their new place.
  await tellQueuePlaces(ctx, record.destination_id);
  return row;
}
