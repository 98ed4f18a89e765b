import type { WebchatConversation, WebchatOption } from '@voxplan/contracts';
import type { Action } from '@voxplan/engine';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { StoredOutcome } from '../sessions/sessions.repository.ts';
import type { StoredSession } from '../sessions/sessions.service.ts';

/** The options of the last reply that offered some, when the turn ends on it: a menu waits for them. */
function pendingOptions(actions: readonly Action[]): WebchatOption[] {
  const last = actions.at(-1);
  return last?.type === 'reply' && last.options ? last.options.map(({ id, label }) => ({ id, label })) : [];
}

/**
 * What the widget shows of a conversation: the transcript the engine keeps (so a reload shows the
 * same messages, from any instance), and the buttons of the menu it waits on, from the last turn
 * that did something (an ignored message changes nothing the user sees).
 */
export async function conversationView(db: Kysely<Database>, stored: StoredSession): Promise<WebchatConversation> {
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
  return {
    conversation_id: session.id,
    status: session.status === 'ended' ? 'ended' : 'waiting',
    revision: stored.revision,
    messages: session.transcript.map((entry) => ({ from: entry.from === 'caller' ? 'user' : 'plan', text: entry.text, at: entry.at })),
    options,
  };
}
