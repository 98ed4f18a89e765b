/**
 * Meta's message template (an entry of `GET /{waba-id}/message_templates`, as the Business
 * Management API's reference shows it:
 * https://developers.facebook.com/docs/graph-api/reference/whats-app-business-account/message_templates/
 * and the components guide https://developers.facebook.com/docs/whatsapp/business-management-api/message-templates/components)
 * read into what Voxplan shows and sends. Pure, in lib/ so that both the WhatsApp channel (sending,
 * syncing) and the read-only resource (modules) use the one reading.
 */
import { placeholdersOf, type TemplateButton, type TemplateCategory, type TemplateHeader, type TemplateParameter, type WhatsAppTemplate } from '@voxplan/contracts';

/** One of Meta's components, as much of it as is read. */
export interface MetaComponent {
  type?: string;
  format?: string;
  text?: string;
  example?: { header_text?: string[]; header_handle?: string[]; body_text?: string[][]; header_text_named_params?: { param_name?: string; example?: string }[]; body_text_named_params?: { param_name?: string; example?: string }[] };
  buttons?: { type?: string; text?: string; url?: string; example?: string[] | string; phone_number?: string }[];
}

/** An entry of Meta's `message_templates`. */
export interface MetaTemplate {
  id?: string;
  name?: string;
  language?: string;
  status?: string;
  category?: string;
  rejected_reason?: string;
  parameter_format?: string;
  components?: MetaComponent[];
}

export type ParsedTemplate = Omit<WhatsAppTemplate, 'id' | 'number_id' | 'synced_at'> & { meta_id: string };

const headerFormats = ['text', 'image', 'video', 'document', 'location'] as const;
const buttonTypes: Record<string, TemplateButton['type']> = { QUICK_REPLY: 'quick_reply', URL: 'url', PHONE_NUMBER: 'phone_number', COPY_CODE: 'copy_code' };

/** Positional placeholders in order of their number ({{1}}, {{2}}); named ones as written. */
const orderedNames = (text: string): string[] => {
  const names = placeholdersOf(text);
  return names.every((name) => /^\d+$/.test(name)) ? names.sort((a, b) => Number(a) - Number(b)) : names;
};

function textParameters(component: 'header' | 'body', part: MetaComponent): TemplateParameter[] {
  const names = orderedNames(part.text ?? '');
  const named = component === 'header' ? part.example?.header_text_named_params : part.example?.body_text_named_params;
  const positional = component === 'header' ? part.example?.header_text : part.example?.body_text?.[0];
  return names.map((name, index) => {
    const example = /^\d+$/.test(name) ? positional?.[index] : named?.find((param) => param.param_name === name)?.example;
    return { key: `${component}.${name}`, component, type: 'text' as const, ...(typeof example === 'string' && { example }) };
  });
}

/** A Meta template as Voxplan reads it; anything Meta adds later that is not read is kept in `components` as stored. */
export function parseTemplate(meta: MetaTemplate): ParsedTemplate {
  const components = Array.isArray(meta.components) ? meta.components : [];
  const find = (type: string) => components.find((part) => part.type?.toUpperCase() === type);
  const parameters: TemplateParameter[] = [];
  let header: TemplateHeader | null = null;
  const headerPart = find('HEADER');
  if (headerPart) {
    const format = (headerFormats as readonly string[]).includes(headerPart.format?.toLowerCase() ?? '') ? (headerPart.format!.toLowerCase() as TemplateHeader['format']) : 'text';
    header = format === 'text' ? { format, text: headerPart.text ?? '' } : { format };
    if (format === 'text') parameters.push(...textParameters('header', headerPart));
    else if (format !== 'location') {
      const example = headerPart.example?.header_handle?.[0];
      parameters.push({ key: 'header.1', component: 'header', type: format, ...(typeof example === 'string' && { example }) });
    }
  }
  const bodyPart = find('BODY');
  const bodyText = bodyPart?.text ?? '';
  if (bodyPart) parameters.push(...textParameters('body', bodyPart));
  const footer = find('FOOTER')?.text ?? null;
  const buttons: TemplateButton[] = (find('BUTTONS')?.buttons ?? []).map((button, index) => {
    const type = buttonTypes[button.type?.toUpperCase() ?? ''] ?? 'other';
    // A URL with a placeholder takes its end at sending; a copy-code button its code.
    if ((type === 'url' && placeholdersOf(button.url ?? '').length > 0) || type === 'copy_code') {
      const example = Array.isArray(button.example) ? button.example[0] : button.example;
      parameters.push({ key: `button.${index}`, component: 'button', type: 'text', ...(typeof example === 'string' && { example }) });
    }
    return { index, type, text: button.text ?? '' };
  });
  const category = (meta.category ?? '').toLowerCase();
  return {
    meta_id: String(meta.id ?? ''),
    name: meta.name ?? '',
    language: meta.language ?? '',
    category: (['marketing', 'utility', 'authentication'].includes(category) ? category : 'utility') as TemplateCategory,
    status: (meta.status ?? '').toLowerCase(),
    rejected_reason: meta.rejected_reason && meta.rejected_reason !== 'NONE' ? meta.rejected_reason : '',
    body_text: bodyText,
    header,
    footer,
    parameters,
    buttons,
  };
}

/** A stored row of `whatsapp_templates` as the API and the senders read it. */
export function presentTemplate(row: { id: number; number_id: number; name: string; language: string; category: string; status: string; components: string; rejected_reason: string; synced_time: string; meta_id: string }): WhatsAppTemplate {
  const parsed = parseTemplate({ id: row.meta_id, name: row.name, language: row.language, category: row.category, status: row.status, components: JSON.parse(row.components) as MetaComponent[] });
  const { meta_id: _metaId, ...fields } = parsed;
  return { ...fields, id: row.id, number_id: row.number_id, category: row.category as TemplateCategory, status: row.status, rejected_reason: row.rejected_reason, synced_at: row.synced_time };
}
