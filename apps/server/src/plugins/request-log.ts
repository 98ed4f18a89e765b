import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/**
 * One line per request instead of Fastify's two (incoming, completed) or three (a missing route),
 * so the log at `info` reads as what happened: the start, refused and failed requests, and
 * failures with their causes (the errors plugin logs those). A request that succeeded, a console
 * file or a health check is a `debug` line: a console page load alone is a dozen of them.
 * `LOG_LEVEL=debug` is the full access log.
 */
const verboseLevels = new Set(['debug', 'trace']);

export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(_error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const status = reply.statusCode;
    const level = status >= 400 ? 'info' : 'debug';
    // Skips making the line on the hot path when nobody would see it.
    if (level === 'debug' && !verboseLevels.has(request.log.level)) return;
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    request.log[level]({ method: request.method, url: request.url, status, ms }, `${request.method} ${request.url} ${status} ${ms} ms`);
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
