/**
 * What the server instances on one database tell each other: which tables a commit wrote (for the
 * read cache) and messages such as the live session events (modules/sessions/live-events.ts).
 *
 * On PostgreSQL every instance keeps one connection of its own that LISTENs on one channel. A
 * trigger on every table sends `NOTIFY` in the writing transaction, so a write is announced when,
 * and only if, it commits, whoever wrote it (this server, another instance, `set-password`, an
 * operator's psql). On SQLite there is one process, and the bus is a plain in-process one.
 * docs/decisions.md ("Several instances") gives the reasoning.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { coalesce, PING_SPACING_MS } from './coalesce.ts';
import { syncPing } from './pg-statements.ts';

/**
 * The one channel every instance listens on. Writes come as `w:<table>`, messages as
 * `e<envelope JSON>`, an instance's announcement that it listens to a topic as
 * `h<instance> <topic>`, and a new listener's question of who listens to what as `?`.
 */
export const BUS_CHANNEL = 'voxplan';

/** How the listening connection shows in `pg_stat_activity`. */
export const BUS_APPLICATION_NAME = 'voxplan-bus';

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
const MAX_PAYLOAD_BYTES = 7999;

export type BusListener = (message: unknown) => void;

export interface InstanceBus {
  /**
   * Tells every instance, this one included, of `message` (JSON), after the fact and without
   * waiting: the messages of one instance arrive in the order they were published. Call it once
   * what it announces is committed.
   */
  publish(topic: string, message: unknown): void;
  /**
   * Whether a message published on `topic` now could reach a listener: on SQLite one of this
   * process; on PostgreSQL one of this process or of an instance that announced the topic lately
   * (`createPostgresBus`). A publisher whose message costs work to make may skip it when not.
   */
  heard(topic: string): boolean;
  /** Calls `listener` with every message published on `topic` from now on. Answers the function that stops it. */
  subscribe(topic: string, listener: BusListener): () => void;
  close(): Promise<void>;
}

/** Subscribers by topic; a listener that throws is logged and keeps the others from nothing. */
function createTopics(log: (message: string) => void) {
  const byTopic = new Map<string, Set<BusListener>>();
  return {
    subscribe(topic: string, listener: BusListener): () => void {
      let listeners = byTopic.get(topic);
      if (!listeners) byTopic.set(topic, (listeners = new Set()));
      // A listener subscribed twice is told twice: each subscription has its own stop function.
      const own: BusListener = (message) => listener(message);
      listeners.add(own);
      return () => {
        listeners.delete(own);
        if (listeners.size === 0 && byTopic.get(topic) === listeners) byTopic.delete(topic);
      };
    },
    has: (topic: string): boolean => byTopic.has(topic),
    deliver(topic: string, message: unknown): void {
      for (const listener of byTopic.get(topic) ?? []) {
        try {
          listener(message);
        } catch (error) {
          log(`a listener of ${topic} failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    },
  };
}

/** SQLite's bus: one process, so messages go straight to this process's listeners (after the publisher's own code, as from another instance). */
export function createLocalBus(log: (message: string) => void = () => {}): InstanceBus {
  const topics = createTopics(log);
  return {
    publish(topic, message) {
      // Nobody in this process listens (a session's turn publishes whether a dashboard is open or not).
      if (!topics.has(topic)) return;
      // Through JSON, as across instances: a listener gets its own copy, and the same shape on both databases.
      const copy: unknown = JSON.parse(JSON.stringify(message));
      queueMicrotask(() => topics.deliver(topic, copy));
    },
    heard: topics.has,
    subscribe: topics.subscribe,
    close: async () => {},
  };
}

export interface PostgresBus extends InstanceBus {
  /**
   * Resolves once every notification of a commit made before the call has been handled; false
   * when the listening connection is down (nothing can be known) or did not answer in time.
   */
  caughtUp(): Promise<boolean>;
  /** Resolves once the first LISTEN is in place, or the first attempt failed (it is retried meanwhile). */
  readonly ready: Promise<void>;
}

export interface PostgresBusOptions {
  connectionString: string;
  /** Publishing goes through the server's pool: the listening connection only listens and answers `caughtUp`. */
  pool: pg.Pool;
  /** A commit wrote `table`. */
  onWrite(table: string): void;
  /** Writes may have gone unnoticed: the connection was lost, or has just been made again. */
  onGap(): void;
  log?: (message: string) => void;
  /** How long `caughtUp` waits for the listening connection before it counts as lost. Default 2 s. */
  pingTimeoutMs?: number;
  /**
   * How often an instance tells the others which topics it listens to; an announcement counts for
   * three of these, so one lost is no gap. Default 10 s.
   */
  interestRefreshMs?: number;
  /**
   * How long a topic is still announced after its last listener of this instance left: a web chat's
   * long polls listen one after the other, and each would otherwise be a new announcement, with
   * the moment before the others hear it. Default 60 s.
   */
  interestLingerMs?: number;
}

const RECONNECT_DELAYS_MS = [50, 200, 1000, 5000];

export function createPostgresBus(options: PostgresBusOptions): PostgresBus {
  const log = options.log ?? (() => {});
  const pingTimeoutMs = options.pingTimeoutMs ?? 2000;
  const interestRefreshMs = options.interestRefreshMs ?? 10_000;
  const interestLingerMs = options.interestLingerMs ?? 60_000;
  const topics = createTopics(log);
  // Which instance an announcement comes from: an instance's own tells it nothing.
  const instance = randomUUID();
  /** Topics other instances listen to, with the time (performance.now) their last announcement stops counting. */
  const heardElsewhere = new Map<string, number>();
  /** Topics this instance announces: Infinity while it has listeners, then the time its linger ends. */
  const announced = new Map<string, number>();
  let current: pg.Client | undefined;
  let listening = false;
  let closed = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;

  function receive(payload: string | undefined): void {
    if (!payload) return;
    if (payload.startsWith('w:')) {
      options.onWrite(payload.slice(2));
      return;
    }
    if (payload.startsWith('h')) {
      const space = payload.indexOf(' ');
      if (space > 0 && payload.slice(1, space) !== instance) heardElsewhere.set(payload.slice(space + 1), performance.now() + 3 * interestRefreshMs);
      return;
    }
    if (payload.startsWith('?')) {
      if (payload.slice(1) !== instance) announceAll();
      return;
    }
    if (!payload.startsWith('e')) return;
    let envelope: { t?: unknown; m?: unknown };
    try {
      envelope = JSON.parse(payload.slice(1)) as { t?: unknown; m?: unknown };
    } catch {
      log(`instance bus: a message that is not JSON was ignored`);
      return;
    }
    if (typeof envelope.t === 'string') topics.deliver(envelope.t, envelope.m);
  }

  function lost(client: pg.Client, reason: string): void {
    if (client !== current) return;
    current = undefined;
    listening = false;
    options.onGap();
    log(`instance bus: the listening connection was lost (${reason}); the read cache is emptied until it is back`);
    client.end().catch(() => undefined);
    schedule();
  }

  function schedule(): void {
    if (closed || retry) return;
    const delay = RECONNECT_DELAYS_MS[Math.min(failures, RECONNECT_DELAYS_MS.length - 1)]!;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, delay);
    retry.unref();
  }

  async function connect(): Promise<void> {
    const client = new pg.Client({ connectionString: options.connectionString, keepAlive: true, application_name: BUS_APPLICATION_NAME });
    current = client;
    client.on('notification', (message) => {
      if (client === current) receive(message.payload);
    });
    client.on('error', (error) => lost(client, error.message));
    client.on('end', () => lost(client, 'closed'));
    try {
      await client.connect();
      await client.query(`LISTEN ${BUS_CHANNEL}`);
    } catch (error) {
      failures++;
      lost(client, error instanceof Error ? error.message : String(error));
      return;
    }
    if (closed) {
      await client.end().catch(() => undefined);
      return;
    }
    if (client !== current) return;
    // Whatever was committed before LISTEN took effect was not heard: kept answers start over.
    options.onGap();
    listening = true;
    failures = 0;
    // Announcements made while this instance was not listening were missed: the others say theirs again.
    send(`?${instance}`);
    announceAll();
  }

  const ping = coalesce(async () => {
    const client = current;
    if (!client || !listening) return false;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${pingTimeoutMs} ms`)), pingTimeoutMs);
    });
    try {
      // PostgreSQL sends a listening session the notifications pending for it before it reports
      // itself ready (ReadyForQuery, after a statement or a bare Sync alike), and pg hands them to
      // the listener before it resolves the ping: once this answers, every commit made before it
      // was sent has been heard. A Sync rather than `SELECT 1`: no statement to run, parse or describe.
      await Promise.race([syncPing(client), timeout]);
      return client === current && listening;
    } catch (error) {
      lost(client, error instanceof Error ? error.message : String(error));
      return false;
    } finally {
      clearTimeout(timer);
    }
  }, PING_SPACING_MS);

  // Messages wait while a send is in flight and then go together: one statement, one commit.
  let queued: string[] = [];
  let sending = false;
  let sequence = 0;
  async function flush(): Promise<void> {
    sending = true;
    while (queued.length > 0 && !closed) {
      const batch = queued;
      queued = [];
      try {
        await options.pool.query('SELECT pg_notify($1, payload) FROM unnest($2::text[]) WITH ORDINALITY AS m(payload, n) ORDER BY n', [BUS_CHANNEL, batch]);
      } catch (error) {
        log(`instance bus: ${batch.length} message(s) could not be sent: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    sending = false;
  }

  function send(payload: string): void {
    queued.push(payload);
    if (!sending) void flush();
  }

  /** Tells the others every topic this instance listens to (or did within the linger), and forgets those whose linger ended. */
  function announceAll(): void {
    const now = performance.now();
    for (const [topic, until] of announced) {
      if (until < now) announced.delete(topic);
      else send(`h${instance} ${topic}`);
    }
  }
  const refresh = setInterval(announceAll, interestRefreshMs);
  refresh.unref();

  const ready = connect();
  return {
    ready,
    caughtUp: () => (listening ? ping() : Promise.resolve(false)),
    publish(topic, message) {
      // The sequence number keeps PostgreSQL from folding two equal messages of one batch into one.
      const payload = `e${JSON.stringify({ t: topic, n: sequence++, m: message })}`;
      if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) {
        log(`instance bus: a ${topic} message of ${Buffer.byteLength(payload)} bytes is past NOTIFY's limit and was not sent`);
        return;
      }
      send(payload);
    },
    heard: (topic) => topics.has(topic) || (heardElsewhere.get(topic) ?? -Infinity) > performance.now(),
    subscribe(topic, listener) {
      // A topic announced already (listened to, or within its linger) is known to the others.
      if (!announced.has(topic) || announced.get(topic)! < performance.now()) send(`h${instance} ${topic}`);
      announced.set(topic, Infinity);
      const stop = topics.subscribe(topic, listener);
      return () => {
        stop();
        if (!topics.has(topic)) announced.set(topic, performance.now() + interestLingerMs);
      };
    },
    async close() {
      closed = true;
      clearInterval(refresh);
      clearTimeout(retry);
      const client = current;
      current = undefined;
      listening = false;
      await client?.end().catch(() => undefined);
    },
  };
}
