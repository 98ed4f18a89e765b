/**
 * The tenant's synced WhatsApp templates a plan's blocks name, for the plan's template warnings
 * (packages/blocks plan/template-warnings.ts): read only when a block sends a template.
 */
import type { SyncedTemplate, ValidatedDocument } from '@voxplan/blocks/definitions';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { presentTemplate } from '../../lib/whatsapp-template-parse.ts';

const sendsTemplate = (node: ValidatedDocument['nodes'][number]): boolean => {
  const data = node.data as Record<string, unknown>;
  return node.type === 'whatsapp_template' || (node.type === 'send_message' && data.channel === 'whatsapp' && data.fallback_template_name !== '');
};

/** Null when no block sends a template: nothing to warn about, nothing read. */
export async function syncedTemplatesFor(db: Kysely<Database>, tenantId: number, document: ValidatedDocument): Promise<SyncedTemplate[] | null> {
  if (!document.nodes.some(sendsTemplate)) return null;
  const rows = await db.selectFrom('whatsapp_templates').selectAll().where('tenant_id', '=', tenantId).execute();
  const templates = rows.map((row) => presentTemplate(row));
  // A template on several numbers counts as approved where any has it so (as the editor offers it).
  return templates.sort((a, b) => Number(b.status === 'approved') - Number(a.status === 'approved'));
}
