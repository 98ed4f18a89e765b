/** What one run of an `fx` script may use (blocks.md, "The Lua block"). */
export const CPU_LIMIT_MS = 100;
export const MEMORY_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * How deep tables may nest, and how many values a script may hand back, when values cross between
 * the session and Lua. Both keep converting a result bounded: a table that refers to the same
 * subtable twice at every level would otherwise unfold into billions of JSON values.
 */
export const MAX_DEPTH = 100;
export const MAX_RETURNED_VALUES = 100_000;

/**
 * The longest script accepted. An `fx` script is a few lines; the cap keeps a worker from copying
 * megabytes of source into wasm memory, which never shrinks.
 */
export const MAX_SCRIPT_BYTES = 256 * 1024;

/** Error messages are for reports and logs; a script can raise any string, so they are cut. */
export const MAX_MESSAGE_LENGTH = 1000;
