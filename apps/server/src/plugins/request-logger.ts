import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LogFn } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
/** The parent logger as pino gives it: whether a level writes at all. */
type Parent = FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };

/**
 * A request's logger. Fastify makes one for every request, and most write no line (a success is a
 * `debug` line, request-log.ts): pino's child (its bindings written out as JSON, its own object
 * and level) was about a microsecond of every uncached request (issue 40). This one makes that
 * child the first time a line is written at a level that writes, so every line a request writes
 * still carries its request id, as the child's bindings always did.
 */
class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: Parent & { isLevelEnabled: (level: string) => boolean },
    private readonly bindings: Bindings,
  ) {}

  private logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings));
  }

  private write(level: Level, args: Parameters<LogFn>): void {
    if (this.made === undefined && !this.parent.isLevelEnabled(level)) return;
    this.logger()[level](...args);
  }

  get level(): string {
    return (this.made ?? this.parent).level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  fatal(...args: Parameters<LogFn>): void {
    this.write('fatal', args);
  }

  error(...args: Parameters<LogFn>): void {
    this.write('error', args);
  }

  warn(...args: Parameters<LogFn>): void {
    this.write('warn', args);
  }

  info(...args: Parameters<LogFn>): void {
    this.write('info', args);
  }

  debug(...args: Parameters<LogFn>): void {
    this.write('debug', args);
  }

  trace(...args: Parameters<LogFn>): void {
    this.write('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }
}

/**
 * Fastify's `childLoggerFactory`: the request's logger made when first written to. A route's own
 * level or serializers, or a logger that is not pino's (Fastify's silent one), get the child at once.
 */
export function requestLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  const parent = logger as Parent;
  if (typeof parent.isLevelEnabled !== 'function' || Object.keys(options).length > 0) return logger.child(bindings, options);
  return new RequestLogger(parent as Parent & { isLevelEnabled: (level: string) => boolean }, bindings);
}
