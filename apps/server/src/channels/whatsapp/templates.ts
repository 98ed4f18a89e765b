/**
 * WhatsApp message templates (docs/channels-whatsapp.md, "Templates"): a synced template, filled
 * with its values, as the Graph API's `type: template` message, and as the plain text that the
 * transcript, the report and channels other than WhatsApp show in its place.
 *
 * Send-message reference: https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages#template-object
 * Template messages guide: https://developers.facebook.com/docs/whatsapp/cloud-api/guides/send-message-templates
 */
import { type TemplateParameter, templateText, type TemplateValues, templateValueForms, type WhatsAppTemplate } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { presentTemplate } from '../../lib/whatsapp-template-parse.ts';
import type { GraphMessage, GraphTemplateComponent, GraphTemplateParameter } from './outbound.ts';

export { type MetaTemplate, parseTemplate, presentTemplate } from '../../lib/whatsapp-template-parse.ts';

/** How a text parameter may be sent instead of as text: a plan's mapping chooses (Meta's template does not say). */
export type TemplateTextType = 'text' | 'currency' | 'date_time';

/**
 * A currency value: an ISO 4217 code and an amount with a dot for decimals (at most 3), either way
 * round: `BRL 12.50`, `12.50 BRL`. Meta takes the amount times 1,000.
 */
const CURRENCY = /^(?:([A-Z]{3})\s+(-?\d+(?:\.\d{1,3})?)|(-?\d+(?:\.\d{1,3})?)\s+([A-Z]{3}))$/;
const LINK = /^https?:\/\/\S+$/;

export function parseCurrency(value: string): { code: string; amount_1000: number } | null {
  const match = CURRENCY.exec(value.trim());
  if (!match) return null;
  const code = match[1] ?? match[4]!;
  const amount = match[2] ?? match[3]!;
  return { code, amount_1000: Math.round(Number(amount) * 1000) };
}

const invalid = (parameter: TemplateParameter, type: string) =>
  new AppError(422, 'template_value_invalid', [{ path: `values.${parameter.key}`, message: `not a ${type}: ${templateValueForms[type as keyof typeof templateValueForms] ?? ''}` }], undefined, {
    key: parameter.key,
    type,
    form: templateValueForms[type as keyof typeof templateValueForms] ?? '',
  });

/** One parameter's value as Meta types it; throws template_value_missing / template_value_invalid. */
function graphParameter(parameter: TemplateParameter, values: TemplateValues, types: Partial<Record<string, TemplateTextType>>): GraphTemplateParameter {
  const raw = values[parameter.key];
  if (raw === undefined || raw.trim() === '') {
    throw new AppError(422, 'template_value_missing', [{ path: `values.${parameter.key}`, message: 'required' }], undefined, { key: parameter.key });
  }
  const value = raw.trim();
  const name = parameter.key.slice(parameter.key.indexOf('.') + 1);
  // A named template's placeholders are sent by name; positional ones ({{1}}) by order.
  const named = parameter.component !== 'button' && !/^\d+$/.test(name) ? { parameter_name: name } : {};
  const type = parameter.type === 'text' ? (types[parameter.key] ?? 'text') : parameter.type;
  switch (type) {
    case 'text':
      return { type: 'text', text: value, ...named };
    case 'currency': {
      const currency = parseCurrency(value);
      if (!currency) throw invalid(parameter, 'currency');
      return { type: 'currency', currency: { fallback_value: value, ...currency }, ...named };
    }
    case 'date_time':
      return { type: 'date_time', date_time: { fallback_value: value }, ...named };
    case 'image':
    case 'video':
    case 'document':
      if (!LINK.test(value)) throw invalid(parameter, type);
      return type === 'image' ? { type, image: { link: value } } : type === 'video' ? { type, video: { link: value } } : { type, document: { link: value } };
  }
}

/**
 * The template, filled, as a Graph API message: a header and a body component with their
 * parameters in order, a component per button that takes a value (a URL's suffix, a coupon code).
 * `types` sends text parameters as currency or date_time. Every missing or badly typed value is an
 * AppError (422) naming its key, before anything is sent.
 */
export function templateMessage(template: Pick<WhatsAppTemplate, 'name' | 'language' | 'parameters' | 'buttons'>, values: TemplateValues, types: Partial<Record<string, TemplateTextType>> = {}): GraphMessage {
  const components: GraphTemplateComponent[] = [];
  for (const component of ['header', 'body'] as const) {
    const parameters = template.parameters.filter((parameter) => parameter.component === component).map((parameter) => graphParameter(parameter, values, types));
    if (parameters.length > 0) components.push({ type: component, parameters });
  }
  for (const parameter of template.parameters.filter((candidate) => candidate.component === 'button')) {
    const index = parameter.key.slice('button.'.length);
    const button = template.buttons.find((candidate) => String(candidate.index) === index);
    const text = graphParameter(parameter, values, {});
    if (button?.type === 'copy_code') {
      components.push({ type: 'button', sub_type: 'copy_code', index, parameters: [{ type: 'coupon_code', coupon_code: text.type === 'text' ? text.text : '' }] });
    } else {
      components.push({ type: 'button', sub_type: 'url', index, parameters: [text] });
    }
  }
  return { type: 'template', template: { name: template.name, language: { code: template.language }, components } };
}

/** What a person reads of the template sent: header text, body and footer with the values in. */
export const templatePlainText = (template: Pick<WhatsAppTemplate, 'header' | 'body_text' | 'footer'>, values: TemplateValues): string => templateText(template, values);

/** A number's template by name and language, as synced; undefined when the number has none such. */
export async function findTemplate(db: Kysely<Database>, numberId: number, name: string, language: string): Promise<WhatsAppTemplate | undefined> {
  const row = await db.selectFrom('whatsapp_templates').selectAll().where('number_id', '=', numberId).where('name', '=', name).where('language', '=', language).executeTakeFirst();
  return row ? presentTemplate(row) : undefined;
}

/** The template, refused (422 template_not_found / template_not_approved) unless the number has it approved. */
export async function approvedTemplate(db: Kysely<Database>, numberId: number, name: string, language: string): Promise<WhatsAppTemplate> {
  const template = await findTemplate(db, numberId, name, language);
  if (!template) throw new AppError(422, 'template_not_found', [{ path: 'name', message: `no template ${name} (${language})` }], undefined, { name, language });
  if (template.status !== 'approved') {
    throw new AppError(422, 'template_not_approved', [{ path: 'name', message: `${name} is ${template.status}` }], undefined, { name, status: template.status });
  }
  return template;
}
