/**
 * Message templates as Meta's `message_templates` lists them (the reference's fields: id, name,
 * language, status, category, parameter_format, components), for the local Graph API
 * (whatsapp-graph.ts `setTemplates`). Shapes from the components guide:
 * https://developers.facebook.com/docs/whatsapp/business-management-api/message-templates/components
 */
import type { Kysely } from 'kysely';
import { storeTemplates } from '../src/channels/whatsapp/template-sync.ts';
import type { Database } from '../src/db/schema.ts';
import type { MetaTemplate } from '../src/lib/whatsapp-template-parse.ts';

/** Positional: a text header, a body with three placeholders, a footer, two quick replies and a URL with a suffix. */
export const orderUpdate: MetaTemplate = {
  id: '1001',
  name: 'order_update',
  language: 'en_US',
  status: 'APPROVED',
  category: 'UTILITY',
  parameter_format: 'POSITIONAL',
  components: [
    { type: 'HEADER', format: 'TEXT', text: 'Order {{1}}', example: { header_text: ['#1234'] } },
    { type: 'BODY', text: 'Hi {{1}}, your total is {{2}}, due {{3}}.', example: { body_text: [['Ana', 'BRL 12.50', 'May 5']] } },
    { type: 'FOOTER', text: 'Shop Example' },
    {
      type: 'BUTTONS',
      buttons: [
        { type: 'QUICK_REPLY', text: 'Confirm' },
        { type: 'QUICK_REPLY', text: 'Cancel' },
        { type: 'URL', text: 'Track', url: 'https://shop.example.com/track/{{1}}', example: ['https://shop.example.com/track/abc'] },
      ],
    },
  ],
};

/** Named: an image header, a body with a named placeholder, a copy-code button. */
export const promoImage: MetaTemplate = {
  id: '1002',
  name: 'promo_image',
  language: 'pt_BR',
  status: 'APPROVED',
  category: 'MARKETING',
  parameter_format: 'NAMED',
  components: [
    { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['https://scontent.example.com/promo.jpg'] } },
    { type: 'BODY', text: 'Olá {{first_name}}, seu cupom chegou.', example: { body_text_named_params: [{ param_name: 'first_name', example: 'Ana' }] } },
    { type: 'BUTTONS', buttons: [{ type: 'COPY_CODE', example: 'SALE25' }] },
  ],
};

export const invoiceDocument: MetaTemplate = {
  id: '1003',
  name: 'invoice_document',
  language: 'en_US',
  status: 'APPROVED',
  category: 'UTILITY',
  components: [
    { type: 'HEADER', format: 'DOCUMENT', example: { header_handle: ['https://scontent.example.com/invoice.pdf'] } },
    { type: 'BODY', text: 'Your invoice is attached.' },
  ],
};

export const welcomeVideo: MetaTemplate = {
  id: '1004',
  name: 'welcome_video',
  language: 'en_US',
  status: 'APPROVED',
  category: 'MARKETING',
  components: [{ type: 'HEADER', format: 'VIDEO', example: { header_handle: ['https://scontent.example.com/hello.mp4'] } }, { type: 'BODY', text: 'Welcome aboard!' }],
};

export const pendingTemplate: MetaTemplate = { id: '1005', name: 'new_offer', language: 'en_US', status: 'PENDING', category: 'MARKETING', components: [{ type: 'BODY', text: 'A new offer for {{1}}' }] };

export const rejectedTemplate: MetaTemplate = {
  id: '1006',
  name: 'bad_offer',
  language: 'en_US',
  status: 'REJECTED',
  category: 'MARKETING',
  rejected_reason: 'INVALID_FORMAT',
  components: [{ type: 'BODY', text: 'Buy now!!!' }],
};

export const allTemplates = [orderUpdate, promoImage, invoiceDocument, welcomeVideo, pendingTemplate, rejectedTemplate];

/**
 * A template of the tenant as a sync stores it, on a WhatsApp number of its own (number `n`): for
 * the tests that read every resource. Answers the template's id.
 */
export async function seedTemplate(db: Kysely<Database>, tenantId: number, n: number): Promise<number> {
  const now = new Date().toISOString();
  const number = await db
    .insertInto('numbers')
    .values({ tenant_id: tenantId, number: `+5531${String(n).padStart(8, '0')}`, provider: 'whatsapp', voice_plan_id: null, chat_plan_id: null, whatsapp_token: null, whatsapp_app_secret: null, webchat_key: null, webchat_identity_secret: null, created_time: now, updated_time: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  await storeTemplates(db, { number_id: number.id, tenant_id: tenantId }, [{ ...orderUpdate, id: `seed-${n}`, name: `seeded_${n}` }]);
  const stored = await db.selectFrom('whatsapp_templates').select('id').where('number_id', '=', number.id).executeTakeFirstOrThrow();
  return stored.id;
}
