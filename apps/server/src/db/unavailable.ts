/**
 * Whether a failure means the database could not be reached or did not answer in time, as opposed
 * to a query it refused: such a request is answered `503 database_unavailable` with Retry-After,
 * and the calls it belonged to hear the "not available right now" message (docs/deployment.md,
 * "When the database falters").
 */

/** Node's socket errors while connecting to or talking with the server. */
const socketCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * PostgreSQL's SQLSTATEs of a server going away or out of room: admin_shutdown, crash_shutdown,
 * cannot_connect_now (starting or shutting down), too_many_connections, query_canceled (our
 * statement_timeout); the 08 class is connection exceptions.
 */
const sqlStates = new Set(['57P01', '57P02', '57P03', '53300', '57014']);

/** What node-postgres and pg-pool say, without a code, when a connection fails or a bound runs out. */
const pgMessages = [
  /^Connection terminated/, // the server closed the socket, or the connect timeout cut it ("…due to connection timeout", "…unexpectedly")
  /^timeout exceeded when trying to connect$/, // pg-pool's connectionTimeoutMillis
  /^timeout expired$/, // pg's own connect timeout
  /^Query read timeout$/, // the client-side query_timeout
  /^Client has encountered a connection error and is not queryable$/,
  /^Cannot use a pool after calling end on the pool$/,
];

const codeOf = (error: object): unknown => (error as { code?: unknown }).code;

function isUnavailableOne(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = codeOf(error);
  if (typeof code === 'string') {
    if (socketCodes.has(code) || sqlStates.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
    // better-sqlite3: another connection held the lock past busy_timeout.
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_BUSY_TIMEOUT') return true;
  }
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && pgMessages.some((pattern) => pattern.test(message));
}

/**
 * True when `error` (or each error of an AggregateError: pg tries every address of a host name) is
 * the database being unreachable. A wrapped `cause` is not followed: `fetch failed` wraps the same
 * socket codes for an outside server, and an error with an HTTP status is an outside answer too.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || 'statusCode' in error) return false;
  if (isUnavailableOne(error)) return true;
  const { errors } = error as { errors?: unknown };
  return error instanceof AggregateError && Array.isArray(errors) && errors.length > 0 && errors.every((inner) => isUnavailableOne(inner));
}

/** The short name of a cause, for a log line: its code, else its message. */
export function causeOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const code = codeOf(error);
  const message = (error as { message?: unknown }).message;
  return [typeof code === 'string' ? code : undefined, typeof message === 'string' ? message : undefined].filter(Boolean).join(': ') || 'unknown';
}
