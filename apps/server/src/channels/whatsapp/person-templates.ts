/**
 * Templates a person sends from the Conversations composer (docs/conversations.md, "The customer
 * service window"): outside the 24-hour window WhatsApp takes only a template Meta approved for the
 * number. The number's approved templates are offered; one sent is checked (the template, each
 * value typed as Meta types it) before anything goes, then sent through `sendWhatsApp`, and a
 * refusal is an error with a catalogue code, so that the conversation stores nothing on one.
 */
import type { AgentTemplateMessage, WhatsAppTemplate } from '@voxplan/contracts';
import { AppError } from '../../errors.ts';
import type { CustomerAddress } from '../channel.ts';
import { approvedTemplate, presentTemplate, templateMessage, templatePlainText } from './templates.ts';
import { accountByNumber, sendWhatsApp, type WhatsAppContext } from './whatsapp-channel.ts';

/** The approved templates of the number the customer wrote to, by name and language. */
export async function approvedTemplatesFor(ctx: WhatsAppContext, to: CustomerAddress): Promise<WhatsAppTemplate[]> {
  const account = await accountByNumber(ctx, to.tenant_id, to.called);
  if (!account) return [];
  const rows = await ctx.db.selectFrom('whatsapp_templates').selectAll().where('number_id', '=', account.number_id).where('status', '=', 'approved').orderBy('name').orderBy('language').execute();
  return rows.map(presentTemplate);
}

/**
 * Sends the template to the customer: 422 `template_not_found` / `template_not_approved` /
 * `template_value_missing` / `template_value_invalid` before anything is sent; Meta's refusal 422
 * `whatsapp_meta_refused` (its reason), Meta out of reach 503 `whatsapp_meta_unreachable`.
 * Answers the text the customer reads (header, body and footer with the values).
 */
export async function sendPersonTemplate(ctx: WhatsAppContext, to: CustomerAddress, request: AgentTemplateMessage): Promise<{ text: string }> {
  const account = await accountByNumber(ctx, to.tenant_id, to.called);
  if (!account || account.provider !== 'whatsapp') throw new AppError(422, 'number_not_whatsapp');
  const template = await approvedTemplate(ctx.db, account.number_id, request.name, request.language);
  const message = templateMessage(template, request.values, request.types);
  const sent = await sendWhatsApp(ctx, account, to.caller, [message], to.session_id);
  if (!sent.ok) {
    if (sent.reason === 'timeout' || sent.reason === 'network') throw new AppError(503, 'whatsapp_meta_unreachable');
    // Meta's outcome (meta-errors.ts) and its code, as the catalogue's text names them.
    throw new AppError(422, 'whatsapp_meta_refused', undefined, undefined, { reason: sent.code === undefined ? sent.reason : `${sent.reason} (${sent.code})` });
  }
  return { text: templatePlainText(template, request.values) };
}
