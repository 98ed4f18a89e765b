/**
 * Answers of repeated reads, kept until a table they read is written.
 *
 * The console asks the same count, page and record again and again (auto refresh, paging back
 * and forth), and every authenticated call checks the same sign-in. On SQLite the writes of this
 * process are seen statement by statement (see `trackWrites`), and those of any other process
 * through `PRAGMA data_version`, so an answer is never served after a write that could change it.
 * On PostgreSQL every instance learns of every commit's tables through LISTEN/NOTIFY
 * (`instance-bus.ts`), and waits, before serving a kept answer, until the notifications of every
 * commit made before it asked are in (`caughtUp`): docs/decisions.md says why that is enough.
 * Work that knows when its request came in (a session's turn) catches up once, as it begins, and
 * is then served its kept answers at once (`catchUp`, `atOnce`).
 */
export interface ReadCache {
  /**
   * The value `load` gives, or the one it gave before if no write touched `tables` since.
   * A value is kept from the second time its key is asked for, the third once the cache is full:
   * most keys are asked for once (a record or a page picked by hand, a filter typed), and keeping
   * those would cost more than it saves. Cached values are shared between callers, so they are
   * frozen (deeply).
   */
  read<T>(key: string, tables: readonly string[], load: () => Promise<T>): Promise<T>;
  /**
   * `read`'s answer without a promise when it is kept and may be served at once, else `load`'s
   * promise as `read` gives it. At once only where no catching up is awaited first (SQLite): the
   * engine's ports answer their turn's questions so (docs/sessions.md), and a turn whose blocks
   * all answer at once runs without a promise.
   */
  readMaybeNow<T>(key: string, tables: readonly string[], load: () => Promise<T>): T | Promise<T>;
  /**
   * Begins catching up now, for work whose kept reads come later (a session's turn reads its
   * session's row first, then its plan): on PostgreSQL the ping that `read` would wait for before
   * each kept answer goes out once, alongside the work's first statement. Its answer is for
   * `atOnce`. Undefined where kept answers need no catching up (SQLite).
   */
  catchUp(): Promise<CaughtUp | null> | undefined;
  /**
   * Runs `work`, serving the kept answers of the reads it makes before its first await at once (as
   * on SQLite: `readMaybeNow` without a promise, `read` without a ping) when `caughtUp` says every
   * write committed before `catchUp` was called has been heard since, and the cache kept its
   * answers since. `catchUp` must have been called after the work's request came in: a write the
   * request's sender saw answered is then one heard.
   */
  atOnce<T>(caughtUp: CaughtUp | null | undefined, work: () => T): T;
  /** Forgets every answer: a write may have gone unnoticed (the instance bus lost its connection). */
  clear(): void;
  /**
   * Calls `listener` whenever one of `tables` may have been written: by this process (SQLite: as
   * the statement runs, so a read made then waits for its transaction), by any instance once it
   * committed (PostgreSQL, over the bus), or when nobody can tell (the bus was lost). Writes of
   * another process on the same SQLite file are not told. Answers the function that stops it.
   */
  watch(tables: readonly string[], listener: () => void): () => void;
  /** Reads answered from the cache (hits), and all reads (hits and loads), since the start: GET /metrics. */
  stats(): { hits: number; reads: number };
}

/** What `ReadCache.catchUp` answers once caught up: the cache's generation then, which any gap (`clear`) moves on. */
export interface CaughtUp {
  readonly generation: number;
}

/** Frozen values are also what the HTTP layer serialises once and reuses (app.ts). */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}


const MAX_ENTRIES = 2000;

interface Entry {
  externalVersion: number;
  stamp: number;
  value: unknown;
}

/**
 * Write counters by table; any statement the tracker cannot attribute to one table (a rollback,
 * a schema change) counts against every table through `everything`.
 */
export class WriteTracker {
  private readonly byTable = new Map<string, number>();
  private everything = 0;
  private readonly listeners = new Set<(table: string | undefined) => void>();

  /** `untracked`: tables whose writes are not reported; a read of one is never kept. */
  constructor(private readonly untracked: ReadonlySet<string> = new Set()) {}

  noteWrite(table: string | undefined): void {
    if (table === undefined) this.everything++;
    else this.byTable.set(table, (this.byTable.get(table) ?? 0) + 1);
    for (const listener of this.listeners) listener(table);
  }

  /** Calls `listener` with every write noted (undefined: anything); answers the function that stops it. */
  listen(listener: (table: string | undefined) => void): () => void {
    const own = (table: string | undefined) => listener(table);
    this.listeners.add(own);
    return () => this.listeners.delete(own);
  }

  /** A number that grows whenever one of the tables (or anything unattributed) is written; undefined when one is untracked. */
  stampOf(tables: readonly string[]): number | undefined {
    let stamp = this.everything;
    for (const table of tables) {
      if (this.untracked.has(table)) return undefined;
      stamp += this.byTable.get(table) ?? 0;
    }
    return stamp;
  }
}

// Kysely writes `insert into "t"`, `update "t"`, `delete from "t"`; anything else that is not a
// plain read (or a transaction boundary, which changes nothing by itself) is unattributed.
const WRITE_TABLE = /^\s*(?:insert\s+(?:or\s+\w+\s+)?into|update(?:\s+or\s+\w+)?|delete\s+from|replace\s+into)\s+"?(\w+)"?/i;
const NOT_A_WRITE = /^\s*(?:select|begin|commit|end|savepoint|release)\b/i;

/** What a statement writes: a table, everything (undefined), or nothing (null). */
export function tableWrittenBy(sql: string): string | undefined | null {
  const table = WRITE_TABLE.exec(sql)?.[1];
  if (table !== undefined) return table;
  return NOT_A_WRITE.test(sql) ? null : undefined;
}

/** Adds a key to a bounded map, oldest out first; a key kept again (its answer gone stale) counts as the newest, and pushes none out. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (!map.delete(key) && map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/** Slots of the keys asked for and not kept: four times MAX_ENTRIES, so that a key is most often still there 2,000 keys later. */
const SEEN_SLOTS = 8192;

/**
 * How many times a key not kept must be asked for before its answer is kept: twice while there is
 * room, three times once the cache is full, where keeping it pushes out the oldest answer. Under
 * reads of random records, one key in twelve is asked for a second time within the slots'
 * reach (8,192 of 100,000 ids) and none a third: kept on the second ask, each pushed out an older
 * answer and became old garbage itself; the collector then copied and promoted 48 KB at each
 * scavenge against 3 KB without the cache (bench/README.md, "Seventh pass"). An answer asked for
 * again and again (a page the console refreshes) reaches three asks all the same.
 */
const ASKS_TO_KEEP = 2;
const ASKS_TO_KEEP_WHEN_FULL = 3;

/** A key's 32-bit FNV-1a hash, never 0 (an empty slot). */
function hashOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash | 1;
}

/**
 * The keys asked for and not kept, by their hashes alone, one slot each with how many times it was
 * asked (a key takes its slot from whichever held it): no key string kept, no Map entry made and
 * deleted, nothing for the collector on a request for a random record or range (issue 40). A key
 * is forgotten when a later one takes its slot, on average some 8,000 keys later; two keys of the
 * same hash count as one, which at worst keeps an answer an ask early.
 */
class AskCounts {
  private readonly hashes = new Int32Array(SEEN_SLOTS);
  private readonly counts = new Uint8Array(SEEN_SLOTS);

  /** Counts an ask of `hash`: answers how many times it was asked while it held its slot, this one included. */
  ask(hash: number): number {
    const slot = hash & (SEEN_SLOTS - 1);
    if (this.hashes[slot] !== hash) {
      this.hashes[slot] = hash;
      this.counts[slot] = 1;
      return 1;
    }
    const count = Math.min(this.counts[slot]! + 1, 255);
    this.counts[slot] = count;
    return count;
  }

  forget(hash: number): void {
    const slot = hash & (SEEN_SLOTS - 1);
    if (this.hashes[slot] === hash) this.hashes[slot] = 0;
  }

  clear(): void {
    this.hashes.fill(0);
  }
}

/**
 * `externalVersion` changes when writes the tracker was not told of happened (SQLite: another
 * process's). `caughtUp`, when given, resolves once the tracker has been told of every write
 * committed before it was called, or false when that cannot be known (the instance bus is down):
 * a kept answer is served only after it, and otherwise loaded again.
 */
export function createReadCache(tracker: WriteTracker, externalVersion: () => number, caughtUp?: () => Promise<boolean>): ReadCache {
  const entries = new Map<string, Entry>();
  // Keys asked for and not kept yet, without their values: freezing an answer, keeping it and letting
  // it age out is work, and garbage to walk, that a request for a random record or range gains nothing by.
  const asks = new AskCounts();
  let hits = 0;
  let reads = 0;
  // Moves on with every `clear`: a catch-up made before a gap says nothing of what is kept after it.
  let generation = 0;
  // True while `atOnce` runs work that may be served kept answers without catching up first.
  let servingAtOnce = false;
  /**
   * Not an async function: a miss of a key seen once hands back `load`'s own promise, and a hit a
   * resolved one, without the promise and the microtasks of an async function wrapped around it
   * (every authenticated request reads the sign-in check here, and an uncached one its answer too).
   */
  function readNow<T>(key: string, tables: readonly string[], load: () => Promise<T>): Promise<T> {
    // Both taken before loading: a write landing while `load` runs leaves the entry already stale.
    // Another process's write cannot be told apart by table, so it makes every entry stale.
    const version = externalVersion();
    const stamp = tracker.stampOf(tables);
    if (stamp === undefined) return load();
    const cached = entries.get(key);
    if (cached && cached.stamp === stamp && cached.externalVersion === version) {
      hits++;
      return Promise.resolve(cached.value as T);
    }
    // An answer that went stale was asked for again: it is kept again at once.
    if (!cached) {
      const hash = hashOf(key);
      if (asks.ask(hash) < (entries.size < MAX_ENTRIES ? ASKS_TO_KEEP : ASKS_TO_KEEP_WHEN_FULL)) return load();
      asks.forget(hash);
    }
    return load().then((loaded) => {
      const value = deepFreeze(loaded);
      remember(entries, key, { externalVersion: version, stamp, value });
      return value;
    });
  }
  /** The kept entry when it may be served at once, else undefined: it must be read, or waited for. */
  function current(key: string, tables: readonly string[]): Entry | undefined {
    if (caughtUp && !servingAtOnce) return undefined;
    const cached = entries.get(key);
    if (!cached) return undefined;
    const stamp = tracker.stampOf(tables);
    return stamp !== undefined && cached.stamp === stamp && cached.externalVersion === externalVersion() ? cached : undefined;
  }
  const cache: ReadCache = {
    readMaybeNow<T>(key: string, tables: readonly string[], load: () => Promise<T>): T | Promise<T> {
      let hit: Entry | undefined;
      try {
        hit = current(key, tables);
      } catch {
        // The database's data_version failed: `read` answers that as a rejection.
      }
      if (!hit) return cache.read(key, tables, load);
      reads++;
      hits++;
      return hit.value as T;
    },
    read<T>(key: string, tables: readonly string[], load: () => Promise<T>): Promise<T> {
      reads++;
      try {
        // A miss needs no waiting: the load itself reads what is committed now.
        if (caughtUp && !servingAtOnce && entries.has(key)) return caughtUp().then((current) => (current ? readNow(key, tables, load) : load()));
        return readNow(key, tables, load);
      } catch (error) {
        // As an async function would: a failure (the database's data_version, a load that throws at once) is a rejection.
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
    catchUp() {
      if (!caughtUp) return undefined;
      const before = generation;
      return caughtUp().then((current) => (current && generation === before ? { generation } : null));
    },
    atOnce(caught, work) {
      if (!caught || caught.generation !== generation || servingAtOnce) return work();
      servingAtOnce = true;
      try {
        return work();
      } finally {
        servingAtOnce = false;
      }
    },
    clear() {
      generation++;
      entries.clear();
      asks.clear();
    },
    watch(tables, listener) {
      return tracker.listen((table) => {
        if (table === undefined || tables.includes(table)) listener();
      });
    },
    stats: () => ({ hits, reads }),
  };
  return cache;
}
