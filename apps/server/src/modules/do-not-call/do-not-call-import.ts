import { type DoNotCallImportResult, type DoNotCallLineProblem, doNotCallLimits } from '@voxplan/contracts';
import { badRequest } from '../../errors.ts';
import { type CsvRecord, decodeCsvText, NotTextError, readCsvText } from '../../lib/csv-reader.ts';
import { toE164 } from '../../lib/phone-numbers.ts';

/**
 * Reading a do-not-call file (docs/do-not-call.md, "Import"): a CSV with a number column and an
 * optional reason column, or a plain list of numbers, one a line. The whole file is read before
 * anything is written, so a file refused leaves the list as it was.
 */

export interface ImportLine {
  line: number;
  number: string;
  reason: string;
}

export interface ReadFile {
  lines: ImportLine[];
  /** The same number twice in the file: the later lines. */
  repeated: number;
  invalid: Array<{ line: number; value: string; problem: DoNotCallLineProblem }>;
}

// Header names, lowercased without accents or punctuation, in English and Portuguese.
const numberHeaders = new Set(['number', 'phone', 'phonenumber', 'telephone', 'tel', 'mobile', 'msisdn', 'e164', 'numero', 'telefone', 'celular', 'fone']);
const reasonHeaders = new Set(['reason', 'note', 'notes', 'comment', 'comments', 'motivo', 'nota', 'notas', 'observacao', 'observacoes', 'obs', 'comentario']);

const headerKey = (cell: string): string =>
  cell
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');

/**
 * A first record with no digit in its first cell names the columns, found by their names; without
 * one, the number comes first and the reason second. A lone unknown word is a line, reported invalid.
 */
function columnsOf(first: CsvRecord | undefined): { header: boolean; number: number; reason: number | null } {
  const plain = { header: false, number: 0, reason: 1 };
  if (!first || /\d/.test(first.fields[0] ?? '')) return plain;
  const keys = first.fields.map(headerKey);
  const number = keys.findIndex((key) => numberHeaders.has(key));
  const reason = keys.findIndex((key) => reasonHeaders.has(key));
  if (number !== -1) return { header: true, number, reason: reason === -1 ? null : reason };
  if (first.fields.length === 1) return plain;
  throw badRequest('do_not_call_file_invalid', [{ path: 'file', message: 'the header names no number column (number, phone, telefone, numero…)' }]);
}

function csvRecords(bytes: Uint8Array): CsvRecord[] {
  let records: CsvRecord[];
  try {
    records = readCsvText(decodeCsvText(bytes));
  } catch (error) {
    if (!(error instanceof NotTextError)) throw error;
    throw badRequest('do_not_call_file_invalid', [{ path: 'file', message: 'not UTF-8 text' }]);
  }
  const malformed = records.find((record) => record.malformed);
  if (malformed) {
    const message = malformed.malformed === 'unclosed_quote' ? 'a quote is never closed' : 'text after a closing quote';
    throw badRequest('do_not_call_file_invalid', [{ path: 'file', message: `${message} at line ${malformed.line}` }]);
  }
  return records;
}

/** Each line's number in E.164 (read with `country`), and the lines that are not added and why. */
export function readDoNotCallFile(bytes: Uint8Array, country: string): ReadFile {
  const records = csvRecords(bytes);
  const columns = columnsOf(records[0]);
  const body = columns.header ? records.slice(1) : records;
  if (body.length === 0) throw badRequest('do_not_call_file_invalid', [{ path: 'file', message: 'no numbers in the file' }]);

  const read: ReadFile = { lines: [], repeated: 0, invalid: [] };
  const seen = new Set<string>();
  for (const record of body) {
    const raw = (record.fields[columns.number] ?? '').trim();
    const reason = columns.reason === null ? '' : (record.fields[columns.reason] ?? '').trim();
    const number = toE164(raw, country);
    if (number === null) read.invalid.push({ line: record.line, value: raw, problem: 'invalid_phone_number' });
    else if (reason.length > doNotCallLimits.reason) read.invalid.push({ line: record.line, value: raw, problem: 'reason_too_long' });
    else if (seen.has(number)) read.repeated += 1;
    else {
      seen.add(number);
      read.lines.push({ line: record.line, number, reason });
    }
  }
  return read;
}

/** The answer: the invalid lines listed up to the limit, all of them counted. */
export function importResult(read: ReadFile, added: number): DoNotCallImportResult {
  return {
    added,
    duplicates: read.repeated + (read.lines.length - added),
    invalid_count: read.invalid.length,
    invalid: read.invalid.slice(0, doNotCallLimits.invalidListed),
  };
}
