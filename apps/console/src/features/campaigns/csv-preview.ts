/**
 * The start of a contact list, read in the browser to offer the column mapping before the whole
 * file is sent. Only the header and a few rows are wanted, from the first bytes of a file that may
 * hold 100,000 rows, so this reads a slice and parses it here (RFC 4180 quoting) rather than
 * bringing a CSV library into the console for five rows; the server parses the whole file.
 */

export interface CsvPreview {
  delimiter: ',' | ';' | '\t';
  header: string[];
  /** The first rows after the header, each as long as the header (missing cells empty). */
  rows: string[][];
}

/** Enough bytes for a header and a few rows of any reasonable list. */
export const PREVIEW_BYTES = 64 * 1024;
export const PREVIEW_ROWS = 5;

const delimiters = [',', ';', '\t'] as const;

/** The delimiter the header uses most, outside quotes: spreadsheets in Portuguese save with `;`. */
export function detectDelimiter(firstLine: string): CsvPreview['delimiter'] {
  const counts = new Map<string, number>(delimiters.map((d) => [d, 0]));
  let quoted = false;
  for (const char of firstLine) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && counts.has(char)) counts.set(char, (counts.get(char) ?? 0) + 1);
  }
  let best: CsvPreview['delimiter'] = ',';
  for (const d of delimiters) if ((counts.get(d) ?? 0) > (counts.get(best) ?? 0)) best = d;
  return best;
}

/**
 * The records of `text`, at most `limit`. A record cut off at the end of the text (the slice ended
 * inside it) is left out unless the text is the whole file.
 */
export function parseRecords(text: string, delimiter: string, limit: number, isWhole: boolean): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  let i = 0;
  const endRecord = () => {
    record.push(cell);
    cell = '';
    // A blank line is no record.
    if (!(record.length === 1 && record[0] === '')) records.push(record);
    record = [];
  };
  while (i < text.length && records.length < limit) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 2;
        continue;
      }
      if (char === '"') quoted = false;
      else cell += char;
      i += 1;
      continue;
    }
    if (char === '"' && cell === '') quoted = true;
    else if (char === delimiter) {
      record.push(cell);
      cell = '';
    } else if (char === '\r' || char === '\n') {
      endRecord();
      if (char === '\r' && text[i + 1] === '\n') i += 1;
    } else cell += char;
    i += 1;
  }
  if (records.length < limit && isWhole && (cell !== '' || record.length > 0)) endRecord();
  return records;
}

/** The header and first rows of a CSV text (a byte-order mark dropped); null when it has no header. */
export function previewCsv(text: string, isWhole: boolean, rows = PREVIEW_ROWS): CsvPreview | null {
  const clean = text.replace(/^\uFEFF/, '');
  const firstLine = clean.split(/\r?\n/, 1)[0] ?? '';
  const delimiter = detectDelimiter(firstLine);
  const [header, ...body] = parseRecords(clean, delimiter, rows + 1, isWhole);
  if (!header || header.every((name) => name.trim() === '')) return null;
  const names = header.map((name) => name.trim());
  return { delimiter, header: names, rows: body.map((row) => names.map((_, index) => row[index] ?? '')) };
}

/** Reads the first bytes of `file` and previews them. */
export async function previewCsvFile(file: Blob): Promise<CsvPreview | null> {
  const isWhole = file.size <= PREVIEW_BYTES;
  const text = await file.slice(0, PREVIEW_BYTES).text();
  return previewCsv(text, isWhole);
}
