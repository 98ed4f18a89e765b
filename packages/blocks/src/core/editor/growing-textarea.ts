import type { CSSProperties } from 'react';

/**
 * Props for a Mantine `Textarea` that grows with its text between `minRows` and `maxRows` lines,
 * through CSS (`field-sizing: content`) rather than Mantine's `autosize`: that one
 * (react-textarea-autosize) reads the textarea's computed style in a layout effect, which forces a
 * style and layout of the whole page when the form mounts beside a large plan and again on every
 * character typed. `lh` is the textarea's own line height; the padding and the 1 px borders are
 * Mantine's input's.
 */
export function growingTextarea(minRows: number, maxRows: number, input: CSSProperties = {}): { rows: number; styles: { input: CSSProperties } } {
  const height = (rows: number) => `calc(${rows}lh + 2 * var(--input-padding-y, 0rem) + 2px)`;
  return { rows: minRows, styles: { input: { ...input, fieldSizing: 'content', minHeight: height(minRows), maxHeight: height(maxRows) } } };
}

/** The font of inputs that hold code, expressions or JSON. */
export const monospaceFont: CSSProperties = { fontFamily: 'var(--mantine-font-family-monospace)' };
