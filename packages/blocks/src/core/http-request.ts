/** Sends the request of an `http_request` or `api_switch` block through the OutboundHttp port. */
import { compileTemplate, type OutboundResponse, type Template, type Turn } from '@voxplan/engine';

export interface HttpRequestData {
  method: string;
  url: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  body: string;
  timeout_ms: number;
}

/** A JSON body whose strings are templates: rendered value by value, so a `"` in a variable cannot break the JSON. */
type BodyTemplate = null | boolean | number | Template | BodyTemplate[] | { [key: string]: BodyTemplate };

export interface CompiledHttpRequest {
  method: string;
  url: Template;
  /**
   * A URL without a template, query or fragment, valid and http(s): parsed once here, its
   * normalised text kept. Each request then appends its query to it instead of parsing a URL,
   * setting its search and serialising it again (a tenth of bench:engine's IVR turn).
   */
  staticHref: string | null;
  headers: Array<[string, Template]>;
  query: Array<[string, Template]>;
  body: { template: BodyTemplate } | null;
  timeoutMs: number;
}

function compileBody(value: unknown): BodyTemplate {
  if (typeof value === 'string') return compileTemplate(value);
  if (Array.isArray(value)) return value.map(compileBody);
  if (value !== null && typeof value === 'object') {
    const out: { [key: string]: BodyTemplate } = {};
    for (const [key, item] of Object.entries(value)) Object.defineProperty(out, key, { value: compileBody(item), enumerable: true, writable: true });
    return out;
  }
  return value as null | boolean | number;
}

function renderBody(turn: Turn, body: BodyTemplate): unknown {
  if (body === null || typeof body !== 'object') return body;
  if (Array.isArray(body)) return body.map((item) => renderBody(turn, item));
  if ('render' in body && typeof body.render === 'function') return turn.render(body as Template);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(body as { [key: string]: BodyTemplate })) {
    Object.defineProperty(out, key, { value: renderBody(turn, item), enumerable: true, writable: true });
  }
  return out;
}

/** CompiledHttpRequest.staticHref of a URL template. */
function staticHrefOf(url: Template): string | null {
  if (!url.isStatic || !URL.canParse(url.source)) return null;
  const parsed = new URL(url.source);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  return parsed.search === '' && parsed.hash === '' ? parsed.href : null;
}

export function compileHttpRequest(data: HttpRequestData): CompiledHttpRequest {
  const url = compileTemplate(data.url);
  return {
    method: data.method,
    url,
    staticHref: staticHrefOf(url),
    headers: Object.entries(data.headers).map(([name, value]) => [name, compileTemplate(value)]),
    query: Object.entries(data.query).map(([name, value]) => [name, compileTemplate(value)]),
    body: data.body.trim() === '' ? null : { template: compileBody(JSON.parse(data.body)) },
    timeoutMs: data.timeout_ms,
  };
}

export type HttpOutcome = { ok: true; status: number; json: unknown } | { ok: false; reason: string };

/**
 * Builds the request from the session and sends it; the answer's JSON is `undefined` when it is
 * not JSON. A promise only when the port answers with one. Never throws nor rejects: a failure is
 * the outcome's `reason`.
 */
export function sendHttpRequest(turn: Turn, request: CompiledHttpRequest): HttpOutcome | Promise<HttpOutcome> {
  const url = request.staticHref === null ? renderedUrl(turn, request) : withQuery(turn, request.staticHref, request.query);
  if (url === null) return { ok: false, reason: 'invalid_url' };
  const headers: Record<string, string> = {};
  for (const [name, value] of request.headers) headers[name] = turn.render(value);
  let body: string | undefined;
  if (request.body) {
    body = JSON.stringify(renderBody(turn, request.body.template));
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  }
  let response;
  try {
    response = turn.ports.http.request({ method: request.method, url, headers, body, timeoutMs: request.timeoutMs });
  } catch (error) {
    return failed(error);
  }
  return response instanceof Promise ? response.then(answered, failed) : answered(response);
}

/**
 * A static URL's text with the block's query: what `url.search = params.toString()` makes, since
 * URLSearchParams' output holds no character the search setter encodes.
 */
function withQuery(turn: Turn, href: string, query: CompiledHttpRequest['query']): string {
  if (query.length === 0) return href;
  const params = new URLSearchParams();
  for (const [name, value] of query) params.append(name, turn.render(value));
  return `${href}?${params.toString()}`;
}

/** The URL of a templated (or unusual) URL, with the block's query; null when it is not http(s). */
function renderedUrl(turn: Turn, request: CompiledHttpRequest): string | null {
  let url: URL;
  try {
    url = new URL(turn.render(request.url));
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const { query } = request;
  if (query.length > 0 && url.search === '') {
    // Set at once rather than name by name: each `searchParams.set` serialises the whole URL again.
    // The names are the block's keys, so unique: with no query before, the same as setting each.
    const params = new URLSearchParams();
    for (const [name, value] of query) params.append(name, turn.render(value));
    url.search = params.toString();
  } else {
    for (const [name, value] of query) url.searchParams.set(name, turn.render(value));
  }
  return url.toString();
}

function answered(response: OutboundResponse): HttpOutcome {
  let json: unknown;
  try {
    json = response.body === '' ? undefined : JSON.parse(response.body);
  } catch {
    json = undefined;
  }
  return { ok: true, status: response.status, json };
}

function failed(error: unknown): HttpOutcome {
  const failure = (error as { failure?: unknown } | null)?.failure;
  return { ok: false, reason: typeof failure === 'string' ? failure : 'network' };
}
