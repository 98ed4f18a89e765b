/**
 * Warnings about the WhatsApp templates a plan sends (the `whatsapp_template` block, a WhatsApp
 * `send_message`'s fallback), against the tenant's synced templates: one that is not synced (any
 * more) or not approved is never sent; a parameter left unmapped makes Meta refuse it. Shared by
 * the server's lint and the editor (as the plan is edited); nothing here loads a block's schema.
 */
import type { PlanIssue, PlanWarningCode } from './issues.ts';

/** What the warnings read of a synced template. */
export interface SyncedTemplate {
  name: string;
  language: string;
  status: string;
  parameters: ReadonlyArray<{ key: string }>;
}

/** Where a block keeps its template: the name, language and parameters fields. */
const templateFields: Readonly<Record<string, { name: string; language: string; parameters: string; when?: [string, string] }>> = {
  whatsapp_template: { name: 'template_name', language: 'language', parameters: 'parameters' },
  send_message: { name: 'fallback_template_name', language: 'fallback_language', parameters: 'fallback_parameters', when: ['channel', 'whatsapp'] },
};

const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

export function templateWarnings(nodes: readonly { id: string; type: string; data?: unknown }[], synced: readonly SyncedTemplate[]): Array<PlanIssue<PlanWarningCode>> {
  const warnings: Array<PlanIssue<PlanWarningCode>> = [];
  for (const node of nodes) {
    const fields = templateFields[node.type];
    if (!fields) continue;
    const data = (node.data ?? {}) as Record<string, unknown>;
    if (fields.when && data[fields.when[0]] !== fields.when[1]) continue;
    const name = textOf(data[fields.name]);
    const language = textOf(data[fields.language]);
    if (name === '') continue;
    const template = synced.find((candidate) => candidate.name === name && candidate.language === language);
    if (!template) {
      warnings.push({ code: 'template_not_synced', message: `the WhatsApp template ${name} (${language}) is not among the synced templates: it cannot be sent`, node_id: node.id, path: fields.name });
      continue;
    }
    if (template.status !== 'approved') {
      warnings.push({ code: 'template_not_approved', message: `the WhatsApp template ${name} (${language}) is ${template.status}, not approved: Meta does not send it`, node_id: node.id, path: fields.name });
    }
    const mappings = Array.isArray(data[fields.parameters]) ? (data[fields.parameters] as unknown[]) : [];
    for (const parameter of template.parameters) {
      const index = mappings.findIndex((item) => item !== null && typeof item === 'object' && (item as { key?: unknown }).key === parameter.key);
      const value = index === -1 ? '' : textOf((mappings[index] as { value?: unknown }).value);
      if (value.trim() !== '') continue;
      warnings.push({
        code: 'template_parameter_unmapped',
        message: `the parameter ${parameter.key} of the WhatsApp template ${name} is not mapped: Meta refuses the template without it`,
        node_id: node.id,
        path: index === -1 ? `${fields.parameters}` : `${fields.parameters}.${index}.value`,
      });
    }
  }
  return warnings;
}
