/**
 * The customer's last message from a queue when an agent resolves the chat (issue 36,
 * docs/conversations.md, "Closing"): the queue's own text in the chat's language (Portuguese for a
 * `pt` session, English otherwise), or the default below when the queue left it empty.
 */
import { defaultClosingMessages } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

export { defaultClosingMessages };

/** Which of a queue's texts a session reads: by its language's first subtag. */
export function closingLanguageOf(language: string | undefined): keyof typeof defaultClosingMessages {
  return language?.toLowerCase().startsWith('pt') ? 'pt' : 'en';
}

/** The text to send when the conversation of `sessionId` at queue `destinationId` is resolved. */
export async function closingMessageFor(db: Kysely<Database>, destinationId: number | null, sessionId: string): Promise<string> {
  const [queue, sessionRow] = await Promise.all([
    destinationId === null
      ? undefined
      : db.selectFrom('destinations').select(['closing_message_en', 'closing_message_pt']).where('id', '=', destinationId).executeTakeFirst(),
    db.selectFrom('sessions').select('state').where('id', '=', sessionId).executeTakeFirst(),
  ]);
  const language = closingLanguageOf(sessionRow ? (JSON.parse(sessionRow.state) as { language?: string }).language : undefined);
  const own = language === 'pt' ? queue?.closing_message_pt : queue?.closing_message_en;
  return own?.trim() || defaultClosingMessages[language];
}
