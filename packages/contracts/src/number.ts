import { z } from 'zod';
import { idSchema, timestampSchema } from './common.ts';
import { webchatPrechatFields } from './customer.ts';
import { whatsappDailyLimits } from './whatsapp-templates.ts';

/**
 * Phone numbers (DIDs, spec sections 2 and 3): a number in E.164 belongs to one tenant across the
 * whole system. A call or chat to it runs the plan of its first matching rule, else its own plan
 * for the channel (apps/server/src/modules/numbers/number-lookup.ts).
 */

export const numberProviders = ['twilio', 'asterisk', 'whatsapp', 'webchat'] as const;
export type NumberProvider = (typeof numberProviders)[number];

export const numberLimits = { rules: 50, callerPrefixes: 50, description: 500, whatsappField: 200, whatsappToken: 1000, webchatOrigins: 50, webchatName: 60 } as const;

// ITU-T E.164: a + then up to 15 digits, the first (the country code's) not 0.
const E164 = /^\+[1-9]\d{1,14}$/;
export const isE164 = (text: string): boolean => E164.test(text);

// The start of a caller's number: digits, with the + of E.164 allowed in front.
const CALLER_PREFIX = /^\+?\d{1,15}$/;
export const isCallerPrefix = (text: string): boolean => CALLER_PREFIX.test(text);

// eslint-disable-next-line no-control-regex -- a name holding control characters is refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** A web chat's name, which it has instead of a phone number: what agents and reports read. */
export const isWebchatName = (text: string): boolean => text.length > 0 && text.length <= numberLimits.webchatName && !CONTROL.test(text);

/**
 * Whether a caller's number starts with a prefix. Compared on digits alone, so "+5511" and
 * "5511" both match "+551140000000" (providers differ on whether they send the +).
 */
export function callerMatchesPrefix(caller: string, prefix: string): boolean {
  const digits = (text: string) => text.replace(/^\+/, '');
  return digits(caller).startsWith(digits(prefix));
}

/**
 * The refinement messages name console translation keys (validation.custom.<message>), so that
 * the form and the API's details say the same thing.
 */
export const numberMessages = { number: 'invalidE164', prefix: 'invalidCallerPrefix', ruleCondition: 'ruleNeedsCondition', origin: 'invalidOrigin', whatsappRequired: 'whatsappRequired', webchatName: 'invalidWebchatName', wabaId: 'invalidWabaId' } as const;

/**
 * What is wrong with a number's `number` for its provider (a refinement message), or null: a phone
 * number in E.164, a web chat's name (docs/channels-webchat.md). Checked on the whole body, since
 * the provider decides; the server checks an edit that names only one of them against the other
 * as stored.
 */
export function numberIssue(provider: NumberProvider, number: string): string | null {
  if (provider === 'webchat') return isWebchatName(number) ? null : numberMessages.webchatName;
  return isE164(number) ? null : numberMessages.number;
}

/** What Meta's Cloud API needs before a WhatsApp number can send and receive (docs/channels-whatsapp.md). */
export const whatsappRequiredFields = ['whatsapp_token', 'whatsapp_phone_number_id', 'whatsapp_app_secret'] as const;
export type WhatsappRequiredField = (typeof whatsappRequiredFields)[number];

/**
 * The fields of Meta's a WhatsApp number lacks (empty or absent); none for other providers. A
 * number saved without them is a draft: it cannot take messages yet.
 */
export function missingWhatsappFields(number: { provider?: unknown } & Partial<Record<WhatsappRequiredField, unknown>>): WhatsappRequiredField[] {
  if (number.provider !== 'whatsapp') return [];
  return whatsappRequiredFields.filter((field) => typeof number[field] !== 'string' || number[field].trim() === '');
}

/**
 * A web page's origin as browsers send it in `Origin`: http or https, a host, an optional port,
 * nothing after (no path, no trailing slash), so that it compares equal to the header as is.
 */
const ORIGIN = /^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?$|^https?:\/\/\[[0-9a-f:.]+\](?::\d{1,5})?$/;
export const isWebOrigin = (text: string): boolean => ORIGIN.test(text);

export const numberRuleSchema = z.object({
  /** In hours of this date range (as the date_range block decides it); null: at any time. */
  date_range_id: idSchema.nullable(),
  /** The caller's number starts with one of these; empty: any caller. */
  caller_prefixes: z.array(z.string()),
  plan_id: idSchema,
});
export type NumberRule = z.infer<typeof numberRuleSchema>;

export const numberRuleInputSchema = z
  .object({
    date_range_id: idSchema.nullable().default(null),
    caller_prefixes: z
      .array(z.string().trim().refine(isCallerPrefix, numberMessages.prefix))
      .max(numberLimits.callerPrefixes)
      .default([]),
    plan_id: idSchema,
  })
  .strict()
  .refine((rule) => rule.date_range_id !== null || rule.caller_prefixes.length > 0, {
    message: numberMessages.ruleCondition,
    path: ['caller_prefixes'],
    // Said even when the plan is missing too, so that every mistake of a rule shows at once; not
    // when the date range or the prefixes are themselves wrong: those have their own message.
    when: (payload) => {
      const rule = payload.value as { date_range_id?: unknown; caller_prefixes?: unknown } | null;
      if (typeof rule !== 'object' || rule === null) return false;
      if (payload.issues.some((issue) => issue.path?.[0] === 'date_range_id' || issue.path?.[0] === 'caller_prefixes')) return false;
      return Array.isArray(rule.caller_prefixes);
    },
  });
export type NumberRuleInput = z.input<typeof numberRuleInputSchema>;

export const numberSchema = z.object({
  id: idSchema,
  tenant_id: idSchema,
  created_time: timestampSchema,
  updated_time: timestampSchema,
  number: z.string().describe('E.164, unique across the system; a web chat’s name (provider webchat), unique in its tenant'),
  description: z.string(),
  provider: z.enum(numberProviders),
  voice_plan_id: idSchema.nullable(),
  chat_plan_id: idSchema.nullable(),
  rules: z.array(numberRuleSchema).describe('tried in order: the first match picks its plan, else the number’s plan for the channel'),
  whatsapp_verify_token: z.string().describe('what Meta’s webhook verification must echo'),
  whatsapp_token: z.string().describe('masked (••••abcd); empty when none is stored. Sending the mask back keeps the stored token'),
  whatsapp_phone_number_id: z.string(),
  whatsapp_app_secret: z.string().describe('the Meta app’s secret that signs deliveries (X-Hub-Signature-256), masked as whatsapp_token; sending the mask back keeps it'),
  whatsapp_business_account_id: z.string().describe('the WhatsApp Business Account whose message templates the number sends (GET /{waba-id}/message_templates); empty: none given, no templates'),
  whatsapp_daily_limit: z
    .number()
    .int()
    .nullable()
    .describe('Meta’s messaging limit tier of the number: unique customers reached in 24 hours outside the window (250, 2000, 10000, 100000); null: unlimited'),
  whatsapp_webhook_url: z.string().nullable().describe('where Meta sends this number’s messages (provider whatsapp), else null'),
  webchat_key: z.string().describe('the web chat widget’s public key (provider webchat; generated), else empty'),
  webchat_origins: z.array(z.string()).describe('origins (scheme://host[:port]) whose pages may use the widget; empty: none'),
  webchat_script: z.string().nullable().describe('the <script> tag that embeds the widget (provider webchat), else null'),
  webchat_prechat: z.array(z.enum(webchatPrechatFields)).describe('fields the widget asks before the first message (each required); empty: none'),
  webchat_identity_secret: z
    .string()
    .describe('the key that signs the site’s user ids, masked (••••abcd); empty when none. POST /numbers/{id}/webchat-identity-secret makes a new one and answers it once'),
});
export type PhoneNumber = z.infer<typeof numberSchema>;

/** The rule a number's `number` follows: a web chat's name, else (any other provider, or one not known) E.164. */
const ruleOf = (provider: unknown): NumberProvider => (provider === 'webchat' ? 'webchat' : 'twilio');

/**
 * The number as its provider wants it. Said even when other fields are wrong, the provider among
 * them (so that a form shows every mistake at once), but not when the number is itself wrong or, on
 * an edit, comes without the provider: the server then checks it against the stored one.
 */
const numberMatchesProvider = z.refine<{ provider?: NumberProvider; number?: string }>(
  (input) => input.provider === undefined || input.number === undefined || numberIssue(ruleOf(input.provider), input.number) === null,
  {
    path: ['number'],
    error: (issue) => {
      const input = issue.input as { provider: unknown; number: string };
      return numberIssue(ruleOf(input.provider), input.number.trim()) ?? numberMessages.number;
    },
    when: (payload) => {
      const input = payload.value as { provider?: unknown; number?: unknown } | null;
      if (typeof input !== 'object' || input === null || typeof input.number !== 'string') return false;
      return !payload.issues.some((issue) => issue.path?.[0] === 'number');
    },
  },
);

const numberFields = {
  // E.164 or a web chat's name: numberIssue decides, with the provider.
  number: z.string().trim().max(numberLimits.webchatName),
  description: z.string().max(numberLimits.description),
  provider: z.enum(numberProviders),
  voice_plan_id: idSchema.nullable(),
  chat_plan_id: idSchema.nullable(),
  rules: z.array(numberRuleInputSchema).max(numberLimits.rules),
  whatsapp_verify_token: z.string().trim().max(numberLimits.whatsappField),
  whatsapp_token: z.string().trim().max(numberLimits.whatsappToken),
  whatsapp_phone_number_id: z.string().trim().max(numberLimits.whatsappField),
  whatsapp_app_secret: z.string().trim().max(numberLimits.whatsappField),
  whatsapp_business_account_id: z.string().trim().regex(/^\d*$/, numberMessages.wabaId).max(numberLimits.whatsappField),
  whatsapp_daily_limit: z.union(whatsappDailyLimits.map((tier) => z.literal(tier))),
  // As browsers send `Origin`: the host in lower case, the scheme's default port left out.
  webchat_origins: z
    .array(
      z
        .string()
        .trim()
        .toLowerCase()
        .refine(isWebOrigin, numberMessages.origin)
        .transform((origin) => origin.replace(/^(https:\/\/.+):443$|^(http:\/\/.+):80$/, '$1$2')),
    )
    .max(numberLimits.webchatOrigins),
  webchat_prechat: z.array(z.enum(webchatPrechatFields)).max(webchatPrechatFields.length),
  draft: z
    .boolean()
    .describe('WhatsApp: saves the number even without Meta’s access token, phone number id or app secret (it cannot take messages until they are given); not stored')
    .optional(),
};

export const numberCreateSchema = z
  .object({
    ...numberFields,
    description: numberFields.description.default(''),
    voice_plan_id: numberFields.voice_plan_id.default(null),
    chat_plan_id: numberFields.chat_plan_id.default(null),
    rules: numberFields.rules.default([]),
    whatsapp_verify_token: numberFields.whatsapp_verify_token.default(''),
    whatsapp_token: numberFields.whatsapp_token.default(''),
    whatsapp_phone_number_id: numberFields.whatsapp_phone_number_id.default(''),
    whatsapp_app_secret: numberFields.whatsapp_app_secret.default(''),
    whatsapp_business_account_id: numberFields.whatsapp_business_account_id.default(''),
    whatsapp_daily_limit: numberFields.whatsapp_daily_limit.default(null),
    webchat_origins: numberFields.webchat_origins.default([]),
    webchat_prechat: numberFields.webchat_prechat.default([]),
  })
  .strict()
  .check(numberMatchesProvider);
export const numberUpdateSchema = z.object(numberFields).partial().strict().check(numberMatchesProvider);
export type NumberInput = z.input<typeof numberCreateSchema>;
