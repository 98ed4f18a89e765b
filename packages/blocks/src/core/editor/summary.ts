/** Pieces the blocks' summaries share: reading possibly invalid data, shortening texts, translated counts. */
import type { BlockDescription } from '../define.ts';
import { editorTexts, fieldLabel, formatText, optionLabel } from './texts.ts';
import type { SummaryContext } from './types.ts';

/** Longest line of text a summary quotes. */
const excerptLength = 60;

/** A field of data that may be anything while the user edits it. */
export function read(data: unknown, key: string): unknown {
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>)[key] : undefined;
}

export const readText = (data: unknown, key: string): string => {
  const value = read(data, key);
  return typeof value === 'string' ? value : '';
};

export const readList = (data: unknown, key: string): unknown[] => {
  const value = read(data, key);
  return Array.isArray(value) ? value : [];
};

export const readNumber = (data: unknown, key: string): number | undefined => {
  const value = read(data, key);
  return typeof value === 'number' ? value : undefined;
};

/** The beginning of a text, on one line. */
export function excerpt(text: string, length = excerptLength): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > length ? `${line.slice(0, length - 1).trimEnd()}…` : line;
}

/** The summary's lines, the empty ones left out. */
export const lines = (...parts: ReadonlyArray<string | false | undefined | null>): string => parts.filter((part): part is string => !!part).join('\n');

/** "Options: 3", with the block's label of the list. */
export function countOf(description: BlockDescription, context: SummaryContext, key: string, count: number): string {
  return formatText(editorTexts[context.language].summary.count, { label: fieldLabel(description.texts[context.language], key, false), count });
}

/** The block's label of a stored choice (an operator, a cause). */
export const choiceLabel = (description: BlockDescription, context: SummaryContext, value: string): string => optionLabel(description.texts[context.language], value);

/** The first items of a list on one line, and how many more there are. */
export function listed(items: readonly string[], context: SummaryContext, shown = 3): string {
  const rest = items.length - shown;
  const head = items.slice(0, shown).join(', ');
  return rest > 0 ? `${head} ${formatText(editorTexts[context.language].summary.more, { count: rest })}` : head;
}

/** What a prompt says: the beginning of its spoken text, or the audio it plays. */
export function promptSummary(data: unknown, context: SummaryContext): string {
  if (read(data, 'text_to_speech') === false) {
    const id = readNumber(data, 'audio_id');
    const name = context.referenceName('audio', id) ?? (id === undefined ? undefined : `#${id}`);
    return name === undefined ? '' : formatText(editorTexts[context.language].summary.audio, { name });
  }
  return excerpt(readText(data, 'voice_text') || readText(data, 'chat_text'));
}

/** The request of `http_request` and `api_switch`: "POST https://…". */
export const requestSummary = (data: unknown): string => excerpt(`${readText(data, 'method')} ${readText(data, 'url')}`);

/** "30 s" */
export const seconds = (context: SummaryContext, count: number): string => formatText(editorTexts[context.language].summary.seconds, { count });
export const minutes = (context: SummaryContext, count: number): string => formatText(editorTexts[context.language].summary.minutes, { count });
