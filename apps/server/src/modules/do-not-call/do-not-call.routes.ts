/**
 * The do-not-call list's own routes beside the generic resource (docs/api.md, "Do-not-call"):
 * `POST /do-not-call/import` (a CSV or a plain list, multipart) and `GET /do-not-call/export.csv`.
 */
import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import { type DoNotCallEntry, doNotCallImportResultSchema, doNotCallLimits } from '@voxplan/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../errors.ts';
import { nowIso } from '../../lib/time.ts';
import { scopeOf } from '../../plugins/auth.ts';
import { ResourceService } from '../../resources/service.ts';
import { readUpload } from '../audios/audios.routes.ts';
import { recordAudit } from '../../resources/audit.recorder.ts';
import { csvCell } from '../reports/reports-export.routes.ts';
import { tenantDialingDefaults } from '../tenants/tenant-dialing.ts';
import { importResult, readDoNotCallFile } from './do-not-call-import.ts';
import { actorName, doNotCallResource } from './do-not-call.resource.ts';

// Rows per INSERT: 6 values each, well under SQLite's and PostgreSQL's bound-parameter limits.
const insertChunk = 500;
const exportPageSize = 1000;

const columns: Array<[header: string, cell: (entry: DoNotCallEntry) => string]> = [
  ['number', (entry) => entry.number],
  ['reason', (entry) => entry.reason],
  ['added_by', (entry) => entry.added_by],
  ['created_time', (entry) => entry.created_time],
];
const csvLine = (cells: string[]): string => `${cells.map(csvCell).join(',')}\r\n`;

export async function registerDoNotCallRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new ResourceService(doNotCallResource, ctx);
  const tags = ['do-not-call'];

  await app.register(async (scoped) => {
    // Only this route takes a multipart body; every other keeps answering JSON-only.
    await scoped.register(multipart, { throwFileSizeLimit: true });
    scoped.withTypeProvider<ZodTypeProvider>().post(
      '/do-not-call/import',
      {
        // Role and tenant before the body: a guest's file is not even read.
        preValidation: async (request: FastifyRequest) => void service.assertCreatable(scopeOf(request)),
        schema: {
          tags,
          consumes: ['multipart/form-data'],
          description:
            `multipart/form-data: file, a CSV (UTF-8; , ; or tab between cells; a header naming the number column and an optional reason column) ` +
            `or a plain list, one number a line; at most ${doNotCallLimits.importMb} MB. National numbers are read with the tenant's country. ` +
            'Numbers already listed, or repeated in the file, are skipped and counted; invalid lines are listed with their line number ' +
            `(the first ${doNotCallLimits.invalidListed}) and counted. A file that is not CSV text, or too large, is refused whole (400 do_not_call_file_invalid, 413 file_too_large).`,
          response: { 200: doNotCallImportResultSchema },
        },
      },
      async (request) => {
        const scope = scopeOf(request);
        const tenantId = service.assertCreatable(scope)!;
        const upload = await readUpload(request, doNotCallLimits.importMb);
        if (!upload.file) throw badRequest('invalid_input', [{ path: 'file', message: 'required' }]);
        const { country } = await tenantDialingDefaults(ctx.db, tenantId);
        const read = readDoNotCallFile(upload.file.bytes, country);
        const added = await ctx.db.transaction().execute(async (trx) => {
          const addedBy = await actorName({ app: ctx, scope, trx });
          const now = nowIso();
          let count = 0;
          for (let start = 0; start < read.lines.length; start += insertChunk) {
            const rows = read.lines.slice(start, start + insertChunk).map((line) => ({
              tenant_id: tenantId,
              number: line.number,
              reason: line.reason,
              added_by: addedBy,
              created_time: now,
              updated_time: now,
            }));
            // Already listed: skipped, and counted as a duplicate.
            const inserted = await trx
              .insertInto('do_not_call')
              .values(rows)
              .onConflict((conflict) => conflict.columns(['tenant_id', 'number']).doNothing())
              .returning('id')
              .execute();
            count += inserted.length;
          }
          const summary = importResult(read, count);
          // One entry for the file: a list of 100,000 numbers is not 100,000 entries of the log.
          await recordAudit(trx, scope, [
            {
              action: 'create',
              entity: 'do_not_call',
              entityId: null,
              tenantId,
              before: null,
              after: { import: upload.file?.filename ?? '', added: summary.added, duplicates: summary.duplicates, invalid: summary.invalid_count },
            },
          ]);
          return count;
        });
        return importResult(read, added);
      },
    );
  });

  app.withTypeProvider<ZodTypeProvider>().get(
    '/do-not-call/export.csv',
    {
      schema: {
        tags,
        querystring: z.object({ filter: z.string().optional().describe('JSON, as GET /do-not-call takes it; its where clause selects the rows') }),
        produces: ['text/csv'],
        description: 'The entries the filter selects, newest first, as CSV (RFC 4180, UTF-8, a header row: number, reason, added_by, created_time); the file imports back as it is.',
      },
    },
    async (request, reply) => {
      const { total, pages } = await service.readAllPages(scopeOf(request), request.query.filter, exportPageSize);
      async function* lines(): AsyncGenerator<string> {
        yield csvLine(columns.map(([header]) => header));
        for await (const page of pages) yield page.map((entry) => csvLine(columns.map(([, cell]) => cell(entry as DoNotCallEntry)))).join('');
      }
      const body = Readable.from(lines());
      body.on('error', (error) => request.log.error({ err: error }, 'the do-not-call export stopped'));
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="do-not-call-${new Date().toISOString().slice(0, 10)}.csv"`)
        .header('x-total-count', String(total))
        .header('cache-control', 'no-store')
        .send(body);
    },
  );
}
