/** The generic form's own texts (buttons, placeholders, issue texts) and the block texts' lookups. */
import type { BlockTexts } from '../define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };
import type { EditorLanguage } from './types.ts';

export type EditorTexts = typeof en;

// Typed as the English catalogue: a key missing in pt fails the typecheck.
const portuguese: EditorTexts = pt;

export const editorTexts: Readonly<Record<EditorLanguage, EditorTexts>> = { en, pt: portuguese };

/** Fills `{{name}}` placeholders that `values` names; others (a literal `{{` in a hint) stay. */
export function formatText(text: string, values: Readonly<Record<string, string | number>>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** The label of a field: top-level fields from `fields`, fields of list rows from `item_fields`. */
export function fieldLabel(texts: BlockTexts, key: string, inRow: boolean): string {
  return (inRow ? (texts.item_fields?.[key] ?? texts.fields[key]) : (texts.fields[key] ?? texts.item_fields?.[key])) ?? key;
}

/** The label of a choice (an operator, a cause): the block's item texts name them; an unnamed one shows as stored. */
export function optionLabel(texts: BlockTexts, value: string): string {
  return texts.item_fields?.[value] ?? value;
}
