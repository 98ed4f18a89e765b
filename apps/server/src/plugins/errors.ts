import {
  type ApiErrorBody,
  type ErrorCode,
  type ErrorDetail,
  type ErrorParams,
  errorMessage,
  FilterError,
  type Locale,
  localeFromAcceptLanguage,
} from '@voxplan/contracts';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { AppError, badRequest, statusName } from '../errors.ts';
import { noteFailure } from './request-log.ts';

export function detailsFromZod(error: z.ZodError): ErrorDetail[] {
  return error.issues.flatMap((issue) => {
    // An unknown field is named itself, as the body validation names it.
    const fields = issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key]) : [issue.path];
    return fields.map((path) => ({ path: path.map(String).join('.'), message: issue.message, code: issue.code }));
  });
}

export interface ApiErrorAnswer {
  statusCode: number;
  body: ApiErrorBody;
  /** Seconds the client should wait before trying again (the Retry-After header). */
  retryAfterSeconds?: number;
}

/**
 * What a client waits before trying a request that met the database away: a restart of
 * PostgreSQL takes a few seconds, and the instance probes it every second (db/availability.ts).
 */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** A server's failure, for whoever writes its line: the cause (never shown to the client) and the code answered. */
export type FailureNote = (cause: unknown, code: ErrorCode) => void;

function answer(locale: Locale, statusCode: number, code: ErrorCode, details?: ErrorDetail[], message?: string, params?: ErrorParams): ApiErrorAnswer {
  return {
    statusCode,
    body: {
      error: {
        statusCode,
        name: statusName(statusCode),
        message: message ?? errorMessage(code, locale, params),
        code,
        ...(details && details.length > 0 && { details }),
        ...(params && { params }),
      },
    },
  };
}

/**
 * PostgreSQL data exceptions that only a client's value can cause (a number too large for its
 * column, text holding NUL): the input is refused, the database's own words are not shown.
 * SQLite stores such values, so the request layers should refuse them first; this is the net.
 */
const clientDataErrors: Record<string, string> = {
  '22003': 'a number is out of range',
  '22021': 'text holds a character that cannot be stored',
  '22P05': 'text holds a character that cannot be stored',
};

function clientDataError(error: unknown): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && Object.hasOwn(clientDataErrors, code) ? clientDataErrors[code] : undefined;
}

/** Statuses whose one cause has its own catalogue code, whoever raised them. */
const codeByStatus: Partial<Record<number, ErrorCode>> = {
  408: 'request_timeout',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  431: 'headers_too_large',
};

/**
 * Every failure in the error shape of spec section 8, in the caller's language; a 5xx never shows
 * internals, and is logged with its cause. HTTP answers and the simulator's error frames use it.
 */
export function apiErrorOf(error: unknown, locale: Locale, log: FastifyBaseLogger, note?: FailureNote): ApiErrorAnswer {
  // Without a note (the simulator's frames), the failure is its own line.
  const failed: FailureNote = note ?? ((cause, code) => log.error({ err: cause, code }, 'request failed'));
  if (error instanceof AppError) {
    if (error.statusCode >= 500 && isDatabaseUnavailable(error.cause)) return unavailable(locale, error.cause, failed);
    if (error.statusCode >= 500) failed(error.cause ?? error, error.code);
    return answer(locale, error.statusCode, error.code, error.details, error.clientMessage, error.params);
  }
  if (isDatabaseUnavailable(error)) return unavailable(locale, error, failed);
  if (error instanceof z.ZodError) return answer(locale, 400, 'invalid_input', detailsFromZod(error));
  if (error instanceof FilterError) return answer(locale, 400, 'invalid_filter', [{ path: error.path, message: error.message }]);
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    // A body field is named as the form names it ("email"), like the errors the services raise,
    // so the console can put the message on its field; other parts keep their context
    // ("querystring.filter"). An unknown field is named itself, not its parent.
    const context = fastifyError.validationContext === 'body' ? [] : [fastifyError.validationContext];
    const details = fastifyError.validation.flatMap((v) => {
      const parent = [...context, ...v.instancePath.split('/').filter(Boolean)];
      const unknownKeys = (v.params as { keys?: unknown } | undefined)?.keys;
      const fields = v.keyword === 'unrecognized_keys' && Array.isArray(unknownKeys) ? unknownKeys.map((key) => [...parent, String(key)]) : [parent];
      return fields.map((path) => ({ path: path.filter(Boolean).join('.'), message: v.message ?? 'invalid' }));
    });
    return answer(locale, 400, 'invalid_input', details);
  }
  const dataError = clientDataError(error);
  if (dataError) {
    log.warn({ err: error }, 'value refused by the database');
    return answer(locale, 400, 'invalid_input', [{ path: '', message: dataError }]);
  }
  const status = fastifyError.statusCode ?? 500;
  const statusCode = codeByStatus[status];
  if (statusCode) return answer(locale, status, statusCode);
  if (fastifyError.code === 'FST_ERR_BAD_URL') return answer(locale, 400, 'malformed_request');
  // Fastify's and its plugins' other client errors (malformed JSON, an empty JSON body): the
  // catalogue's text in the caller's language; theirs, which names no internals, as the detail.
  if (status >= 400 && status < 500) return answer(locale, status, 'invalid_input', [{ path: '', message: fastifyError.message }]);
  failed(error, 'internal_error');
  return answer(locale, 500, 'internal_error');
}

/** The database could not be reached or did not answer in time: 503, try again shortly, not a 500. */
function unavailable(locale: Locale, cause: unknown, failed: FailureNote): ApiErrorAnswer {
  failed(cause, 'database_unavailable');
  return { ...answer(locale, 503, 'database_unavailable'), retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS };
}

/** The language of a request's error texts: a Fastify request, or a raw one (an upgrade refused before routing). */
export const localeOf = (request: Pick<FastifyRequest, 'headers'>): Locale => localeFromAcceptLanguage(request.headers['accept-language']);

/**
 * Reads a request's body in a handler (a multipart stream): what the parser throws without a
 * status (busboy: "Boundary not found", "Unexpected end of form") is the client's malformed body,
 * a 400, not a 500. Errors with a status (the multipart limits, ours) pass as they are.
 */
export async function readingBody<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof AppError || typeof (error as Partial<FastifyError>).statusCode === 'number') throw error;
    throw badRequest('invalid_input', [{ path: '', message: `the body cannot be read: ${error instanceof Error ? error.message : String(error)}` }]);
  }
}

const jsonType = 'application/json; charset=utf-8';

/**
 * Fastify's `frameworkErrors`: a request it cannot route (a URL that does not decode, a path
 * parameter too long) answers in the error shape. The reply has no route, so no serializer: the
 * JSON is written here.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const { statusCode, body } = apiErrorOf(error, localeOf(request), request.log);
  void reply.code(statusCode).type(jsonType).send(JSON.stringify(body));
}

/** The Accept-Language of a request Node's parser refused, when its bytes got that far. */
function acceptLanguageIn(rawPacket: unknown): string | undefined {
  if (!Buffer.isBuffer(rawPacket)) return undefined;
  return /\r\naccept-language:[ \t]*([^\r\n]*)/i.exec(rawPacket.toString('latin1'))?.[1];
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before Fastify sees a request
 * (a URL or headers beyond maxHeaderSize, a request line that does not parse, a bad
 * Content-Length, a body cut short) answers in the error shape, as Node would, then closes.
 */
export function clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Duplex): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  this.log.debug({ err: error }, 'request refused by the HTTP parser');
  const { body } = answer(localeFromAcceptLanguage(acceptLanguageIn(error.rawPacket)), status, codeByStatus[status] ?? 'malformed_request');
  const json = JSON.stringify(body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: ${jsonType}\r\nContent-Length: ${Buffer.byteLength(json)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${json}`,
    );
  }
  socket.destroy(error);
}

/** Turns every failure into the error shape of spec section 8. */
export const errorsPlugin = fp(async (app: FastifyInstance, options: { onDatabaseUnavailable?: (error: unknown) => void }) => {
  app.setErrorHandler((error: FastifyError | Error, request, reply) => {
    // The request's one line (request-log.ts) names the cause; the database monitor hears of it.
    const { statusCode, body, retryAfterSeconds } = apiErrorOf(error, localeOf(request), request.log, (cause, code) => {
      noteFailure(request, cause, code);
      if (code === 'database_unavailable') options.onDatabaseUnavailable?.(cause);
    });
    if (retryAfterSeconds !== undefined) void reply.header('retry-after', String(retryAfterSeconds));
    return reply.status(statusCode).send(body);
  });

  app.setNotFoundHandler((request, reply) => reply.status(404).send(answer(localeOf(request), 404, 'not_found').body));
});
