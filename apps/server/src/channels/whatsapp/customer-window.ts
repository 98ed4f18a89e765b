/**
 * When a WhatsApp customer last wrote to a number (docs/channels-whatsapp.md, "The 24-hour customer
 * service window"): the newest inbound message recorded for them, dated by Meta's `timestamp`, the
 * same record `sendWhatsApp` keeps the window by, so that what the agent's composer shows and what
 * the server sends agree.
 */
import type { CustomerAddress } from '../channel.ts';
import { accountByNumber, contactOf, type WhatsAppContext } from './whatsapp-channel.ts';

/** Null when the number is not (or no longer) a WhatsApp number of the tenant, or the customer never wrote to it. */
export async function customerLastWrote(ctx: WhatsAppContext, to: CustomerAddress): Promise<string | null> {
  const account = await accountByNumber(ctx, to.tenant_id, to.called);
  if (!account) return null;
  const row = await ctx.db
    .selectFrom('whatsapp_messages')
    .select((eb) => eb.fn.max('sent_time').as('last'))
    .where('number_id', '=', account.number_id)
    .where('contact', '=', contactOf(to.caller))
    .where('direction', '=', 'inbound')
    .executeTakeFirst();
  return row?.last ?? null;
}
