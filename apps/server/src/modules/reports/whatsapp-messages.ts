import { type ReportWhatsappMessage, whatsappMessageStatuses } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

/** The WhatsApp messages each session sent its customer, oldest first, as Meta last reported them. */
export async function whatsappMessagesOf(db: Kysely<Database>, sessionIds: string[]): Promise<Map<string, ReportWhatsappMessage[]>> {
  const bySession = new Map<string, ReportWhatsappMessage[]>();
  if (sessionIds.length === 0) return bySession;
  const messages = await db
    .selectFrom('whatsapp_messages')
    .select(['id', 'session_id', 'status', 'error', 'sent_time'])
    .where('session_id', 'in', sessionIds)
    .where('direction', '=', 'outbound')
    .orderBy('sent_time')
    .orderBy('id')
    .execute();
  for (const message of messages) {
    if (message.session_id === null || !(whatsappMessageStatuses as readonly string[]).includes(message.status)) continue;
    const list = bySession.get(message.session_id) ?? [];
    list.push({ id: message.id, status: message.status as ReportWhatsappMessage['status'], error: message.error || null, sent_time: message.sent_time });
    bySession.set(message.session_id, list);
  }
  return bySession;
}
