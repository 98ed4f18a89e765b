/**
 * A campaign's own calls beside its generic resource (docs/campaigns.md, docs/api.md "Campaigns"):
 * the controls, the contact list's upload, its invalid rows, the results (and their CSV) and the
 * progress.
 */
import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import {
  campaignActions,
  type CampaignContactMapping,
  campaignContactMappingSchema,
  campaignImportResultSchema,
  campaignInvalidRowSchema,
  campaignLimits,
  campaignProgressSchema,
  type CampaignResult,
  campaignResultSchema,
  campaignSchema,
  countSchema,
  decodeJsonParam,
} from '@voxplan/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { AppError, badRequest, notFound } from '../../errors.ts';
import { scopeOf } from '../../plugins/auth.ts';
import { detailsFromZod, readingBody } from '../../plugins/errors.ts';
import { ResourceService } from '../../resources/service.ts';
import { csvCell } from '../reports/reports-export.routes.ts';
import { tenantDialingDefaults } from '../tenants/tenant-dialing.ts';
import { campaignInvalidRowsResource, campaignResultsResource } from './campaign-results.resource.ts';
import { campaignsResource } from './campaigns.resource.ts';
import { campaignProgress, controlCampaign, publishProgressSoon } from './campaigns.service.ts';
import { contactImportLimits, csvTooLarge, importContacts } from './contacts-import.ts';

const idParams = z.object({ id: z.coerce.number().int().positive().max(2 ** 31 - 1) });
const actionParams = idParams.extend({ action: z.enum(campaignActions) });
const filterQuery = z.object({ filter: z.string().optional().describe('JSON: {"where":{...},"order":["line ASC"],"limit":10,"skip":0}') });
const whereQuery = z.object({ where: z.string().optional().describe('JSON where clause') });

const bytesPerMb = 1024 * 1024;

/** The request's filter with the campaign added to its where clause (and rows of an upload under way left out). */
function withinCampaign(filter: string | undefined, forced: Record<string, unknown>, key: 'filter' | 'where'): string {
  const decoded = decodeJsonParam(filter, key);
  if (key === 'where') return JSON.stringify(decoded === undefined ? forced : { and: [decoded, forced] });
  if (decoded === undefined) return JSON.stringify({ where: forced });
  if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) return filter ?? '';
  const { where, ...rest } = decoded as { where?: unknown };
  return JSON.stringify({ ...rest, where: where === undefined ? forced : { and: [where, forced] } });
}

const resultColumns: Array<[header: string, cell: (row: CampaignResult) => string | number | null]> = [
  ['line', (row) => row.line],
  ['phone', (row) => row.phone],
  ['name', (row) => row.name],
  ['state', (row) => row.state],
  ['last_outcome', (row) => row.last_outcome],
  ['attempts', (row) => row.attempts],
  ['last_session_id', (row) => row.last_session_id],
  ['last_attempt_time', (row) => row.last_attempt_time],
  ['message_status', (row) => row.message_status],
];
const csvLine = (cells: Array<string | number | null>): string => `${cells.map(csvCell).join(',')}\r\n`;

/** The multipart body: `mapping` (JSON) must come before `file`, so that the file is read as it arrives. */
async function* uploadedList(request: FastifyRequest, onMapping: (mapping: CampaignContactMapping) => void): AsyncGenerator<Uint8Array> {
  if (!request.isMultipart()) throw new AppError(415, 'unsupported_media_type', [{ path: '', message: 'send multipart/form-data: mapping, then file' }]);
  let mapping: CampaignContactMapping | undefined;
  let file = false;
  const parts = request.parts({ limits: { fileSize: contactImportLimits.fileMb * bytesPerMb, files: 1, fields: 5, fieldSize: 100_000 } });
  for await (const part of parts) {
    if (part.type === 'field') {
      if (part.fieldname !== 'mapping') continue;
      const parsed = campaignContactMappingSchema.safeParse(decodeJsonParam(String(part.value), 'mapping'));
      if (!parsed.success) throw badRequest('invalid_input', detailsFromZod(parsed.error).map((detail) => ({ ...detail, path: `mapping.${detail.path}`.replace(/\.$/, '') })));
      mapping = parsed.data;
      onMapping(mapping);
      continue;
    }
    if (part.fieldname !== 'file' || file) {
      part.file.resume();
      continue;
    }
    if (!mapping) throw badRequest('invalid_input', [{ path: 'mapping', message: 'required, before the file' }]);
    file = true;
    // Spreadsheets and browsers name CSV many ways; what is clearly another kind of file is refused unread.
    if (/^(image|audio|video)\/|^application\/(pdf|zip|x-zip|vnd\.openxmlformats|gzip)/.test(part.mimetype)) {
      part.file.resume();
      throw badRequest('csv_invalid', [{ path: 'file', message: `a ${part.mimetype} file is not a CSV` }]);
    }
    for await (const chunk of part.file) yield chunk as Uint8Array;
    if (part.file.truncated) throw csvTooLarge();
  }
  if (!file) throw badRequest('invalid_input', [{ path: 'file', message: 'required' }]);
}

export async function registerCampaignRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const campaigns = new ResourceService(campaignsResource, ctx);
  const results = new ResourceService(campaignResultsResource, ctx);
  const invalidRows = new ResourceService(campaignInvalidRowsResource, ctx);
  const tags = ['campaigns'];

  await app.register(async (campaignApp) => {
    // Only the upload takes a multipart body; the file's limit is checked while it streams.
    await campaignApp.register(multipart);
    const routes = campaignApp.withTypeProvider<ZodTypeProvider>();

    routes.post(
      '/campaigns/:id/:action',
      {
        preValidation: async (request) => void campaigns.assertWritable(scopeOf(request)),
        schema: {
          tags,
          params: actionParams,
          description: 'start (a draft with contacts), pause (running), resume (paused), cancel (not ended). Audited. 409 campaign_status_invalid otherwise.',
          response: { 200: campaignSchema },
        },
      },
      async (request) => controlCampaign(ctx, campaigns, scopeOf(request), request.params.id, request.params.action),
    );

    routes.post(
      '/campaigns/:id/contacts',
      {
        preValidation: async (request) => void campaigns.assertWritable(scopeOf(request)),
        schema: {
          tags,
          params: idParams,
          consumes: ['multipart/form-data'],
          description:
            `multipart/form-data: mapping (JSON: phone, name, time_zone, variables, delimiter), then file (CSV with a header row, UTF-8, ` +
            `at most ${campaignLimits.contactRows} rows and ${campaignLimits.contactFileMb} MB). Streamed. Invalid rows are stored with their line ` +
            '(GET /campaigns/{id}/invalid-rows). A refusal (csv_invalid, csv_too_large, csv_column_not_found) stores nothing.',
          response: { 201: campaignImportResultSchema },
        },
      },
      async (request, reply) => {
        const scope = scopeOf(request);
        const campaign = await campaigns.findRow(ctx.db as never, scope, request.params.id);
        if (campaign.status === 'completed' || campaign.status === 'cancelled') {
          throw new AppError(409, 'campaign_finished', [{ path: 'status', message: `the campaign is ${campaign.status as string}` }]);
        }
        const tenantId = campaign.tenant_id as number;
        const { country } = await tenantDialingDefaults(ctx.db, tenantId);
        let mapping: CampaignContactMapping | undefined;
        const source = uploadedList(request, (read) => (mapping = read));
        const result = await readingBody(async () => {
          // The mapping comes in the body's first part: the file is read once it is known.
          const first = await source.next();
          if (!mapping) throw badRequest('invalid_input', [{ path: 'mapping', message: 'required, before the file' }]);
          if (first.done) throw badRequest('csv_invalid', [{ path: 'file', message: 'the file is empty: a header row is needed' }]);
          const head = first.value;
          const whole = (async function* () {
            yield head;
            yield* source;
          })();
          return importContacts({ db: ctx.db, tenantId, campaignId: campaign.id, country }, whole, mapping);
        });
        publishProgressSoon(ctx, campaign.id);
        return reply.status(201).send(result);
      },
    );

    routes.get('/campaigns/:id/progress', { schema: { tags, params: idParams, response: { 200: campaignProgressSchema } } }, async (request) => {
      const campaign = await campaigns.findRow(ctx.db as never, scopeOf(request), request.params.id);
      const progress = await campaignProgress(ctx.db, campaign.id);
      if (!progress) throw notFound();
      return progress;
    });

    routes.get(
      '/campaigns/:id/invalid-rows',
      { schema: { tags, params: idParams, querystring: filterQuery, response: { 200: z.array(campaignInvalidRowSchema) } } },
      async (request) => {
        const campaign = await campaigns.findRow(ctx.db as never, scopeOf(request), request.params.id);
        return invalidRows.list(scopeOf(request), withinCampaign(request.query.filter, { campaign_id: campaign.id, import_token: null }, 'filter'));
      },
    );

    routes.get(
      '/campaigns/:id/results',
      { schema: { tags, params: idParams, querystring: filterQuery, response: { 200: z.array(campaignResultSchema) } } },
      async (request) => {
        const campaign = await campaigns.findRow(ctx.db as never, scopeOf(request), request.params.id);
        return results.list(scopeOf(request), withinCampaign(request.query.filter, { campaign_id: campaign.id, state: { neq: 'staged' } }, 'filter'));
      },
    );

    routes.get('/campaigns/:id/results/count', { schema: { tags, params: idParams, querystring: whereQuery, response: { 200: countSchema } } }, async (request) => {
      const campaign = await campaigns.findRow(ctx.db as never, scopeOf(request), request.params.id);
      return { count: await results.count(scopeOf(request), withinCampaign(request.query.where, { campaign_id: campaign.id, state: { neq: 'staged' } }, 'where')) };
    });

    routes.get(
      '/campaigns/:id/results/export',
      {
        schema: {
          tags,
          params: idParams,
          querystring: filterQuery,
          produces: ['text/csv'],
          description: 'The results the filter selects (its where clause), one row per contact in the order of the list, as CSV (RFC 4180, UTF-8), streamed. `X-Total-Count` says how many rows follow.',
        },
      },
      async (request, reply) => {
        const scope = scopeOf(request);
        const campaign = await campaigns.findRow(ctx.db as never, scope, request.params.id);
        const { total, pages } = await results.readAllPages(scope, withinCampaign(request.query.filter, { campaign_id: campaign.id, state: { neq: 'staged' } }, 'filter'), 1000);
        async function* lines(): AsyncGenerator<string> {
          yield csvLine(resultColumns.map(([header]) => header));
          for await (const page of pages) yield page.map((row) => csvLine(resultColumns.map(([, cell]) => cell(row)))).join('');
        }
        const body = Readable.from(lines());
        body.on('error', (error) => request.log.error({ err: error }, 'the campaign results export stopped'));
        const safeName = (campaign.name as string).replace(/[^\w.-]+/g, '-').slice(0, 60);
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="campaign-${safeName}-results.csv"`)
          .header('x-total-count', String(total))
          .header('cache-control', 'no-store')
          .send(body);
      },
    );
  });
}
