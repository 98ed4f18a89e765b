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
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';
import { AppError, statusName } from '../errors.ts';

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
}

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

/**
 * Every failure in the error shape of spec section 8, in the caller's language; a 5xx never shows
 * internals, and is logged with its cause. HTTP answers and the simulator's error frames use it.
 */
export function apiErrorOf(error: unknown, locale: Locale, log: FastifyBaseLogger): ApiErrorAnswer {
  if (error instanceof AppError) {
    if (error.statusCode >= 500) log.error({ err: error.cause ?? error, code: error.code }, 'request failed');
    return answer(locale, error.statusCode, error.code, error.details, error.clientMessage, error.params);
  }
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
  if (status === 413) return answer(locale, 413, 'payload_too_large');
  if (status === 415) return answer(locale, 415, 'unsupported_media_type');
  // Fastify's own client errors (malformed JSON, bad content length): their messages are safe.
  if (status >= 400 && status < 500) return answer(locale, status, 'invalid_input', undefined, fastifyError.message);
  log.error({ err: error }, 'request failed');
  return answer(locale, 500, 'internal_error');
}

/** The language of a request's error texts: a Fastify request, or a raw one (an upgrade refused before routing). */
export const localeOf = (request: Pick<FastifyRequest, 'headers'>): Locale => localeFromAcceptLanguage(request.headers['accept-language']);

/** Turns every failure into the error shape of spec section 8. */
export const errorsPlugin = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((error: FastifyError | Error, request, reply) => {
    const { statusCode, body } = apiErrorOf(error, localeOf(request), request.log);
    return reply.status(statusCode).send(body);
  });

  app.setNotFoundHandler((request, reply) => reply.status(404).send(answer(localeOf(request), 404, 'not_found').body));
});
