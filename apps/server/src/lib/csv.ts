/**
 * A small RFC 4180 reader for the files people upload (a do-not-call list): the project has no CSV
 * parser, and these files are a few megabytes at most, read whole. Beyond the RFC it takes what
 * spreadsheets write: a UTF-8 byte-order mark, bare LF line ends, and `;` or tab as the separator
 * (Excel in a pt-BR locale writes `;`), found from the first line.
 */

export interface CsvRecord {
  /** The line of the file the record starts on, 1 for the first. */
  line: number;
  cells: string[];
}

/** The file is not CSV text; `line` is where the reading stopped, when it got that far. */
export class CsvError extends Error {
  constructor(
    readonly reason: 'not_text' | 'unclosed_quote' | 'stray_quote',
    readonly line?: number,
  ) {
    super(line === undefined ? reason : `${reason} at line ${line}`);
  }
}

/** UTF-8 text, or CsvError('not_text') for bytes that are not (a spreadsheet's binary, an image). */
export function decodeCsvText(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new CsvError('not_text');
  }
  // NUL never appears in text a person wrote; a zip (xlsx) or an image has it early on.
  if (text.includes('\0')) throw new CsvError('not_text');
  return text;
}

/** The separator of the first line (outside quotes): the most frequent of `,` `;` and tab; `,` when none. */
export function sniffDelimiter(text: string): string {
  const counts = new Map<string, number>([[',', 0], [';', 0], ['\t', 0]]);
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

/**
 * Every record of the text. Blank lines are left out (a record of one empty cell); a quoted cell
 * may hold separators, doubled quotes and line breaks. A quote left open, or one in the middle of
 * an unquoted cell, is CsvError with its line.
 */
export function parseCsv(text: string, delimiter = sniffDelimiter(text)): CsvRecord[] {
  const records: CsvRecord[] = [];
  let cells: string[] = [];
  let cell = '';
  let line = 1;
  let recordLine = 1;
  let quoted = false;
  let quotedCell = false;
  let index = text.charCodeAt(0) === 0xfeff ? 1 : 0;

  const endRecord = () => {
    cells.push(cell);
    if (cells.length > 1 || cells[0] !== '' || quotedCell) records.push({ line: recordLine, cells });
    cells = [];
    cell = '';
    quotedCell = false;
  };

  for (; index < text.length; index += 1) {
    const char = text[index]!;
    if (quoted) {
      if (char === '"') {
        if (text[index + 1] === '"') {
          cell += '"';
          index += 1;
        } else {
          quoted = false;
          const next = text[index + 1];
          if (next !== undefined && next !== delimiter && next !== '\r' && next !== '\n') throw new CsvError('stray_quote', line);
        }
      } else {
        if (char === '\n') line += 1;
        cell += char;
      }
      continue;
    }
    if (char === '"') {
      if (cell !== '') throw new CsvError('stray_quote', line);
      quoted = true;
      quotedCell = true;
    } else if (char === delimiter) {
      cells.push(cell);
      cell = '';
    } else if (char === '\r' || char === '\n') {
      if (char === '\r' && text[index + 1] === '\n') index += 1;
      endRecord();
      line += 1;
      recordLine = line;
    } else {
      cell += char;
    }
  }
  if (quoted) throw new CsvError('unclosed_quote', recordLine);
  if (cell !== '' || cells.length > 0 || quotedCell) endRecord();
  return records;
}
