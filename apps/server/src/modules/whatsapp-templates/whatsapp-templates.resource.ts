import { whatsappTemplateSchema, type WhatsAppTemplate } from '@voxplan/contracts';
import type { Selectable } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../db/schema.ts';
import { presentTemplate } from '../../lib/whatsapp-template-parse.ts';
import { defineResource, type Row } from '../../resources/definition.ts';

/**
 * The WhatsApp numbers' message templates (issue 39, docs/channels-whatsapp.md, "Templates"),
 * read-only: they are Meta's, written only by the sync (channels/whatsapp/template-sync.ts). Everyone
 * of the tenant reads them (the composer, the plan editor, campaigns), with the usual filters.
 */
export const whatsappTemplatesResource = defineResource({
  entity: 'whatsapp_template',
  path: '/whatsapp-templates',
  table: 'whatsapp_templates',
  tenantOwned: true,
  readOnly: true,
  read: 'member',
  write: 'member',
  fields: { id: 'integer', tenant_id: 'integer', number_id: 'integer', name: 'string', language: 'string', category: 'string', status: 'string', synced_time: 'date' },
  defaultOrder: [
    { field: 'name', direction: 'asc' },
    { field: 'language', direction: 'asc' },
  ],
  output: whatsappTemplateSchema,
  createInput: z.never(),
  updateInput: z.never(),
  timestamps: { created: false, updated: false },
  present: (rows: Row[]) =>
    rows.map((row): WhatsAppTemplate & { tenant_id: number } => {
      const template = row as unknown as Selectable<Database['whatsapp_templates']>;
      return { ...presentTemplate(template), tenant_id: template.tenant_id };
    }),
});
