/**
 * The plan document's format version, apart from its schemas (document.ts) so that the canvas,
 * which writes it into the documents it saves, loads no zod.
 */
export const planFormatVersion = 1;
