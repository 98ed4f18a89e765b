/**
 * Statements sent through `pg` at less cost a round trip than its `Query` (issue 40).
 *
 * On PostgreSQL a call's Node CPU is mostly the driver's work a statement, and `pg`'s `Query`
 * does more of it than a named statement needs: it copies its config, makes an event emitter and
 * a result, describes the portal on every run (so the server sends the row description each time,
 * and pg-protocol parses it and `Result.addFields` makes its field parsers each time), and
 * `pool.query` drops the connection after any error, a unique violation included. A
 * `NamedStatement` describes a statement once a connection (the first run, which also parses it),
 * keeps the names and parsers of its columns for that connection, and afterwards only binds,
 * executes and syncs. Rows are the objects `pg` makes: the columns in order, each through the
 * client's type parser. A `SyncPing` is a bare Sync: the server answers ReadyForQuery and, before
 * it, the notifications pending for a listening session, as for any statement (instance-bus.ts).
 * Both are `pg` Submittables, its documented way of sending other messages than `Query`'s.
 */
import pg from 'pg';

/** What a statement answered: as `pg`'s result, the parts Kysely's driver and prepared.ts read. */
export interface StatementResult {
  command: string | null;
  rowCount: number | null;
  rows: Array<Record<string, unknown>>;
}

type TypeParser = (value: string) => unknown;

/** The columns of a named statement's rows, as the first run on a connection described them. */
interface Shape {
  names: string[];
  parsers: TypeParser[];
  /** Only for a column named `__proto__`, which an assignment would take for the prototype: `pg` copies this template instead. */
  template: Record<string, null> | undefined;
}

/** The parts of `pg`'s Connection this uses (its TypeScript types leave some out). */
interface WireConnection {
  readonly stream: { cork?: () => void; uncork?: () => void };
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  parse(query: { text: string; name: string }): void;
  bind(config: { statement: string; values: unknown[]; valueMapper: (value: unknown) => unknown }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(config: { portal: string }): void;
  close(message: { type: 'S'; name: string }): void;
  sync(): void;
  sendCopyFail(message: string): void;
}

interface FieldDescription {
  name: string;
  dataTypeID: number;
  format: string;
}

// pg's own mapping of a JavaScript value to a parameter's text (dates, buffers, arrays, JSON):
// exported at run time as `pg.utils`, not in its type declarations.
const prepareValue = (pg as unknown as { utils: { prepareValue: (value: unknown) => unknown } }).utils.prepareValue;

/** Shapes by connection, then by statement name: a new connection (after a loss) describes anew. */
const shapes = new WeakMap<WireConnection, Map<string, Shape>>();

const COMMAND = /^([A-Za-z]+)(?: (\d+))?(?: (\d+))?/;

function shapeOf(fields: readonly FieldDescription[], typeParser: (oid: number, format: string) => TypeParser): Shape {
  const names = fields.map((field) => field.name);
  return {
    names,
    // Binary results are never asked for here (pg's default is text).
    parsers: fields.map((field) => typeParser(field.dataTypeID, field.format || 'text')),
    template: names.includes('__proto__') ? (Object.fromEntries(names.map((name) => [name, null])) as Record<string, null>) : undefined,
  };
}

/** How pg's client hands a statement its outcome: it wraps this property to clear its read timeout, and calls the wrapper unbound. */
type Callback = (error: Error | null, result?: StatementResult) => void;

/**
 * Whether a client that failed a statement with `error` can serve the next: an error PostgreSQL
 * answered (a unique violation, a statement timeout) leaves the connection as it was; anything else
 * (the socket lost, pg's read timeout, whose statement is still on the wire) does not.
 */
function connectionSurvives(error: Error): boolean {
  return error instanceof pg.DatabaseError;
}

/** One run of a named statement on a client of the pool (`runNamed`), which it gives back once answered. */
class NamedStatement implements pg.Submittable {
  private shape: Shape | undefined;
  private described = false;
  private readonly result: StatementResult = { command: null, rowCount: null, rows: [] };
  private failure: Error | undefined;
  private connection: WireConnection | undefined;
  private finished = false;
  callback: Callback;

  constructor(
    // `text` and `name` by these names: pg's client reads them off the active query when the server has parsed it.
    readonly text: string,
    readonly name: string,
    private readonly values: unknown[],
    private readonly client: pg.PoolClient,
    private readonly release: (error?: Error) => void,
    private readonly resolve: (result: StatementResult) => void,
    private readonly reject: (error: Error) => void,
  ) {
    this.callback = (error) => this.settle(error);
  }

  /** An error returned, not thrown: pg's client then fails this statement alone, as it does its own Query's. */
  submit(raw: pg.Connection): Error | undefined {
    const connection = raw as unknown as WireConnection;
    this.connection = connection;
    const { name, text } = this;
    const previous = connection.parsedStatements[name] ?? connection.submittedNamedStatements[name];
    if (previous !== undefined && previous !== text) return new Error(`the statement ${name} is another's on this connection`);
    this.shape = shapes.get(connection)?.get(name);
    connection.stream.cork?.();
    try {
      if (previous === undefined) {
        connection.parse({ text, name });
        connection.submittedNamedStatements[name] = text;
      }
      try {
        connection.bind({ statement: name, values: this.values, valueMapper: prepareValue });
      } catch (error) {
        // As pg's Query: a value that cannot be sent fails the statement.
        connection.close({ type: 'S', name });
        connection.sync();
        this.handleError(error instanceof Error ? error : new Error(String(error)));
        return undefined;
      }
      if (!this.shape) {
        connection.describe({ type: 'P', name: '' });
        this.described = true;
      }
      connection.execute({ portal: '' });
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return undefined;
  }

  handleRowDescription(message: { fields: FieldDescription[] }): void {
    this.shape = shapeOf(message.fields, (oid, format) => this.client.getTypeParser(oid, format as 'text') as TypeParser);
    this.remember(this.shape);
  }

  handleDataRow(message: { fields: Array<string | null> }): void {
    if (this.failure) return;
    const { shape } = this;
    if (!shape) {
      this.failure = new Error(`the statement ${this.name} answered rows it was not described with`);
      return;
    }
    const values = message.fields;
    const row: Record<string, unknown> = shape.template ? { ...shape.template } : {};
    try {
      for (let i = 0; i < values.length; i++) {
        const value = values[i];
        row[shape.names[i]!] = value === null || value === undefined ? null : shape.parsers[i]!(value);
      }
    } catch (error) {
      this.failure = error instanceof Error ? error : new Error(String(error));
      return;
    }
    this.result.rows.push(row);
  }

  handleCommandComplete(message: { text: string }): void {
    const match = COMMAND.exec(message.text);
    if (match) {
      this.result.command = match[1]!;
      const count = match[3] ?? match[2];
      if (count !== undefined) this.result.rowCount = Number.parseInt(count, 10);
    }
    // Described and no row description came: a statement without rows (NoData), described for good.
    if (this.described && !this.shape) this.remember({ names: [], parsers: [], template: undefined });
  }

  handleEmptyQuery(): void {}

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: pg.Connection): void {
    (connection as unknown as WireConnection).sendCopyFail('No source stream defined');
  }

  handleCopyData(): void {}

  handleError(error: Error): void {
    this.callback(this.failure ?? error);
  }

  handleReadyForQuery(): void {
    this.callback(this.failure ?? null);
  }

  /** Gives the client back (dropped when its connection is not fit for another statement) and answers, once. */
  settle(error: Error | null): void {
    if (this.finished) return;
    this.finished = true;
    if (error) {
      // pg-pool drops a client released with an error.
      this.release(connectionSurvives(error) ? undefined : error);
      this.reject(error);
    } else {
      this.release();
      this.resolve(this.result);
    }
  }

  private remember(shape: Shape): void {
    if (!this.connection) return;
    let byName = shapes.get(this.connection);
    if (!byName) shapes.set(this.connection, (byName = new Map()));
    byName.set(this.name, shape);
  }
}

/**
 * Runs the named statement `name` (text `text`) with `values` on a connection of `pool`, outside
 * any transaction. Each connection parses and describes it once.
 */
export function runNamed(pool: pg.Pool, text: string, name: string, values: unknown[]): Promise<StatementResult> {
  return new Promise((resolve, reject) => {
    pool.connect((connectError, client, release) => {
      if (connectError || !client) {
        reject(connectError ?? new Error('no connection'));
        return;
      }
      const statement = new NamedStatement(text, name, values, client, release, resolve, reject);
      try {
        client.query(statement);
      } catch (error) {
        statement.settle(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/** What a ping shows as its text to whoever lists the statements sent (the bench, the tests): it has none. */
export const SYNC_PING_TEXT = 'Sync';

/** A bare Sync (`syncPing`). None of the other handlers is called for a Sync alone; pg's client calls them on whatever query is active. */
class SyncPing implements pg.Submittable {
  readonly text = SYNC_PING_TEXT;

  constructor(
    private readonly resolve: () => void,
    private readonly reject: (error: Error) => void,
  ) {}

  submit(connection: pg.Connection): void {
    (connection as unknown as WireConnection).sync();
  }

  handleReadyForQuery(): void {
    this.resolve();
  }

  handleError(error: Error): void {
    this.reject(error);
  }

  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}
}

/**
 * A bare Sync on `client`, answered once the server's ReadyForQuery comes back: the least a round
 * trip can be, for the instance bus's ping. No statement, so no transaction, no row description,
 * no row and no result.
 */
export function syncPing(client: pg.Client): Promise<void> {
  return new Promise((resolve, reject) => {
    client.query(new SyncPing(resolve, reject));
  });
}
