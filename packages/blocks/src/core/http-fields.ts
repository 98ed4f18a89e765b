/** The request fields `http_request` and `api_switch` share (blocks.md). */
import { z } from 'zod';
import { customIssue, fieldHints } from './fields.ts';

export const httpMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** RFC 9110 token; `__proto__` is a valid token but would replace a plain object's prototype. */
const headerName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'not a valid header name')
  .refine((name) => name !== '__proto__', 'not a valid header name');
const queryName = z
  .string()
  .min(1)
  .max(200)
  .refine((name) => name !== '__proto__', 'not a valid parameter name');

const oneLineTemplate = { kind: 'template', multiline: false } as const;

export const httpRequestFields = {
  method: z.enum(httpMethods).default('GET'),
  /** May hold `{{name}}`; what it renders to must be an http or https URL. */
  url: z.string().trim().min(1).max(2_000).register(fieldHints, oneLineTemplate),
  headers: z.record(headerName, z.string().max(4_000).register(fieldHints, oneLineTemplate)).default({}),
  query: z.record(queryName, z.string().max(2_000).register(fieldHints, oneLineTemplate)).default({}),
  /** JSON text; `{{name}}` may appear inside its strings. */
  body: z.string().max(65_536).default('').register(fieldHints, { kind: 'json' }),
  timeout_ms: z.number().int().min(100).max(30_000).default(5_000),
};

export function checkHttpRequest(data: { url: string; body: string; method: string }, ctx: z.RefinementCtx): void {
  if (!/^https?:\/\//i.test(data.url) && !data.url.startsWith('{{')) {
    ctx.addIssue({ code: 'custom', path: ['url'], message: 'must start with http:// or https://' });
  }
  if (data.body.trim() !== '') {
    try {
      JSON.parse(data.body);
    } catch (error) {
      customIssue(ctx, 'invalid_json', ['body'], `not valid JSON: ${(error as Error).message}`);
    }
  }
}
