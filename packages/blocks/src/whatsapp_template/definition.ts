import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { fieldHints } from '../core/fields.ts';
import { templateLanguage, templateName, templateParameters } from '../core/template-fields.ts';
import { whatsappTemplateDescription } from './description.ts';

/** Meta's limits: at most 10 buttons, a button's text at most 25 characters. */
const maxButtons = 10;
const maxButtonText = 25;

export const whatsappTemplateBlock = defineBlock(
  whatsappTemplateDescription,
  z.strictObject({
    /** The template among the tenant's synced ones, by name and language (docs/channels-whatsapp.md, "Templates in plans"). */
    template_name: templateName({ language: 'language', parameters: 'parameters', buttons: 'buttons' }),
    language: templateLanguage(),
    /** What fills each of the template's parameters, by its key. */
    parameters: templateParameters(),
    /**
     * The template's quick-reply buttons, copied from it when it is chosen: one exit each, so the
     * plan's exits do not change under it when the template is synced again.
     */
    buttons: z.array(z.string().min(1).max(maxButtonText)).max(maxButtons).default([]).register(fieldHints, { kind: 'hidden' }),
  }),
);
