import { api } from '../../lib/api/client.ts';

/**
 * Counts the records of a CSV as its bytes arrive, for the export's progress: a line break ends a
 * record unless it is inside a quoted field (a variable or a failure message may hold one). A
 * quote doubled inside a field toggles twice, so it needs no special case.
 */
export class CsvRecordCounter {
  private quoted = false;
  /** Line breaks outside quotes seen so far: the header and the rows it closed. */
  private breaks = 0;

  push(chunk: Uint8Array): void {
    for (let index = 0; index < chunk.length; index++) {
      const byte = chunk[index];
      if (byte === 0x22) this.quoted = !this.quoted;
      else if (byte === 0x0a && !this.quoted) this.breaks++;
    }
  }

  /** The data rows ended so far (the header line is not one). */
  get rows(): number {
    return Math.max(0, this.breaks - 1);
  }
}

export interface CsvProgress {
  rows: number;
  /** The rows the server said would follow (`X-Total-Count`); null when it did not say. */
  total: number | null;
}

/**
 * The reports `where` selects, newest first, as the server streams them in CSV: the body is read as it arrives
 * (with the token and tenant every call sends), progress reported per chunk, and the file's bytes
 * kept as they came, to be saved as one blob. `signal` cancels it.
 */
export async function fetchReportsCsv(
  where: Record<string, unknown> | undefined,
  { signal, onProgress }: { signal?: AbortSignal; onProgress(progress: CsvProgress): void },
): Promise<{ blob: Blob; contentDisposition: string | null; rows: number }> {
  const response = await api.stream('/reports/export.csv', { query: { filter: where && { where } }, signal });
  const header = response.headers.get('x-total-count');
  const total = header !== null && /^\d+$/.test(header) ? Number(header) : null;
  const counter = new CsvRecordCounter();
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  onProgress({ rows: 0, total });
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      counter.push(value);
      onProgress({ rows: counter.rows, total });
    }
  }
  return { blob: new Blob(chunks, { type: 'text/csv' }), contentDisposition: response.headers.get('content-disposition'), rows: counter.rows };
}
