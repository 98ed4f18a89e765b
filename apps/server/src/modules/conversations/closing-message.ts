/**
 * The customer's last message from a queue when an agent resolves the chat (issue 36,
 * docs/conversations.md, "Closing"): the queue's own text in the chat's language (Portuguese for a
 * `pt` chat, English otherwise), or the default below when the queue left it empty. The chat's
 * language is the one its plan speaks in: the plan's own, else the session's (the tenant's).
 */
import { defaultClosingMessages } from '@voxplan/contracts';
import { currentFrame, type Session } from '@voxplan/engine';
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
  const language = await chatLanguageOf(db, sessionRow?.state);
  const own = language === 'pt' ? queue?.closing_message_pt : queue?.closing_message_en;
  return own?.trim() || defaultClosingMessages[language];
}

/**
 * What a chat's lines from the server (its queue's place, its goodbye) are written in: the plan's
 * language, else the session's (the tenant's). `state`: the session's stored state.
 */
export async function chatLanguageOf(db: Kysely<Database>, state: string | undefined): Promise<keyof typeof defaultClosingMessages> {
  const session = state ? (JSON.parse(state) as Session) : undefined;
  return closingLanguageOf((session && (await planLanguageOf(db, session))) || session?.language);
}

/**
 * The language the plan the chat is in names in its settings, as the engine reads it for the plan's
 * own messages: a Portuguese plan in an English tenant writes its chats in Portuguese, and so must
 * its queue's goodbye. A test session's draft version is looked up when no published one has it.
 */
async function planLanguageOf(db: Kysely<Database>, session: Session): Promise<string | undefined> {
  const frame = currentFrame(session);
  const published = await db.selectFrom('visual_plan_versions').select('document').where('plan_id', '=', frame.plan_id).where('version', '=', frame.plan_version).executeTakeFirst();
  const document =
    published?.document ??
    (await db.selectFrom('visual_plans').select('document').where('id', '=', frame.plan_id).where('version', '=', frame.plan_version).executeTakeFirst())?.document;
  if (!document) return undefined;
  const settings = (JSON.parse(document) as { settings?: { language?: unknown } }).settings;
  return typeof settings?.language === 'string' && settings.language !== '' ? settings.language : undefined;
}
