import type { WebchatConversation, WebchatOption } from '@voxplan/contracts';
import type { Action } from '@voxplan/engine';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { StoredOutcome } from '../../modules/sessions/sessions.repository.ts';
import type { StoredSession } from '../../modules/sessions/sessions.service.ts';
import type { MediaUrls } from '../../modules/audios/media-urls.ts';
import { attachmentView } from '../../modules/conversations/attachments.ts';

/** The options of the last reply that offered some, when the turn ends on it: a menu waits for them. */
function pendingOptions(actions: readonly Action[]): WebchatOption[] {
  const last = actions.at(-1);
  return last?.type === 'reply' && last.options ? last.options.map(({ id, label }) => ({ id, label })) : [];
}

/** A person typing in the chat, as this instance heard it, and since when. */
export interface TypingSince {
  agent_name: string;
  since: string;
}

/**
 * What the widget shows of a conversation: the transcript the engine keeps (so a reload shows the
 * same messages, from any instance), and the buttons of the menu it waits on, from the last turn
 * that did something (an ignored message changes nothing the user sees).
 */
export async function conversationView(db: Kysely<Database>, media: MediaUrls, stored: StoredSession, typing: TypingSince | null = null): Promise<WebchatConversation> {
  const { session } = stored;
  let options: WebchatOption[] = [];
  if (session.status !== 'ended') {
    const rows = await db
      .selectFrom('session_events')
      .select('outcome')
      .where('session_id', '=', session.id)
      .orderBy('revision', 'desc')
      .limit(10)
      .execute();
    const outcome = rows.map((row) => JSON.parse(row.outcome) as StoredOutcome).find((candidate) => !candidate.ignored);
    if (outcome) options = pendingOptions(outcome.actions);
  }
  // What was said with a person (docs/conversations.md): merged with the plan's transcript by time.
  const withPeople = await db
    .selectFrom('conversation_messages as m')
    .innerJoin('conversations as c', 'c.id', 'm.conversation_id')
    .leftJoin('users as u', 'u.id', 'm.agent_id')
    // An outside desk's messages have no user: the customer sees the destination's name.
    .leftJoin('destinations as d', 'd.id', 'c.destination_id')
    .select((eb) => ['m.author', 'm.text', 'm.attachment', 'm.created_at', eb.fn.coalesce('u.name', 'd.name').as('agent_name')])
    .where('c.session_id', '=', session.id)
    // `bot`: the queue's own lines (the customer's place while waiting), shown as the plan's.
    .where('m.author', 'in', ['customer', 'agent', 'bot'])
    .orderBy('m.id')
    .execute();
  const messages: WebchatConversation['messages'] = [
    ...session.transcript.map((entry) => ({ from: entry.from === 'caller' ? ('user' as const) : ('plan' as const), text: entry.text, at: entry.at })),
    ...withPeople.map((message) => {
      // The widget shows the file itself (an image inline, else a download link).
      const attachment = attachmentView(media, message.attachment);
      const said = { text: message.text, at: message.created_at, ...(attachment && { attachment }) };
      if (message.author === 'bot') return { from: 'plan' as const, text: message.text, at: message.created_at };
      return message.author === 'agent' ? { from: 'agent' as const, ...said, agent_name: message.agent_name ?? '' } : { from: 'user' as const, ...said };
    }),
  ].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  // A conversation holds the chat (waiting for a person, or with one): files go to it; plans read none.
  const held = session.status !== 'ended' && (await db.selectFrom('conversations').select('id').where('session_id', '=', session.id).where('status', '<>', 'closed').executeTakeFirst()) !== undefined;
  return {
    conversation_id: session.id,
    status: session.status === 'ended' ? 'ended' : 'waiting',
    // Grows with each turn and each message with a person: the widget's poll waits past it.
    revision: stored.revision + withPeople.length,
    messages,
    options: withPeople.length > 0 && messages.at(-1)?.from !== 'plan' ? [] : options,
    files: held,
    // A message of theirs stored since they typed ends the typing, even before this instance hears of it.
    typing: typing && !withPeople.some((message) => message.author === 'agent' && message.created_at >= typing.since) ? { type: 'typing', agent_name: typing.agent_name } : null,
  };
}
