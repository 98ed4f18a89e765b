/** A saved reply's text as the customer reads it; without zod, so the console's message box takes only this. */

/** A saved reply's name and text, in characters. */
export const savedReplyLimits = { name: 60, text: 2000 } as const;

/** The variable a saved reply's text may name: the customer's name. */
const SAVED_REPLY_NAME_VARIABLE = /\{\{\s*name\s*\}\}/g;

/**
 * The reply's text for a customer: `{{name}}` becomes their name; unknown, it is dropped with the
 * space or comma that led to it ("Hello {{name}}, welcome" -> "Hello, welcome"; "{{name}}, hi" -> "Hi").
 */
export function fillSavedReply(text: string, customerName: string | null | undefined): string {
  const name = customerName?.trim();
  if (name) return text.replace(SAVED_REPLY_NAME_VARIABLE, name);
  const filled = text
    .replace(/[ \t]*\{\{\s*name\s*\}\}/g, '')
    .replace(/^[\s,;:.!]+/, '')
    .replace(/ +([,.!?;:])/g, '$1');
  return filled.charAt(0).toUpperCase() + filled.slice(1);
}
