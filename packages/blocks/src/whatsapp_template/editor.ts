import { IconBrandWhatsapp } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { lines, readList, readText } from '../core/editor/summary.ts';
import { whatsappTemplateDescription } from './description.ts';

export const whatsappTemplateEditor = defineEditor({
  description: whatsappTemplateDescription,
  icon: IconBrandWhatsapp,
  color: 'green',
  summary: (data) => {
    const name = readText(data, 'template_name');
    const language = readText(data, 'language');
    return lines(name && `${name}${language ? ` (${language})` : ''}`, readList(data, 'buttons').filter((text) => typeof text === 'string').join(' · '));
  },
  exitLabel: (exit, data) => {
    const match = /^button_(\d+)$/.exec(exit);
    const text = match ? readList(data, 'buttons')[Number(match[1]) - 1] : undefined;
    return typeof text === 'string' ? text : undefined;
  },
});
