/**
 * The fields that name a WhatsApp template and map its parameters (the `whatsapp_template` block,
 * a `send_message`'s fallback). The template itself lives in the tenant's synced templates; a
 * plan keeps only its name, language and what fills each parameter, so it exports and imports
 * as any plan does.
 */
import { z } from 'zod';
import type { FieldHint } from './editor/types.ts';
import { fieldHints, templateText } from './fields.ts';

/**
 * Meta's template names: lowercase letters, digits and underscores (at most 512). '' is none
 * chosen yet. `form` names the fields the editor's template picker fills with it.
 */
export const templateName = (form: Omit<Extract<FieldHint, { kind: 'whatsapp_template' }>, 'kind'>) =>
  z
    .string()
    .max(512)
    .regex(/^[a-z0-9_]*$/, 'lowercase letters, digits and underscores')
    .default('')
    .register(fieldHints, { kind: 'whatsapp_template', ...form });

/** Meta's language codes: `en`, `en_US`, `pt_BR`, `zh_Hant_HK`… '' goes with no template. */
export const templateLanguage = () =>
  z
    .string()
    .max(15)
    .regex(/^([a-z]{2,3}(_[A-Za-z]{2,4}){0,2})?$/, "a language code such as en_US")
    .default('')
    .register(fieldHints, { kind: 'hidden' });

/** A parameter's key as the synced template names it: `header.1`, `body.1`, `button.0` (named parameters by their name). */
export const parameterKey = () => z.string().regex(/^(header|body|button)\.[A-Za-z0-9_]{1,40}$/, 'a parameter key such as body.1');

/**
 * What fills each parameter: text with `{{variables}}`, rendered when the block runs. `type`: a
 * text parameter sent as a currency (`BRL 12.50`) or a date and time instead (Meta's template
 * types its placeholders as text only); left out, as Meta types it.
 */
export const templateParameters = () =>
  z
    .array(z.strictObject({ key: parameterKey(), value: templateText(1_000), type: z.enum(['currency', 'date_time']).optional() }))
    .max(30)
    .default([])
    .register(fieldHints, { kind: 'hidden' });
