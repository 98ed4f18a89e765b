/**
 * `GET /reports/export.csv`: the reports a filter selects, as CSV, streamed page by page so that
 * 100,000 rows cost the server no more memory than one page (docs/api.md, "Reports").
 */
import { Readable } from 'node:stream';
import type { CallReportRecord } from '@voxplan/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { scopeOf } from '../../plugins/auth.ts';
import { ResourceService } from '../../resources/service.ts';
import { reportsResource } from './reports.resource.ts';

/** Rows read per query: large enough that the queries cost little, small enough to keep memory flat. */
export const EXPORT_PAGE_SIZE = 1000;

/** The file's columns: the report's scalar fields, a chat's agent and queue, then its path and keys pressed summarised in one cell each. */
const columns: Array<[header: string, cell: (report: CallReportRecord) => string | number | boolean | null]> = [
  ['id', (r) => r.id],
  ['session_id', (r) => r.session_id],
  ['tenant_id', (r) => r.tenant_id],
  ['plan_id', (r) => r.plan_id],
  ['plan_name', (r) => r.plan_name],
  ['plan_version', (r) => r.plan_version],
  ['channel', (r) => r.channel],
  ['provider', (r) => r.provider],
  ['direction', (r) => r.direction],
  ['caller', (r) => r.caller],
  ['called', (r) => r.called],
  ['source_ip', (r) => r.source_ip],
  ['protocol', (r) => r.protocol],
  ['start_time', (r) => r.start_time],
  ['end_time', (r) => r.end_time],
  ['duration_s', (r) => r.duration_s],
  ['disposition', (r) => r.disposition],
  ['hangup_cause', (r) => r.hangup_cause],
  ['dial_status', (r) => r.dial_status],
  ['last_node_plan_id', (r) => r.last_node_plan_id],
  ['last_node_id', (r) => r.last_node_id],
  ['last_node_type', (r) => r.last_node_type],
  ['failure', (r) => r.failure?.code ?? null],
  ['is_test', (r) => r.is_test],
  // "Payment v3; Survey v1": the plans entered through call_plan, each at the version it ran.
  ['called_plans', (r) => r.called_plans?.map((plan) => `${plan.plan_name ?? ''} v${plan.plan_version}`).join('; ') ?? null],
  // A chat's last hand-off: who ended up with it, and the queue it reached there (names, as the table shows).
  ['agent', (r) => r.handoffs?.at(-1)?.agent?.name ?? null],
  ['queue', (r) => r.handoffs?.at(-1)?.queue?.name ?? null],
  // "start > menu [1] > sales [answer]": each block entered, with the exit it left by.
  ['nodes', (r) => r.nodes.map((node) => (node.exit === null ? node.node_id : `${node.node_id} [${node.exit}]`)).join(' > ')],
  // "menu: 1; survey: 5": the keys pressed at each menu, in order.
  ['pressed_digits', (r) => r.pressed_digits.map((entry) => `${entry.node_id}: ${entry.digits}`).join('; ')],
];

/**
 * One CSV cell (RFC 4180). A cell a spreadsheet would read as a formula (= + - @, a tab or a
 * carriage return first) gets a leading apostrophe, which makes it text; a phone number in E.164
 * (`+` and digits) is left as it is, since no spreadsheet runs it.
 */
export function csvCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text) && !/^\+\d+$/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const csvLine = (cells: Array<string | number | boolean | null>): string => `${cells.map(csvCell).join(',')}\r\n`;

export const reportsCsvHeader = (): string => csvLine(columns.map(([header]) => header));
export const reportCsvLine = (report: CallReportRecord): string => csvLine(columns.map(([, cell]) => cell(report)));

const exportQuery = z.object({
  filter: z.string().optional().describe('JSON, as GET /reports takes it; its where clause selects the rows (order, limit and skip are not used)'),
});

export function registerReportExportRoutes(app: FastifyInstance, ctx: AppContext): void {
  const service = new ResourceService(reportsResource, ctx);
  app.withTypeProvider<ZodTypeProvider>().get(
    '/reports/export.csv',
    {
      schema: {
        tags: ['reports'],
        querystring: exportQuery,
        produces: ['text/csv'],
        description:
          'Every report the filter selects (test sessions left out unless it names is_test), newest first, as CSV (RFC 4180, UTF-8, a ' +
          'header row), streamed. `X-Total-Count` says how many rows follow. A bad filter answers 400 before the first byte.',
      },
    },
    async (request, reply) => {
      // Counted, and the filter checked, before anything is sent: a bad one answers in the error shape.
      const { total, pages } = await service.readAllPages(scopeOf(request), request.query.filter, EXPORT_PAGE_SIZE);
      async function* lines(): AsyncGenerator<string> {
        yield reportsCsvHeader();
        for await (const page of pages) yield page.map(reportCsvLine).join('');
      }
      const body = Readable.from(lines());
      body.on('error', (error) => request.log.error({ err: error }, 'the reports export stopped'));
      const day = new Date().toISOString().slice(0, 10);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="reports-${day}.csv"`)
        .header('x-total-count', String(total))
        .header('cache-control', 'no-store')
        // A proxy that buffers answers (nginx) would hold the rows back from the console's progress.
        .header('x-accel-buffering', 'no')
        .send(body);
    },
  );
}
