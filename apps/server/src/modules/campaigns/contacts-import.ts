/**
 * A campaign's contact list, imported from CSV as it streams in (docs/campaigns.md, "Contacts"):
 * rows are written in batches marked with the upload's token (state `staged`), so that memory stays
 * flat whatever the list's length and no long transaction holds SQLite's writer. Once the whole
 * file is read the rows are made the campaign's in one statement; a refusal removes them. Rows that
 * cannot be called are stored as invalid rows with their line and why, never dropped.
 */
import {
  type CampaignContactMapping,
  type CampaignImportResult,
  type CampaignInvalidReason,
  campaignLimits,
  canonicalTimeZone,
  isValidTimeZone,
} from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { AppError, badRequest } from '../../errors.ts';
import { type CsvRecord, CsvTooLongError, isBlankRecord, readCsv } from '../../lib/csv-reader.ts';
import { randomToken } from '../../lib/keys.ts';
import { toE164 } from '../../lib/phone-numbers.ts';
import { isoAfter, nowIso } from '../../lib/time.ts';

/** Rows written per statement: well under both databases' limits on bound parameters. */
const BATCH_ROWS = 500;
/** A staged row older than this belongs to an upload whose server died: the dispatcher's start removes it. */
export const STAGED_ROWS_EXPIRE_S = 3600;

/** The upload's limits: the contract's, read on every upload so that a test can lower them. */
export const contactImportLimits: { rows: number; fileMb: number } = { rows: campaignLimits.contactRows, fileMb: campaignLimits.contactFileMb };

export const csvTooLarge = (): AppError =>
  new AppError(413, 'csv_too_large', undefined, undefined, { maxRows: contactImportLimits.rows, maxMb: contactImportLimits.fileMb });
const csvInvalid = (message: string): AppError => badRequest('csv_invalid', [{ path: 'file', message }]);

interface Columns {
  phone: number;
  name?: number;
  timeZone?: number;
  variables: Array<[index: number, variable: string]>;
  count: number;
}

/** The mapping's columns by their place in the header (names compared without case or surrounding spaces). */
function columnsOf(header: CsvRecord, mapping: CampaignContactMapping): Columns {
  if (header.malformed) throw csvInvalid(`the header (line ${header.line}) is malformed`);
  const places = new Map<string, number>();
  header.fields.forEach((field, index) => {
    const key = field.trim().toLowerCase();
    if (key !== '' && !places.has(key)) places.set(key, index);
  });
  const find = (column: string): number => {
    const index = places.get(column.trim().toLowerCase());
    if (index === undefined) throw new AppError(400, 'csv_column_not_found', [{ path: 'mapping', message: `no column ${column}` }], undefined, { column });
    return index;
  };
  return {
    phone: find(mapping.phone),
    ...(mapping.name !== undefined && { name: find(mapping.name) }),
    ...(mapping.time_zone !== undefined && { timeZone: find(mapping.time_zone) }),
    variables: Object.entries(mapping.variables).map(([column, variable]) => [find(column), variable]),
    count: header.fields.length,
  };
}

type Contact = { line: number; phone: string; name: string; time_zone: string | null; variables: Record<string, string> };
type Invalid = { line: number; reason: CampaignInvalidReason; value: string };

const excerpt = (text: string): string => text.slice(0, 200);

/** One data record as a contact, or why it cannot be one. */
export function contactOf(record: CsvRecord, columns: Columns, country: string): Contact | Invalid {
  const { fields, line } = record;
  const raw = (index: number | undefined) => (index === undefined ? '' : (fields[index] ?? '').trim());
  const phoneText = raw(columns.phone);
  if (record.malformed) return { line, reason: 'malformed', value: excerpt(fields.join(',')) };
  // More fields than the header names, with something in them: the row's columns cannot be trusted.
  if (fields.length > columns.count && fields.slice(columns.count).some((field) => field.trim() !== '')) return { line, reason: 'malformed', value: excerpt(fields.join(',')) };
  if (fields.some((field) => field.length > campaignLimits.fieldLength)) return { line, reason: 'field_too_long', value: excerpt(phoneText) };
  if (phoneText === '') return { line, reason: 'phone_missing', value: '' };
  const phone = toE164(phoneText, country);
  if (!phone) return { line, reason: 'phone_invalid', value: excerpt(phoneText) };
  const zoneText = raw(columns.timeZone);
  if (zoneText !== '' && !isValidTimeZone(zoneText)) return { line, reason: 'time_zone_invalid', value: excerpt(zoneText) };
  const variables: Record<string, string> = {};
  for (const [index, variable] of columns.variables) variables[variable] = raw(index);
  return { line, phone, name: raw(columns.name), time_zone: zoneText === '' ? null : canonicalTimeZone(zoneText), variables };
}

export interface ImportTarget {
  db: Kysely<Database>;
  tenantId: number;
  campaignId: number;
  /** The tenant's country: the default of numbers written without one. */
  country: string;
}

/**
 * Reads the list and stores it. Refusals (not a CSV, over the limits, a mapped column the header
 * lacks) throw and leave nothing of this upload stored.
 */
export async function importContacts(target: ImportTarget, source: AsyncIterable<Uint8Array>, mapping: CampaignContactMapping): Promise<CampaignImportResult> {
  const token = randomToken(12);
  try {
    const result = await stageContacts(target, token, source, mapping);
    // Made the campaign's at once: a dispatcher never sees half a list.
    await target.db.transaction().execute(async (trx) => {
      await trx.updateTable('campaign_contacts').set({ state: 'pending', import_token: null }).where('import_token', '=', token).execute();
      await trx.updateTable('campaign_invalid_rows').set({ import_token: null }).where('import_token', '=', token).execute();
    });
    return result;
  } catch (error) {
    await removeStaged(target.db, token);
    if (error instanceof TypeError && /encoded data|decode/i.test(error.message)) throw csvInvalid('the file is not UTF-8 text');
    if (error instanceof CsvTooLongError) throw csvInvalid(error.message);
    throw error;
  }
}

async function removeStaged(db: Kysely<Database>, token: string): Promise<void> {
  await db.deleteFrom('campaign_contacts').where('import_token', '=', token).execute();
  await db.deleteFrom('campaign_invalid_rows').where('import_token', '=', token).execute();
}

/** Removes what uploads cut short by a stopped server left behind. */
export async function removeExpiredStaged(db: Kysely<Database>, now = Date.now()): Promise<void> {
  const before = isoAfter(-STAGED_ROWS_EXPIRE_S, now);
  await db.deleteFrom('campaign_contacts').where('state', '=', 'staged').where('created_time', '<', before).execute();
  await db.deleteFrom('campaign_invalid_rows').where('import_token', 'is not', null).where('created_time', '<', before).execute();
}

/** Refuses bytes no text file holds (NUL: a spreadsheet's binary format, an image) before reading them as CSV. */
async function* textOnly(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    if (chunk.includes(0)) throw csvInvalid('the file holds binary data (a spreadsheet must be saved as CSV)');
    yield chunk;
  }
}

async function stageContacts(target: ImportTarget, token: string, source: AsyncIterable<Uint8Array>, mapping: CampaignContactMapping): Promise<CampaignImportResult> {
  const { db, tenantId, campaignId, country } = target;
  let columns: Columns | undefined;
  let rows = 0;
  let imported = 0;
  let invalidCount = 0;
  const shown: Invalid[] = [];
  let contacts: Contact[] = [];
  let invalids: Invalid[] = [];

  const noteInvalid = (invalid: Invalid) => {
    invalids.push(invalid);
    invalidCount++;
    if (shown.length < campaignLimits.invalidRowsShown) shown.push(invalid);
  };
  const flushInvalid = async () => {
    if (invalids.length === 0) return;
    const created_time = nowIso();
    await db
      .insertInto('campaign_invalid_rows')
      .values(invalids.map((row) => ({ campaign_id: campaignId, tenant_id: tenantId, line: row.line, reason: row.reason, value: row.value, import_token: token, created_time })))
      .execute();
    invalids = [];
  };
  const flushContacts = async () => {
    if (contacts.length === 0) return;
    const now = nowIso();
    // A number twice in the list, or already in the campaign: the unique index keeps the first, the others are listed.
    const inserted = await db
      .insertInto('campaign_contacts')
      .values(
        contacts.map((contact) => ({
          campaign_id: campaignId,
          tenant_id: tenantId,
          line: contact.line,
          phone: contact.phone,
          name: contact.name,
          time_zone: contact.time_zone,
          variables: JSON.stringify(contact.variables),
          state: 'staged' as const,
          attempts: 0,
          retries_used: '{}',
          // Due from now: the queue is ordered by this, retries and new contacts alike.
          next_attempt_time: now,
          import_token: token,
          created_time: now,
          updated_time: now,
        })),
      )
      .onConflict((oc) => oc.columns(['campaign_id', 'phone']).doNothing())
      .returning('line')
      .execute();
    const stored = new Set(inserted.map((row) => row.line));
    imported += stored.size;
    for (const contact of contacts) if (!stored.has(contact.line)) noteInvalid({ line: contact.line, reason: 'duplicate', value: contact.phone });
    contacts = [];
    await flushInvalid();
  };

  for await (const record of readCsv(textOnly(source), { delimiter: mapping.delimiter, maxRecordChars: campaignLimits.columns * campaignLimits.fieldLength })) {
    if (isBlankRecord(record)) continue;
    if (!columns) {
      columns = columnsOf(record, mapping);
      continue;
    }
    if (++rows > contactImportLimits.rows) throw csvTooLarge();
    const contact = contactOf(record, columns, country);
    if ('reason' in contact) noteInvalid(contact);
    else contacts.push(contact);
    if (contacts.length >= BATCH_ROWS) await flushContacts();
    if (invalids.length >= BATCH_ROWS) await flushInvalid();
  }
  if (!columns) throw csvInvalid('the file is empty: a header row is needed');
  await flushContacts();
  await flushInvalid();
  shown.sort((a, b) => a.line - b.line);
  return { imported, invalid: invalidCount, invalid_rows: shown };
}
