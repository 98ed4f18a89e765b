/**
 * One `fx` run in a fresh Lua 5.4 state (wasmoon's WebAssembly build of the reference Lua), driven
 * through the C API. Each run gets its own state, closed at the end, so nothing a script does
 * survives it. Only plain values cross: session variables go in as Lua tables built here, results
 * come back by walking the returned tables; no JavaScript function or object is ever put into the
 * state, so there is nothing of the host for a script to reach.
 *
 * This runs inside a worker thread (worker.ts). The limits are enforced here; the runner's watchdog
 * (index.ts) only covers what Lua cannot interrupt.
 */
import type { ScriptResult } from '../ports.ts';
import { CPU_LIMIT_MS, MAX_DEPTH, MAX_MESSAGE_LENGTH, MAX_RETURNED_VALUES, MEMORY_LIMIT_BYTES } from './limits.ts';
import { PRELUDE } from './prelude.ts';
import {
  HOOK_EVERY,
  LUA_ERRMEM,
  LUA_MULTRET,
  LUA_OK,
  type LuaModule,
  MASK_CALL,
  MASK_COUNT,
  T_BOOLEAN,
  T_NIL,
  T_NUMBER,
  T_STRING,
  T_TABLE,
  typeName,
} from './lua-api.ts';

type Stop = 'cpu_limit' | 'memory_limit';
const STOP_MESSAGES: Record<Stop, string> = {
  cpu_limit: `the script ran for more than ${CPU_LIMIT_MS} ms`,
  memory_limit: `the script needed more than ${MEMORY_LIMIT_BYTES / 1024 / 1024} MiB of memory`,
};

type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
interface JsonObject {
  [key: string]: JsonValue;
}

/** A script chooses its error messages, and the names in a bad_return path, so they are cut. */
const clip = (text: string) => (text.length > MAX_MESSAGE_LENGTH ? `${text.slice(0, MAX_MESSAGE_LENGTH)}…` : text);

/** A result the script handed back that is not an exit and plain values. */
class BadReturn extends Error {}

interface Refusal {
  pointer: number;
  oldSize: number;
  newSize: number;
}

/** The state of the run in progress; the allocator and the hook are shared by every run of a worker. */
interface Run {
  deadline: number;
  used: number;
  stop: Stop | undefined;
  /** An allocation refused at the limit, which Lua retries once after an emergency collection. */
  refused: Refusal | undefined;
  vars: unknown;
}

export interface Sandbox {
  run(script: string, varsJson: string): ScriptResult;
}

export function createSandbox(m: LuaModule): Sandbox {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();

  const cString = (text: string) => {
    const bytes = encoder.encode(`${text}\0`);
    const pointer = m._malloc(bytes.length);
    m.HEAPU8.set(bytes, pointer);
    return pointer;
  };
  const names = {
    chunk: cString('=script'),
    prelude: cString('=prelude'),
    textOnly: cString('t'),
    vars: cString('vars'),
  };
  const libraries: Array<[number | undefined, (L: number) => number]> = [
    [undefined, m._luaopen_base],
    [cString('coroutine'), m._luaopen_coroutine],
    [cString('table'), m._luaopen_table],
    [cString('string'), m._luaopen_string],
    [cString('utf8'), m._luaopen_utf8],
    [cString('math'), m._luaopen_math],
    [cString('os'), m._luaopen_os],
  ];
  const preludeBytes = encoder.encode(PRELUDE);
  const prelude = m._malloc(preludeBytes.length);
  m.HEAPU8.set(preludeBytes, prelude);
  const lengthOut = m._malloc(4);

  /** A reusable buffer in wasm memory for strings going into Lua. */
  let scratch = 0;
  let scratchSize = 0;
  const SCRATCH_KEEP = 1024 * 1024;
  const writeScratch = (text: string): number => {
    const capacity = text.length * 3 + 1;
    if (capacity > scratchSize) {
      if (scratch !== 0) m._free(scratch);
      scratchSize = Math.max(capacity, 4096);
      scratch = m._malloc(scratchSize);
      if (scratch === 0) {
        scratchSize = 0;
        throw new Error('out of memory for a string');
      }
    }
    return encoder.encodeInto(text, m.HEAPU8.subarray(scratch, scratch + capacity)).written;
  };
  const pushString = (L: number, text: string) => {
    const length = writeScratch(text);
    m._lua_pushlstring(L, scratch, length);
  };
  /** Lua strings are bytes; text that is not UTF-8 comes out with U+FFFD in place of bad bytes. */
  const readString = (L: number, index: number): string => {
    const pointer = m._lua_tolstring(L, index, lengthOut);
    const length = m.HEAPU32[lengthOut >> 2]!;
    return decoder.decode(m.HEAPU8.subarray(pointer, pointer + length));
  };

  let run: Run = { deadline: 0, used: 0, stop: undefined, refused: undefined, vars: undefined };

  /**
   * Lua's allocator, counting what the state holds. An allocation over the limit is refused; Lua
   * then collects garbage and asks once more for the same block. Only when that retry is refused
   * too, or Lua gives up without one (it raises "not enough memory" then), is the limit reached,
   * and the run is stopped even if the script catches the error.
   */
  const alloc = m.addFunction((_ud: number, pointer: number, signedOldSize: number, signedNewSize: number): number => {
    // Sizes are size_t, which reaches JavaScript as a signed 32-bit integer.
    const oldSize = signedOldSize >>> 0;
    const newSize = signedNewSize >>> 0;
    if (newSize === 0) {
      if (pointer !== 0) {
        run.used -= oldSize;
        m._free(pointer);
      }
      return 0;
    }
    let retry = false;
    const pending = run.refused;
    if (pending !== undefined) {
      run.refused = undefined;
      retry = pending.pointer === pointer && pending.oldSize === oldSize && pending.newSize === newSize;
      if (!retry) run.stop ??= 'memory_limit';
    }
    // For a new object (no pointer) Lua passes the object's type in oldSize, not a size.
    const growth = pointer === 0 ? newSize : newSize - oldSize;
    const block = growth > 0 && run.used + growth > MEMORY_LIMIT_BYTES ? 0 : m._realloc(pointer, newSize);
    if (block === 0) {
      if (retry) run.stop ??= 'memory_limit';
      else run.refused = { pointer, oldSize, newSize };
      return 0;
    }
    run.used += growth;
    return block;
  }, 'iiiii');

  /**
   * Runs every HOOK_EVERY instructions. Past the deadline (or the memory limit) it raises an error,
   * and from then on raises at every call and instruction, so `pcall` or a coroutine cannot catch
   * the error and carry on. Wall-clock time of the worker thread stands for CPU time: Node 20 has no
   * per-thread CPU clock, and wall time is never less than CPU time.
   */
  let hook = 0;
  hook = m.addFunction((L: number) => {
    if (run.stop === undefined && performance.now() < run.deadline) return;
    run.stop ??= 'cpu_limit';
    m._lua_sethook(L, hook, MASK_CALL | MASK_COUNT, 1);
    pushString(L, STOP_MESSAGES[run.stop]);
    m._lua_error(L);
  }, 'vii');

  /** Pushes a JSON value as Lua values: arrays become sequences, objects tables, null nil. */
  const pushJson = (L: number, value: unknown, depth: number): void => {
    switch (typeof value) {
      case 'boolean':
        m._lua_pushboolean(L, value ? 1 : 0);
        return;
      case 'number':
        if (Number.isSafeInteger(value)) m._lua_pushinteger(L, BigInt(value));
        else m._lua_pushnumber(L, value);
        return;
      case 'string':
        pushString(L, value);
        return;
      case 'object':
        break;
      default:
        m._lua_pushnil(L);
        return;
    }
    if (value === null) {
      m._lua_pushnil(L);
      return;
    }
    if (depth >= MAX_DEPTH) throw new Error(`the session variables nest more than ${MAX_DEPTH} levels deep`);
    if (m._lua_checkstack(L, 3) === 0) throw new Error('no room on the Lua stack for the session variables');
    if (Array.isArray(value)) {
      m._lua_createtable(L, value.length, 0);
      value.forEach((item, i) => {
        pushJson(L, item, depth + 1);
        m._lua_rawseti(L, -2, BigInt(i + 1));
      });
      return;
    }
    const entries = Object.entries(value);
    m._lua_createtable(L, 0, entries.length);
    for (const [key, item] of entries) {
      pushString(L, key);
      pushJson(L, item, depth + 1);
      m._lua_rawset(L, -3);
    }
  };

  /**
   * Opens the libraries, runs the prelude and sets `vars`, as a C function called through
   * lua_pcallk: a memory error on the way unwinds to that call instead of aborting the module.
   * A JavaScript exception must not cross wasm frames (it would leave the state half-unwound), so
   * one is turned into a Lua error; Emscripten's longjmp, which Lua errors use, throws Infinity.
   */
  const setup = m.addFunction((L: number): number => {
    let failure: string | undefined;
    try {
      for (const [name, open] of libraries) {
        open(L);
        if (name === undefined) m._lua_settop(L, 0);
        else m._lua_setglobal(L, name);
      }
      if (m._luaL_loadbufferx(L, prelude, preludeBytes.length, names.prelude, names.textOnly) !== LUA_OK) return m._lua_error(L);
      m._lua_callk(L, 0, 0, 0, 0);
      pushJson(L, run.vars, 0);
      m._lua_setglobal(L, names.vars);
    } catch (error) {
      if (error === Infinity) throw error;
      failure = error instanceof Error ? error.message : String(error);
    }
    if (failure === undefined) return 0;
    pushString(L, failure);
    return m._lua_error(L);
  }, 'ii');

  /** Integers beyond 2^53 lose precision, as they would in any JSON number. */
  const readNumber = (L: number, index: number): number =>
    m._lua_isinteger(L, index) ? Number(m._lua_tointegerx(L, index, 0)) : m._lua_tonumberx(L, index, 0);

  const message = (L: number, index: number): string => {
    const type = m._lua_type(L, index);
    // A number is formatted here: lua_tolstring would allocate, outside any protected call.
    return type === T_STRING ? readString(L, index) : type === T_NUMBER ? String(readNumber(L, index)) : `(error object is a ${typeName(type)} value)`;
  };

  /** Reads what the script returned, raw (no metamethod runs), into plain JSON values. */
  const readResults = (L: number): ScriptResult => {
    const top = m._lua_gettop(L);
    if (top === 0) throw new BadReturn('the script must return an exit name, e.g. return "ok"');
    if (m._lua_type(L, 1) !== T_STRING) throw new BadReturn(`the first value returned must be an exit name (a string), not a ${typeName(m._lua_type(L, 1))}`);
    const exit = readString(L, 1);
    if (exit === '') throw new BadReturn('the exit name returned is empty');
    if (top > 2) throw new BadReturn('the script returned more than an exit name and a table of variables');
    if (top === 1 || m._lua_type(L, 2) === T_NIL) return { ok: true, exit, set: {} };
    if (m._lua_type(L, 2) !== T_TABLE) throw new BadReturn(`the second value returned must be a table of variables to set, not a ${typeName(m._lua_type(L, 2))}`);
    const set = readTable(L, 2, 'set', 0, { count: 0, open: new Set() });
    if (Array.isArray(set)) throw new BadReturn('the variables to set must be keyed by name, not a list');
    return { ok: true, exit, set };
  };

  interface ReadState {
    count: number;
    /** Tables on the path being read: meeting one again means the table contains itself. */
    open: Set<number>;
  }

  const readValue = (L: number, index: number, path: string, depth: number, state: ReadState): JsonValue => {
    if (++state.count > MAX_RETURNED_VALUES) throw new BadReturn(`the script returned more than ${MAX_RETURNED_VALUES} values`);
    const type = m._lua_type(L, index);
    switch (type) {
      case T_BOOLEAN:
        return m._lua_toboolean(L, index) !== 0;
      case T_NUMBER: {
        const number = readNumber(L, index);
        if (!Number.isFinite(number)) throw new BadReturn(`${path} is not a finite number`);
        return number;
      }
      case T_STRING:
        return readString(L, index);
      case T_TABLE:
        return readTable(L, index, path, depth, state);
      default:
        throw new BadReturn(`${path} is a ${typeName(type)}; only strings, numbers, booleans and tables can be returned`);
    }
  };

  const readTable = (L: number, index: number, path: string, depth: number, state: ReadState): JsonValue[] | JsonObject => {
    const table = m._lua_absindex(L, index);
    const identity = m._lua_topointer(L, table);
    if (state.open.has(identity)) throw new BadReturn(`${path} refers back to a table that contains it`);
    if (depth >= MAX_DEPTH) throw new BadReturn(`${path} nests more than ${MAX_DEPTH} levels deep`);
    if (m._lua_checkstack(L, 2) === 0) throw new BadReturn(`${path} nests too deeply`);
    state.open.add(identity);
    const named = new Map<string, JsonValue>();
    const positional = new Map<number, JsonValue>();
    m._lua_pushnil(L);
    while (m._lua_next(L, table) !== 0) {
      const keyType = m._lua_type(L, -2);
      if (keyType === T_STRING) {
        const key = readString(L, -2);
        named.set(key, readValue(L, -1, `${path}.${key}`, depth + 1, state));
      } else if (keyType === T_NUMBER && m._lua_isinteger(L, -2)) {
        const key = Number(m._lua_tointegerx(L, -2, 0));
        positional.set(key, readValue(L, -1, `${path}[${key}]`, depth + 1, state));
      } else {
        throw new BadReturn(`${path} has a ${typeName(keyType)} key; keys must be names or list positions 1, 2, 3…`);
      }
      m._lua_settop(L, -2);
    }
    state.open.delete(identity);
    if (positional.size === 0) {
      // Own data properties on a prototype-less object, so a key such as "__proto__" stays a key.
      const object: JsonObject = Object.create(null);
      for (const [key, item] of named) object[key] = item;
      return object;
    }
    if (named.size > 0) throw new BadReturn(`${path} mixes names and list positions`);
    const list: JsonValue[] = [];
    for (let position = 1; position <= positional.size; position++) {
      if (!positional.has(position)) throw new BadReturn(`${path} is a list with gaps; its positions must run 1, 2, 3… without holes`);
      list.push(positional.get(position)!);
    }
    return list;
  };

  const execute = (L: number, script: string): ScriptResult => {
    m._lua_pushcclosure(L, setup, 0);
    const setupStatus = m._lua_pcallk(L, 0, 0, 0, 0, 0);
    if (setupStatus !== LUA_OK) {
      if (setupStatus === LUA_ERRMEM || run.stop !== undefined) return { ok: false, reason: 'memory_limit', message: 'the session variables do not fit in the memory limit' };
      return { ok: false, reason: 'error', message: clip(message(L, -1)) };
    }
    m._lua_sethook(L, hook, MASK_COUNT, HOOK_EVERY);
    run.deadline = performance.now() + CPU_LIMIT_MS;
    const length = writeScratch(script);
    let status = m._luaL_loadbufferx(L, scratch, length, names.chunk, names.textOnly);
    if (status === LUA_OK) status = m._lua_pcallk(L, 0, LUA_MULTRET, 0, 0, 0);
    if (run.refused !== undefined || status === LUA_ERRMEM) run.stop ??= 'memory_limit';
    if (run.stop !== undefined) return { ok: false, reason: run.stop, message: STOP_MESSAGES[run.stop] };
    if (status !== LUA_OK) return { ok: false, reason: 'error', message: clip(message(L, -1)) };
    try {
      return readResults(L);
    } catch (error) {
      if (!(error instanceof BadReturn)) throw error;
      if (run.stop !== undefined) return { ok: false, reason: run.stop, message: STOP_MESSAGES[run.stop] };
      return { ok: false, reason: 'bad_return', message: clip(error.message) };
    }
  };

  return {
    run(script, varsJson) {
      run = { deadline: Number.POSITIVE_INFINITY, used: 0, stop: undefined, refused: undefined, vars: JSON.parse(varsJson) };
      const L = m._lua_newstate(alloc, 0);
      if (L === 0) return { ok: false, reason: 'memory_limit', message: STOP_MESSAGES.memory_limit };
      try {
        return execute(L, script);
      } finally {
        m._lua_close(L);
        run.vars = undefined;
        if (scratchSize > SCRATCH_KEEP) {
          m._free(scratch);
          scratch = 0;
          scratchSize = 0;
        }
      }
    },
  };
}
