/**
 * WhatsApp templates a plan sends (the `whatsapp_template` block, a `send_message`'s fallback:
 * docs/channels-whatsapp.md, "Templates in plans"), and the customer window a plan's turn is
 * run in. The engine reaches these through its Templates and CustomerWindow ports.
 */
import type { TemplateRequest, TemplateResult } from '@voxplan/engine';
import type { Session } from '@voxplan/engine';
import type { WhatsAppTemplate } from '@voxplan/contracts';
import { AppError } from '../../errors.ts';
import { replyMessages } from './outbound.ts';
import { approvedTemplate, presentTemplate, templateMessage, templatePlainText } from './templates.ts';
import { accountByNumber, contactOf, isInCustomerWindow, sendWhatsApp, type WhatsAppContext } from './whatsapp-channel.ts';

const quickReplies = (template: WhatsAppTemplate): string[] => template.buttons.filter((button) => button.type === 'quick_reply').map((button) => button.text);

/**
 * Sends the template from the session's number to `to`, whatever the customer window: Meta takes
 * templates outside it. A value that does not fit its type (template_value_missing /
 * template_value_invalid) is a refusal before anything is sent, as Meta's own (mapped by `post`).
 */
export async function sendPlanTemplate(ctx: WhatsAppContext, request: TemplateRequest): Promise<TemplateResult> {
  const account = await accountByNumber(ctx, request.tenantId, request.from);
  if (!account || account.provider !== 'whatsapp') return { ok: false, reason: 'not_configured' };
  let template: WhatsAppTemplate;
  let message;
  try {
    template = await approvedTemplate(ctx.db, account.number_id, request.template.name, request.template.language);
    message = templateMessage(template, request.values, request.types);
  } catch (error) {
    if (error instanceof AppError) return { ok: false, reason: error.code };
    throw error;
  }
  // The turn's earlier replies first, as the customer is to read them (inside the window only: outside, there are none).
  const before = (request.before ?? []).flatMap((reply) => replyMessages(reply.text, reply.options));
  if (before.length > 0) {
    const earlier = await sendWhatsApp(ctx, account, request.to, before, request.sessionId, request.at);
    if (!earlier.ok) return earlier;
  }
  const sent = await sendWhatsApp(ctx, account, request.to, [message], request.sessionId, request.at);
  if (!sent.ok) return sent;
  return { ok: true, ...(sent.id !== undefined && { id: sent.id }), text: templatePlainText(template, request.values), buttons: quickReplies(template) };
}

/**
 * The template's text for a chat that is not WhatsApp's (the web chat, the simulator): the
 * session's number's template when it is a WhatsApp number, else the one of that name and language
 * any of the tenant's WhatsApp numbers has approved.
 */
export async function planTemplateText(ctx: WhatsAppContext, request: Omit<TemplateRequest, 'to' | 'at'>): Promise<TemplateResult> {
  const rows = await ctx.db
    .selectFrom('whatsapp_templates')
    .innerJoin('numbers', 'numbers.id', 'whatsapp_templates.number_id')
    .selectAll('whatsapp_templates')
    .select('numbers.number')
    .where('numbers.tenant_id', '=', request.tenantId)
    .where('whatsapp_templates.name', '=', request.template.name)
    .where('whatsapp_templates.language', '=', request.template.language)
    .orderBy('whatsapp_templates.number_id')
    .execute();
  const own = rows.find((row) => row.number === request.from);
  const candidates = (own ? [own] : rows).map((row) => presentTemplate(row));
  const template = candidates.find((candidate) => candidate.status === 'approved');
  if (!template) return { ok: false, reason: candidates.length === 0 ? 'template_not_found' : 'template_not_approved' };
  return { ok: true, text: templatePlainText(template, request.values), buttons: quickReplies(template) };
}

/** Whether the session's customer wrote to its WhatsApp number in the 24 hours before `at`; sessions of other providers have no window. */
export async function isSessionWindowOpen(ctx: WhatsAppContext, session: Pick<Session, 'tenant_id' | 'provider' | 'caller' | 'called'>, at: Date): Promise<boolean> {
  if (session.provider !== 'whatsapp') return true;
  const number = await ctx.db.selectFrom('numbers').select('id').where('tenant_id', '=', session.tenant_id).where('number', '=', session.called).executeTakeFirst();
  // A number gone: nothing can be sent anyway, and the sender says why (not_configured).
  if (!number) return true;
  return isInCustomerWindow(ctx.db, number.id, contactOf(session.caller), at);
}
