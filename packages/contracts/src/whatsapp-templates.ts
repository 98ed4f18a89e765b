/**
 * WhatsApp message templates (issue 39, docs/channels-whatsapp.md, "Templates"): what Meta approved
 * for a number to send outside the customer's 24-hour window, as the server parses Meta's
 * `message_templates` entries. Its own module, without zod, so that the console's composer and plan
 * editor can fill a template's text without loading the schemas.
 */

export const templateCategories = ['marketing', 'utility', 'authentication'] as const;
export type TemplateCategory = (typeof templateCategories)[number];

/** Meta's statuses, lower-cased; another Meta may add is kept as it comes. */
export const templateStatuses = ['approved', 'pending', 'rejected', 'paused', 'disabled', 'in_appeal', 'pending_deletion', 'deleted', 'limit_exceeded', 'archived'] as const;
export type TemplateStatus = (typeof templateStatuses)[number] | (string & {});

/** Meta's daily messaging limit tiers: unique customers a number reaches in 24 hours outside the window; null: unlimited. */
export const whatsappDailyLimits = [250, 2000, 10000, 100000, null] as const;

export type TemplateParameterType = 'text' | 'currency' | 'date_time' | 'image' | 'video' | 'document';

/**
 * A value a template needs. `key` is stable across syncs: `header.1`; `body.1`…`body.n` (positional
 * placeholders) or `body.<name>` (named ones); `button.<index>` for a URL button's suffix.
 */
export interface TemplateParameter {
  key: string;
  component: 'header' | 'body' | 'button';
  type: TemplateParameterType;
  /** Meta's example for it, when the template gave one. */
  example?: string;
}

export interface TemplateButton {
  /** Its position among the template's buttons, from 0 (what a sent button component names). */
  index: number;
  type: 'quick_reply' | 'url' | 'phone_number' | 'copy_code' | 'other';
  text: string;
}

export interface TemplateHeader {
  format: 'text' | 'image' | 'video' | 'document' | 'location';
  text?: string;
}

export interface WhatsAppTemplate {
  id: number;
  number_id: number;
  name: string;
  /** Meta's language code: pt_BR, en_US. */
  language: string;
  category: TemplateCategory;
  status: TemplateStatus;
  /** Why Meta rejected it (its reason, e.g. INVALID_FORMAT); '' otherwise. */
  rejected_reason: string;
  /** The body with its placeholders (`{{1}}`, `{{name}}`). */
  body_text: string;
  header: TemplateHeader | null;
  footer: string | null;
  parameters: TemplateParameter[];
  buttons: TemplateButton[];
  synced_at: string;
}

/** A template's values, by parameter key. */
export type TemplateValues = Record<string, string>;

/**
 * The value form of each type, as `templateMessage` reads them: text as is; currency as an ISO 4217
 * code and an amount with a dot for decimals, either way round (`BRL 12.50`, `12.50 BRL`); date_time
 * as the text shown (Meta sends it as given); media as an http(s) link.
 */
export const templateValueForms: Record<TemplateParameterType, string> = {
  text: 'text',
  currency: 'BRL 12.50',
  date_time: 'text',
  image: 'https://…',
  video: 'https://…',
  document: 'https://…',
};

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/** The names of a text's placeholders, in order of first appearance (`1`, `2` or `order_id`). */
export function placeholdersOf(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(PLACEHOLDER)) if (!names.includes(match[1]!)) names.push(match[1]!);
  return names;
}

/**
 * A component's text with its placeholders filled from `values` (keys `<component>.<name>`); a
 * placeholder without a value stays as written, so that what is missing shows.
 */
export function fillTemplateText(text: string, component: 'header' | 'body', values: TemplateValues): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => values[`${component}.${name}`] ?? whole);
}

/** What a person reads of a sent template: its header's text, body and footer, filled, a line apart. */
export function templateText(template: Pick<WhatsAppTemplate, 'header' | 'body_text' | 'footer'>, values: TemplateValues): string {
  const header = template.header?.format === 'text' && template.header.text ? fillTemplateText(template.header.text, 'header', values) : '';
  return [header, fillTemplateText(template.body_text, 'body', values), template.footer ?? ''].filter((part) => part.trim() !== '').join('\n\n');
}
