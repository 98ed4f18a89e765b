import type { ErrorCode, ErrorDetail, ErrorParams } from '@voxplan/contracts';

const namesByStatus: Record<number, string> = {
  400: 'BadRequestError',
  401: 'UnauthorizedError',
  403: 'ForbiddenError',
  404: 'NotFoundError',
  408: 'RequestTimeoutError',
  409: 'ConflictError',
  413: 'PayloadTooLargeError',
  414: 'UriTooLongError',
  415: 'UnsupportedMediaTypeError',
  422: 'UnprocessableEntityError',
  426: 'UpgradeRequiredError',
  429: 'TooManyRequestsError',
  431: 'RequestHeaderFieldsTooLargeError',
  500: 'InternalServerError',
  503: 'ServiceUnavailableError',
};

/** An error meant for the client: its code is translated, its message never leaks internals. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    readonly details?: ErrorDetail[],
    /** Overrides the catalogue text, for messages that name what was wrong. */
    readonly clientMessage?: string,
    /** The values the catalogue text names ({{maxSize}}), sent along for the console to word. */
    readonly params?: ErrorParams,
  ) {
    super(clientMessage ?? code);
    this.name = namesByStatus[statusCode] ?? 'Error';
  }
}

export const badRequest = (code: ErrorCode, details?: ErrorDetail[], message?: string) =>
  new AppError(400, code, details, message);
export const unauthorized = (code: ErrorCode) => new AppError(401, code);
export const forbidden = (code: ErrorCode) => new AppError(403, code);
export const notFound = (code: ErrorCode = 'not_found') => new AppError(404, code);
export const conflict = (code: ErrorCode, details?: ErrorDetail[]) => new AppError(409, code, details);
/** A failure of the server's own (logged with its cause), told to the client by a catalogue code. */
export function serverError(code: ErrorCode, cause?: unknown): AppError {
  const error = new AppError(500, code);
  if (cause !== undefined) error.cause = cause;
  return error;
}

export function statusName(statusCode: number): string {
  return namesByStatus[statusCode] ?? 'Error';
}
