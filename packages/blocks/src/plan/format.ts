/**
 * The plan document's format version and the limits the canvas needs, apart from its schemas
 * (document.ts) so that the canvas, which writes documents and names blocks, loads no zod.
 */
export const planFormatVersion = 2;

/** A block's name is a few words, as a canvas block's header shows them. */
export const planLabelLength = 60;
