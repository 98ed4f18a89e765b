import { z } from 'zod';
import { idSchema, timestampSchema } from './common.ts';
import { phoneCountries } from './countries.ts';
import { planLanguageTags } from './voices.ts';

export const tenantNameMaxLength = 50;
/** Spec section 5: typing is restricted to letters, digits and these symbols, and lowercased. */
export const tenantNamePattern = /^[\p{L}\p{N}\-@:%._+~#=/?&]+$/u;

/** What the console's input mask does to a tenant name as it is typed. */
export function normalizeTenantName(raw: string): string {
  return [...raw.toLowerCase()].filter((ch) => tenantNamePattern.test(ch)).join('');
}

export const tenantNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(tenantNameMaxLength)
  .regex(tenantNamePattern)
  .transform((name) => name.toLowerCase());

/** A language of the voices list, or '' for the server's (`DEFAULT_LANGUAGE`). */
export const tenantLanguageSchema = z.enum(['', ...planLanguageTags]);

export const tenantSchema = z.object({
  id: idSchema,
  created_time: timestampSchema,
  name: z.string(),
  /** What the tenant's plans speak when they name no language, and its system messages ("not in service"). */
  language: z.string(),
  /** ISO 3166-1 alpha-2 that reads the tenant's national numbers; '' for the server's (the region of its language). */
  country: z.string(),
  /** IANA time zone of the tenant's schedules; '' for the server's. */
  time_zone: z.string(),
});
export type Tenant = z.infer<typeof tenantSchema>;

/** ISO 3166-1 alpha-2 of a country with a numbering plan (phoneCountries), or '' for the server's. */
export const tenantCountrySchema = z
  .string()
  .trim()
  .transform((code) => code.toUpperCase())
  .pipe(z.enum(['', ...phoneCountries]));

/** Whether the runtime knows an IANA zone (aliases such as US/Eastern included). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
export const tenantTimeZoneSchema = z
  .string()
  .trim()
  .max(64)
  .refine((zone) => zone === '' || isTimeZone(zone), 'not an IANA time zone');

export const tenantInputSchema = z
  .object({ name: tenantNameSchema, language: tenantLanguageSchema.optional(), country: tenantCountrySchema.optional(), time_zone: tenantTimeZoneSchema.optional() })
  .strict();
export type TenantInput = z.input<typeof tenantInputSchema>;

export const integrationsSchema = z.object({
  twilio_sid: z.string().optional(),
  twilio_token: z.string().optional(),
  openai_key: z.string().optional(),
  sippulse_ai_key: z.string().optional(),
});
export type Integrations = z.infer<typeof integrationsSchema>;

/** Spec section 5: a provider that is on needs all of its keys. Absent providers are off. */
export const integrationsInputSchema = z
  .object({
    twilio_sid: z.string().trim().min(1).max(200).optional(),
    twilio_token: z.string().trim().min(1).max(500).optional(),
    openai_key: z.string().trim().min(1).max(500).optional(),
    sippulse_ai_key: z.string().trim().min(1).max(500).optional(),
  })
  .strict()
  .superRefine((value, ctx) => {
    if (value.twilio_sid !== undefined && value.twilio_token === undefined) {
      ctx.addIssue({ code: 'custom', path: ['twilio_token'], message: 'required' });
    }
    if (value.twilio_token !== undefined && value.twilio_sid === undefined) {
      ctx.addIssue({ code: 'custom', path: ['twilio_sid'], message: 'required' });
    }
  });
export type IntegrationsInput = z.input<typeof integrationsInputSchema>;

export const secretIntegrationFields = ['twilio_token', 'openai_key', 'sippulse_ai_key'] as const;

/** The visible form of a stored secret; sending it back unchanged keeps the stored value. */
export const secretMaskPrefix = '••••';
export function maskSecret(secret: string): string {
  return secretMaskPrefix + (secret.length > 8 ? secret.slice(-4) : '');
}
export const isMaskedSecret = (value: string): boolean => value.startsWith(secretMaskPrefix);
