import { countSchema, decodeJsonParam, idListSchema, idsOf } from '@voxplan/contracts';
import type { FastifyInstance } from 'fastify';
import type { FastifyRouteSchemaDef, FastifyValidationResult } from 'fastify/types/schema.js';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { scopeOf } from '../plugins/auth.ts';
import type { ResourceDefinition, ResourceHost, Values } from './definition.ts';
import { ResourceService } from './service.ts';

const MAX_ID = 2 ** 31 - 1;
const idParams = z.object({ id: z.coerce.number().int().positive().max(MAX_ID) });
// Ids are 32-bit columns: a larger one cannot exist, and PostgreSQL would fail comparing with it.
const bulkDeleteBody = idListSchema.refine((body) => idsOf(body).every((id) => id <= MAX_ID), {
  message: `ids are at most ${MAX_ID}`,
});
/** An id as a client writes it most of the time: digits, no leading zero, within MAX_ID when ten long. */
const PLAIN_ID = /^[1-9]\d{0,9}$/;

const filterQuery = z.object({
  filter: z.string().optional().describe('JSON: {"where":{...},"order":["name ASC"],"limit":10,"skip":0}'),
});
const whereQuery = z.object({ where: z.string().optional().describe('JSON where clause') });

/**
 * A query string of the one text parameter `name`, or of none: what zod's check of `filterQuery`
 * or `whereQuery` answers for it, without zod. Anything else (a repeated parameter, another one)
 * is left to zod.
 */
function plainQuery(data: unknown, name: string): { value: Record<string, string> } | undefined {
  let value: unknown;
  for (const key in data as Record<string, unknown>) {
    if (key !== name) return undefined;
    value = (data as Record<string, unknown>)[key];
  }
  if (value === undefined) return { value: {} };
  return typeof value === 'string' ? { value: { [name]: value } } : undefined;
}

/**
 * The routes' validator: zod's, except for what every read sends most of the time. zod's check of
 * the id cost about 2 µs a request, and of a list's or count's query string about as much (issue
 * 40): an id written plainly, a query string of the one `filter` or `where`, answered as zod
 * answers them; everything else still goes through zod (its 400s unchanged).
 */
function validatorWithPlainReads(route: FastifyRouteSchemaDef<unknown>): FastifyValidationResult {
  const zodValidator = validatorCompiler(route as FastifyRouteSchemaDef<z.ZodType>);
  if (route.schema === filterQuery || route.schema === whereQuery) {
    const name = route.schema === filterQuery ? 'filter' : 'where';
    return (data) => plainQuery(data, name) ?? zodValidator(data);
  }
  if (route.schema !== idParams) return zodValidator;
  return (data) => {
    const id = (data as { id?: unknown }).id;
    if (typeof id === 'string' && PLAIN_ID.test(id)) {
      const value = Number(id);
      if (value <= MAX_ID) return { value: { id: value } };
    }
    return zodValidator(data);
  };
}

const countAnswer = (count: number) => ({ count });

/** Registers the eight calls of spec section 7 for one resource; answers are the same shape for all. */
export function registerResource<Out>(app: FastifyInstance, ctx: ResourceHost, definition: ResourceDefinition<Out>): ResourceService<Out> {
  const service = new ResourceService(definition, ctx);
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const tags = [definition.path.replace(/^\//, '')];
  const base = definition.path;
  const list = z.array(definition.output);

  // The reads' handlers hand back their service's promise, not one of an async function resolved
  // with it (two promises and their microtasks more on every read, issue 40); a refusal thrown at
  // once reaches Fastify's error handler all the same.
  routes.get(`${base}/count`, { validatorCompiler: validatorWithPlainReads, schema: { tags, querystring: whereQuery, response: { 200: countSchema } } }, (request) =>
    service.count(scopeOf(request), request.query.where).then(countAnswer),
  );

  routes.get(base, { validatorCompiler: validatorWithPlainReads, schema: { tags, querystring: filterQuery, response: { 200: list } } }, (request) => service.list(scopeOf(request), request.query.filter));

  routes.get(`${base}/:id`, { validatorCompiler: validatorWithPlainReads, schema: { tags, params: idParams, response: { 200: definition.output } } }, (request) =>
    service.get(scopeOf(request), request.params.id),
  );

  if (definition.readOnly) return service;

  // Role checks come before body validation, so a guest learns it may not write, not what to fix.
  const writeGuard = { preValidation: async (request: Parameters<typeof scopeOf>[0]) => void service.assertWritable(scopeOf(request)) };

  if (definition.createInput) {
    routes.post(base, { ...writeGuard, schema: { tags, body: definition.createInput, response: { 201: definition.output } } }, async (request, reply) => {
      const created = await service.create(scopeOf(request), request.body as Values);
      return reply.status(201).send(created);
    });
  }

  routes.patch(
    `${base}/:id`,
    { ...writeGuard, validatorCompiler: validatorWithPlainReads, schema: { tags, params: idParams, body: definition.updateInput, response: { 200: definition.output } } },
    async (request) => service.patch(scopeOf(request), request.params.id, request.body as Values),
  );

  routes.put(
    `${base}/:id`,
    { ...writeGuard, validatorCompiler: validatorWithPlainReads, schema: { tags, params: idParams, body: definition.updateInput, response: { 200: definition.output } } },
    async (request) => service.patch(scopeOf(request), request.params.id, request.body as Values),
  );

  routes.patch(
    base,
    { ...writeGuard, schema: { tags, querystring: whereQuery, body: definition.updateInput, response: { 200: countSchema } } },
    async (request) => ({
      count: await service.patchMany(scopeOf(request), decodeJsonParam(request.query.where, 'where'), request.body as Values),
    }),
  );

  routes.delete(`${base}/:id`, { ...writeGuard, validatorCompiler: validatorWithPlainReads, schema: { tags, params: idParams, response: { 204: z.null() } } }, async (request, reply) => {
    await service.remove(scopeOf(request), request.params.id);
    return reply.status(204).send(null);
  });

  routes.delete(base, { ...writeGuard, schema: { tags, body: bulkDeleteBody, response: { 200: countSchema } } }, async (request) => ({
    count: await service.removeMany(scopeOf(request), idsOf(request.body)),
  }));

  return service;
}
