/**
 * The tenant's synced WhatsApp templates, for the template pickers of the blocks' forms and the
 * editor's live template warnings (docs/channels-whatsapp.md, "Templates in plans"). A template
 * of one name and language on several numbers is offered once: approved where any number has it so.
 */
import type { WhatsAppTemplateChoice } from '@voxplan/blocks/editor';
import type { SyncedTemplate } from '@voxplan/blocks/editor/registry';
import type { WhatsAppTemplate } from '@voxplan/contracts/whatsapp-templates';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api/client.ts';

/** Enough for any tenant's templates (Meta allows a business 250 per account). */
const templatesLimit = 1000;

export type EditorTemplate = WhatsAppTemplateChoice & SyncedTemplate;

export function editorTemplates(rows: readonly WhatsAppTemplate[]): EditorTemplate[] {
  const byKey = new Map<string, EditorTemplate>();
  for (const row of rows) {
    const key = `${row.name}\u0000${row.language}`;
    const known = byKey.get(key);
    if (known && (known.status === 'approved' || row.status !== 'approved')) continue;
    byKey.set(key, {
      name: row.name,
      language: row.language,
      status: row.status,
      parameters: row.parameters.map((parameter) => ({ key: parameter.key, type: parameter.type, ...(parameter.example !== undefined && { example: parameter.example }) })),
      quickReplies: row.buttons.filter((button) => button.type === 'quick_reply').map((button) => button.text),
    });
  }
  return [...byKey.values()].sort((a, b) => a.name.localeCompare(b.name) || a.language.localeCompare(b.language));
}

export function useWhatsAppTemplates(tenantId: number) {
  return useQuery({
    queryKey: ['/whatsapp-templates', tenantId, 'editor'],
    queryFn: ({ signal }) => api.get<WhatsAppTemplate[]>('/whatsapp-templates', { query: { filter: { limit: templatesLimit } }, signal, tenantId }),
    staleTime: 30_000,
    select: editorTemplates,
  });
}
