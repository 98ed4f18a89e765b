/**
 * A streaming CSV reader (RFC 4180: https://www.rfc-editor.org/rfc/rfc4180): fields separated by a
 * delimiter, records by CRLF or LF, a field in double quotes may hold delimiters, line breaks and
 * doubled quotes. It holds one record at a time, so a list of any length reads in little memory.
 *
 * Hand-written because the project has no CSV parser yet (csv-parse is the candidate named in
 * docs/campaigns.md); it reads what spreadsheets write and reports, per record, what it could not.
 * The one CSV reader of the server: contact lists stream through `readCsv`, do-not-call files (a few
 * megabytes, read whole) through `readCsvText`.
 */

export interface CsvRecord {
  /** The line of the file the record starts on (1 for the first). */
  line: number;
  fields: string[];
  /** Set when the record does not follow the format: a quote left open, or text after a closing quote. */
  malformed?: 'unclosed_quote' | 'text_after_quote';
}

export class CsvTooLongError extends Error {
  constructor(readonly line: number) {
    super(`the record starting on line ${line} is longer than a contact list's record can be`);
  }
}

export interface CsvReaderOptions {
  delimiter?: string;
  /** A record longer than this (characters) stops the reading: a quote left open would otherwise swallow the file. */
  maxRecordChars?: number;
}

const QUOTE = 34; // "
const CR = 13;
const LF = 10;

/** Feed it text in pieces with `push`, then `end`; each answers the records completed so far. */
export class CsvReader {
  readonly #delimiter: number;
  readonly #maxRecordChars: number;
  #fields: string[] = [];
  #field = '';
  #inQuotes = false;
  /** A closing quote was read; the next character decides whether it was one (or an escaped quote). */
  #afterQuote = false;
  #quoted = false;
  #malformed: CsvRecord['malformed'] = undefined;
  #line = 1;
  #recordLine = 1;
  #recordChars = 0;
  #pendingCr = false;
  #started = false;

  constructor(options: CsvReaderOptions = {}) {
    const delimiter = options.delimiter ?? ',';
    if (delimiter.length !== 1 || delimiter.charCodeAt(0) === QUOTE) throw new Error('the delimiter is one character other than a quote');
    this.#delimiter = delimiter.charCodeAt(0);
    this.#maxRecordChars = options.maxRecordChars ?? 1_000_000;
  }

  push(text: string): CsvRecord[] {
    const records: CsvRecord[] = [];
    let start = 0;
    // A byte order mark before the first field is no part of it (Excel writes one in UTF-8 CSV).
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) start = 1;
    }
    for (let index = start; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (this.#pendingCr) {
        this.#pendingCr = false;
        if (code === LF) continue;
      }
      if (++this.#recordChars > this.#maxRecordChars) throw new CsvTooLongError(this.#recordLine);
      if (this.#inQuotes) {
        if (code === QUOTE) {
          this.#inQuotes = false;
          this.#afterQuote = true;
        } else {
          if (code === LF || (code === CR && text.charCodeAt(index + 1) !== LF)) this.#line++;
          this.#field += text[index];
        }
        continue;
      }
      if (this.#afterQuote) {
        this.#afterQuote = false;
        if (code === QUOTE) {
          // "" inside a quoted field is one quote.
          this.#field += '"';
          this.#inQuotes = true;
          continue;
        }
        if (code !== this.#delimiter && code !== CR && code !== LF) this.#malformed ??= 'text_after_quote';
      }
      if (code === this.#delimiter) {
        this.#endField();
      } else if (code === CR || code === LF) {
        if (code === CR) this.#pendingCr = true;
        records.push(this.#endRecord());
        this.#line++;
        this.#recordLine = this.#line;
      } else if (code === QUOTE && this.#field === '' && !this.#quoted) {
        this.#inQuotes = true;
        this.#quoted = true;
      } else {
        // A quote inside an unquoted field is kept as written, as spreadsheets read it.
        this.#field += text[index];
      }
    }
    return records;
  }

  /** The last record, when the text does not end with a line break; one left inside quotes is malformed. */
  end(): CsvRecord[] {
    if (this.#inQuotes) this.#malformed ??= 'unclosed_quote';
    const pending = this.#fields.length > 0 || this.#field !== '' || this.#quoted;
    return pending ? [this.#endRecord()] : [];
  }

  #endField(): void {
    this.#fields.push(this.#field);
    this.#field = '';
    this.#quoted = false;
    this.#afterQuote = false;
  }

  #endRecord(): CsvRecord {
    this.#endField();
    const record: CsvRecord = { line: this.#recordLine, fields: this.#fields, ...(this.#malformed && { malformed: this.#malformed }) };
    this.#fields = [];
    this.#malformed = undefined;
    this.#inQuotes = false;
    this.#recordChars = 0;
    return record;
  }
}

/** Whether a record is a blank line (one empty field): skipped, as spreadsheets leave them. */
export const isBlankRecord = (record: CsvRecord): boolean => record.fields.length === 1 && record.fields[0] === '' && !record.malformed;

/**
 * Reads a byte stream as UTF-8 CSV records, one at a time. Bytes that are no UTF-8 throw a
 * TypeError (TextDecoder's `fatal`), which callers answer as "not a CSV".
 */
export async function* readCsv(source: AsyncIterable<Uint8Array | string>, options: CsvReaderOptions = {}): AsyncGenerator<CsvRecord> {
  const reader = new CsvReader(options);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for await (const chunk of source) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    yield* reader.push(text);
  }
  yield* reader.push(decoder.decode());
  yield* reader.end();
}

/** The file is not UTF-8 text (`decodeCsvText`). */
export class NotTextError extends Error {
  constructor() {
    super('not UTF-8 text');
  }
}

/** UTF-8 text, or NotTextError for bytes that are not (a spreadsheet's binary, an image). */
export function decodeCsvText(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new NotTextError();
  }
  // NUL never appears in text a person wrote; a zip (xlsx) or an image has it early on.
  if (text.includes('\0')) throw new NotTextError();
  return text;
}

/**
 * The separator of the first line (outside quotes): the most frequent of `,` `;` and tab; `,` when
 * none. Excel in a pt-BR locale writes `;`.
 */
export function sniffDelimiter(text: string): string {
  const counts = new Map<string, number>([
    [',', 0],
    [';', 0],
    ['\t', 0],
  ]);
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && counts.has(char)) counts.set(char, counts.get(char)! + 1);
  }
  let best = ',';
  for (const [delimiter, count] of counts) if (count > counts.get(best)!) best = delimiter;
  return best;
}

/** Every record of a text read whole, blank lines left out, with the separator its first line uses. */
export function readCsvText(text: string, options: CsvReaderOptions = {}): CsvRecord[] {
  const reader = new CsvReader({ delimiter: sniffDelimiter(text), ...options });
  return [...reader.push(text), ...reader.end()].filter((record) => !isBlankRecord(record));
}
