/**
 * WhatsApp templates for the agent's composer tests (server and e2e), as Meta's `message_templates`
 * lists them (https://developers.facebook.com/docs/whatsapp/business-management-api/message-templates/components):
 * between them every parameter type: a text, a currency and a date in a body, a named body
 * parameter, an image, a video and a document header, and a URL button's suffix. Stored as a sync
 * would store them, and given to the local Graph API, which checks what is sent against them.
 */
import type { AppContext } from '../src/context.ts';
import type { MetaTemplate } from '../src/lib/whatsapp-template-parse.ts';

export const orderShipped: MetaTemplate = {
  id: '1409853816392201',
  name: 'order_shipped',
  language: 'en_US',
  status: 'APPROVED',
  category: 'UTILITY',
  components: [
    { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['https://scontent.whatsapp.net/v/t61/parcel.jpg'] } },
    {
      type: 'BODY',
      text: 'Hi {{1}}, your order of {{2}} ships on {{3}}.',
      example: { body_text: [['Ana', 'BRL 120.00', 'December 24, 2026']] },
    },
    { type: 'FOOTER', text: 'Voxplan Shop' },
    { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Track it', url: 'https://shop.example.com/track/{{1}}', example: ['https://shop.example.com/track/A-123'] }] },
  ],
};

export const welcomeVideo: MetaTemplate = {
  id: '1409853816392202',
  name: 'welcome_video',
  language: 'pt_BR',
  status: 'APPROVED',
  category: 'MARKETING',
  components: [
    { type: 'HEADER', format: 'VIDEO', example: { header_handle: ['https://scontent.whatsapp.net/v/t61/welcome.mp4'] } },
    { type: 'BODY', text: 'Olá {{1}}! Veja como usar o seu plano.', example: { body_text: [['Ana']] } },
  ],
};

export const invoiceReady: MetaTemplate = {
  id: '1409853816392203',
  name: 'invoice_ready',
  language: 'en_US',
  status: 'APPROVED',
  category: 'UTILITY',
  parameter_format: 'NAMED',
  components: [
    { type: 'HEADER', format: 'DOCUMENT', example: { header_handle: ['https://scontent.whatsapp.net/v/t61/invoice.pdf'] } },
    { type: 'BODY', text: 'Dear {{customer}}, your invoice is attached.', example: { body_text_named_params: [{ param_name: 'customer', example: 'Ana' }] } },
  ],
};

/** Paused at Meta (its quality fell): kept, shown, never offered nor sent. */
export const pausedPromo: MetaTemplate = {
  id: '1409853816392204',
  name: 'spring_promo',
  language: 'en_US',
  status: 'PAUSED',
  category: 'MARKETING',
  components: [{ type: 'BODY', text: 'Spring sale: 20% off until Sunday.' }],
};

export const composerTemplates = [orderShipped, welcomeVideo, invoiceReady, pausedPromo];

/** Stores the templates for the number as the sync does (`whatsapp_templates`, Meta's components as JSON). */
export async function storeTemplates(ctx: Pick<AppContext, 'db'>, tenantId: number, numberId: number, templates: readonly MetaTemplate[]): Promise<void> {
  const now = new Date().toISOString();
  await ctx.db
    .insertInto('whatsapp_templates')
    .values(
      templates.map((template) => ({
        tenant_id: tenantId,
        number_id: numberId,
        meta_id: template.id ?? '',
        name: template.name ?? '',
        language: template.language ?? '',
        category: (template.category ?? 'UTILITY').toLowerCase() as 'marketing' | 'utility' | 'authentication',
        status: (template.status ?? '').toLowerCase(),
        components: JSON.stringify(template.components ?? []),
        rejected_reason: '',
        synced_time: now,
      })),
    )
    .execute();
}
