import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { templateText } from '../core/fields.ts';
import { templateLanguage, templateName, templateParameters } from '../core/template-fields.ts';
import { sendMessageDescription } from './description.ts';

export const sendMessageBlock = defineBlock(
  sendMessageDescription,
  z.strictObject({
    channel: z.enum(['sms', 'whatsapp']).default('sms'),
    to: z.string().max(200).default('{{caller}}'),
    text: templateText(1_600),
    /**
     * WhatsApp only: the template sent instead of the text when the recipient's 24-hour window is
     * closed ('' for none: the block then takes `failed`, `outside_customer_window`).
     */
    fallback_template_name: templateName({ language: 'fallback_language', parameters: 'fallback_parameters', optional: true, when: { key: 'channel', value: 'whatsapp' } }),
    fallback_language: templateLanguage(),
    fallback_parameters: templateParameters(),
  }),
);
