import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/**
 * One line per request instead of Fastify's two (incoming, completed) or three (a missing route),
 * so the log at `info` reads as what happened: the start, refused and failed requests, and
 * failures with their causes (the errors plugin logs those). A request that succeeded, a console
 * file or a health check is a `debug` line: a console page load alone is a dozen of them.
 * `LOG_LEVEL=debug` is the full access log.
 */
const verboseLevels = new Set(['debug', 'trace']);

/** A server failure's cause and the code answered, noted by the errors plugin for the request's one line. */
const failures = new WeakMap<FastifyRequest, { cause: unknown; code: string }>();

export function noteFailure(request: FastifyRequest, cause: unknown, code: string): void {
  failures.set(request, { cause, code });
}

export class RequestLogController extends LogController {
  private readonly slowRequestMs: number;

  /** `slowRequestMs`: a request that took longer is a warning, whatever its status (SLOW_REQUEST_MS). */
  constructor(options: { slowRequestMs?: number } = {}) {
    super();
    this.slowRequestMs = options.slowRequestMs ?? Infinity;
  }

  override incomingRequest(): void {}

  override routeNotFound(): void {}

  /**
   * A failure of the server's own is the same one line at `error`, with the route and its cause
   * (code and message, the database's among them); its stack is a second line at `debug` only.
   */
  override requestCompleted(_error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const status = reply.statusCode;
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    const slow = ms > this.slowRequestMs;
    const failure = status >= 500 ? failures.get(request) : undefined;
    const level = failure ? 'error' : slow ? 'warn' : status >= 400 ? 'info' : 'debug';
    // Skips making the line on the hot path when nobody would see it.
    if (level === 'debug' && !verboseLevels.has(request.log.level)) return;
    const route = request.routeOptions.url;
    const fields = { method: request.method, url: request.url, ...(route !== undefined && { route }), status, ms, ...(slow && { slow: true }) };
    const text = `${request.method} ${request.url} ${status} ${ms} ms${slow ? ` (slow: over ${this.slowRequestMs} ms)` : ''}`;
    if (!failure) {
      request.log[level](fields, text);
      return;
    }
    const cause = failure.cause;
    const causeCode = (cause as { code?: unknown } | null)?.code;
    const causeFields = cause instanceof Error ? { cause: { name: cause.name, message: cause.message, ...(typeof causeCode === 'string' && { code: causeCode }) } } : { cause: String(cause) };
    request.log.error({ ...fields, code: failure.code, ...causeFields }, `${text}: ${failure.code} (${cause instanceof Error ? cause.message : String(cause)})`);
    if (verboseLevels.has(request.log.level)) request.log.debug({ method: request.method, url: request.url, err: cause }, `${request.method} ${request.url}: the failure's stack`);
  }

  /**
   * A browser that closes a page, or leaves one, cuts the answers it was receiving (a live feed,
   * an audio, an export): that is ordinary, so it is a debug line, not an info one that reads as
   * a fault. Other stream failures keep Fastify's warning.
   */
  override streamError(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply): void {
    if (error.code !== 'ERR_STREAM_PREMATURE_CLOSE') {
      super.streamError(error, request, reply);
      return;
    }
    reply.log.debug({ method: request.method, url: request.url }, `${request.method} ${request.url}: stream closed prematurely (the client went away)`);
  }
}
