/**
 * The local Graph API's templates (whatsapp-graph.ts), as Meta documents them:
 * - the list, `GET /{version}/{waba-id}/message_templates`, cursor-paged (`limit`, `after`;
 *   `paging.cursors.{before,after}`, `paging.next` while more follow; Meta's default page is 25):
 *   https://developers.facebook.com/docs/graph-api/reference/whats-app-business-account/message_templates/
 *   and paging: https://developers.facebook.com/docs/graph-api/results
 * - a template message checked as Meta checks it
 *   (https://developers.facebook.com/docs/whatsapp/cloud-api/guides/send-message-templates), with the
 *   error codes of https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes:
 *   132001 template name does not exist in the translation (unknown, or not approved, in that
 *   language); 132000 number of parameters does not match; 132012 parameter format does not match;
 *   131047 re-engagement message (free-form more than 24 hours after the customer's last message).
 * - the `message_template_status_update` webhook
 *   (https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/message_template_status_update):
 *   `entry[].id` is the WABA id; `changes[].field` the webhook's name; the value's `event` (APPROVED,
 *   REJECTED, PAUSED, DISABLED…), `message_template_id`, `message_template_name`,
 *   `message_template_language`, `reason`.
 */
import type { MetaTemplate } from '../src/lib/whatsapp-template-parse.ts';

/** Meta's error answer (Graph API error object with the Cloud API's `error_data`). */
export const metaError = (code: number, message: string, details: string) => ({
  error: { message: `(#${code}) ${message}`, type: 'OAuthException', code, error_data: { messaging_product: 'whatsapp', details }, fbtrace_id: 'AbCdEfGhIjK' },
});

export interface TemplateAccount {
  /** The token that may read the account's templates. */
  token: string;
  /** The phone number ids that send with the account's templates. */
  phoneNumberIds: string[];
  templates: MetaTemplate[];
}

/** Meta's page when `limit` is not given. */
const DEFAULT_LIMIT = 25;
const cursor = (index: number) => Buffer.from(`tpl:${index}`).toString('base64url');
const fromCursor = (text: string | null) => (text ? Number(Buffer.from(text, 'base64url').toString().slice(4)) : 0);

/** The answer to a `message_templates` GET; null when the path is not that endpoint. */
export function listTemplates(accounts: Map<string, TemplateAccount>, url: URL, authorization: string | undefined): { status: number; body: unknown } | null {
  const match = /^\/graph\/(v[\d.]+)\/([^/]+)\/message_templates$/.exec(url.pathname);
  if (!match) return null;
  const account = accounts.get(decodeURIComponent(match[2]!));
  const bearer = authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : undefined;
  if (!bearer || (account && bearer !== account.token)) {
    return { status: 401, body: { error: { message: 'Invalid OAuth access token - Cannot parse access token', type: 'OAuthException', code: 190, fbtrace_id: 'AbCdEfGhIjK' } } };
  }
  if (!account) {
    return {
      status: 400,
      body: {
        error: {
          message: `Unsupported get request. Object with ID '${match[2]}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
          type: 'GraphMethodException',
          code: 100,
          error_subcode: 33,
        },
      },
    };
  }
  const limit = Math.max(1, Number(url.searchParams.get('limit') ?? DEFAULT_LIMIT) || DEFAULT_LIMIT);
  const start = fromCursor(url.searchParams.get('after'));
  const data = account.templates.slice(start, start + limit);
  const end = start + data.length;
  const paging: Record<string, unknown> = { cursors: { before: cursor(start), after: cursor(Math.max(start, end - 1) + 1) } };
  if (end < account.templates.length) {
    const next = new URL(url);
    next.searchParams.set('after', cursor(end));
    next.searchParams.set('limit', String(limit));
    paging.next = next.toString();
  }
  return { status: 200, body: data.length > 0 ? { data, paging } : { data: [] } };
}

type Sent = { type: string; template?: { name?: string; language?: { code?: string }; components?: { type?: string; sub_type?: string; index?: string; parameters?: Record<string, unknown>[] }[] } };

const placeholders = (text: string | undefined) => new Set([...(text ?? '').matchAll(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g)].map((m) => m[1]!)).size;

/** Whether a parameter object has the shape its `type` names (the reference's parameter object). */
function wellFormed(parameter: Record<string, unknown>, expected: string): boolean {
  if (parameter.type !== expected) return false;
  const value = parameter[expected] as Record<string, unknown> | string | undefined;
  switch (expected) {
    case 'text':
    case 'coupon_code':
      return typeof value === 'string' && value !== '';
    case 'currency':
      return typeof value === 'object' && typeof value.fallback_value === 'string' && typeof value.code === 'string' && Number.isInteger(value.amount_1000);
    case 'date_time':
      return typeof value === 'object' && typeof value.fallback_value === 'string';
    default:
      return typeof value === 'object' && typeof value.link === 'string' && /^https?:\/\//.test(value.link);
  }
}

/** Meta's refusal of a template message, or null when Meta would take it. */
export function checkTemplate(accounts: Map<string, TemplateAccount>, phoneNumberId: string, sent: Sent): { status: number; body: unknown } | null {
  const name = sent.template?.name;
  const language = sent.template?.language?.code;
  const account = [...accounts.values()].find((candidate) => candidate.phoneNumberIds.includes(phoneNumberId));
  const template = account?.templates.find((candidate) => candidate.name === name && candidate.language === language && candidate.status === 'APPROVED');
  if (!template) return { status: 404, body: metaError(132001, 'Template name does not exist in the translation', `template name (${name}) does not exist in ${language}`) };
  const components = sent.template?.components ?? [];
  const part = (type: string) => template.components?.find((component) => component.type === type);
  const given = (type: string) => components.find((component) => component.type === type)?.parameters ?? [];
  const header = part('HEADER');
  const headerMedia = header?.format && header.format !== 'TEXT' ? header.format.toLowerCase() : null;
  const expected = { header: headerMedia ? (header?.format === 'LOCATION' ? 0 : 1) : placeholders(header?.text), body: placeholders(part('BODY')?.text) };
  if (given('header').length !== expected.header || given('body').length !== expected.body) {
    return { status: 400, body: metaError(132000, 'Number of parameters does not match the expected number of params', `body: number of localizable_params (${given('body').length}) does not match the expected number of params (${expected.body})`) };
  }
  const formatError = { status: 400, body: metaError(132012, 'Parameter format does not match format in the created template', 'header: Format mismatch, expected IMAGE, received UNKNOWN') };
  if (given('header').some((parameter) => !wellFormed(parameter, headerMedia ?? 'text'))) return formatError;
  if (given('body').some((parameter) => !['text', 'currency', 'date_time'].some((type) => wellFormed(parameter, type)))) return formatError;
  for (const button of components.filter((component) => component.type === 'button')) {
    const defined = part('BUTTONS')?.buttons?.[Number(button.index)];
    const type = button.sub_type === 'copy_code' ? 'COPY_CODE' : 'URL';
    if (defined?.type !== type || !(button.parameters ?? []).every((parameter) => wellFormed(parameter, type === 'URL' ? 'text' : 'coupon_code'))) return formatError;
  }
  return null;
}

/** A `message_template_status_update` delivery for the account `wabaId`. */
export const templateStatusDelivery = (wabaId: string, value: { event: string; message_template_id: string | number; message_template_name: string; message_template_language: string; reason?: string }) => ({
  object: 'whatsapp_business_account',
  entry: [{ id: wabaId, time: Math.floor(Date.now() / 1000), changes: [{ field: 'message_template_status_update', value: { reason: 'NONE', ...value } }] }],
});
