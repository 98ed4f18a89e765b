/**
 * The part of the Lua 5.4 C API the sandbox (sandbox.ts) drives through wasmoon's WebAssembly build:
 * the raw exports it calls, and the C API's constants and type tags it needs, as lua.h defines them.
 */

/**
 * The part of wasmoon's Emscripten module used here: the raw exports of the Lua C API. Called
 * directly rather than through wasmoon's `ccall` wrappers, which cost a few microseconds a call and
 * only read strings up to the first NUL byte. Pointers are wasm32 addresses; `lua_Integer` is a BigInt.
 */
export interface LuaModule {
  HEAPU8: Uint8Array;
  HEAPU32: Uint32Array;
  addFunction(fn: (...args: number[]) => number | void, signature: string): number;
  _malloc(size: number): number;
  _free(pointer: number): void;
  _realloc(pointer: number, size: number): number;
  _lua_newstate(alloc: number, ud: number): number;
  _lua_close(L: number): void;
  _lua_sethook(L: number, hook: number, mask: number, count: number): void;
  _lua_gettop(L: number): number;
  _lua_settop(L: number, index: number): void;
  _lua_absindex(L: number, index: number): number;
  _lua_checkstack(L: number, n: number): number;
  _lua_type(L: number, index: number): number;
  _lua_toboolean(L: number, index: number): number;
  _lua_isinteger(L: number, index: number): number;
  _lua_tointegerx(L: number, index: number, isnum: number): bigint;
  _lua_tonumberx(L: number, index: number, isnum: number): number;
  _lua_tolstring(L: number, index: number, len: number): number;
  _lua_topointer(L: number, index: number): number;
  _lua_next(L: number, index: number): number;
  _lua_pushnil(L: number): void;
  _lua_pushboolean(L: number, b: number): void;
  _lua_pushinteger(L: number, n: bigint): void;
  _lua_pushnumber(L: number, n: number): void;
  _lua_pushlstring(L: number, s: number, len: number): number;
  _lua_pushcclosure(L: number, fn: number, n: number): void;
  _lua_createtable(L: number, narr: number, nrec: number): void;
  _lua_rawset(L: number, index: number): void;
  _lua_rawseti(L: number, index: number, n: bigint): void;
  _lua_setglobal(L: number, name: number): void;
  _lua_callk(L: number, nargs: number, nresults: number, ctx: number, k: number): void;
  _lua_pcallk(L: number, nargs: number, nresults: number, errfunc: number, ctx: number, k: number): number;
  _lua_error(L: number): number;
  _luaL_loadbufferx(L: number, buffer: number, size: number, name: number, mode: number): number;
  _luaopen_base(L: number): number;
  _luaopen_coroutine(L: number): number;
  _luaopen_table(L: number): number;
  _luaopen_string(L: number): number;
  _luaopen_utf8(L: number): number;
  _luaopen_math(L: number): number;
  _luaopen_os(L: number): number;
}

export const LUA_OK = 0;
export const LUA_ERRMEM = 4;
export const LUA_MULTRET = -1;
export const MASK_CALL = 1;
export const MASK_COUNT = 8;
/** The CPU check runs every this many VM instructions: about 10 µs of Lua, so the check costs ~1 %. */
export const HOOK_EVERY = 1000;

export const T_NIL = 0;
export const T_BOOLEAN = 1;
export const T_NUMBER = 3;
export const T_STRING = 4;
export const T_TABLE = 5;
const TYPE_NAMES = ['nil', 'boolean', 'userdata', 'number', 'string', 'table', 'function', 'userdata', 'thread'];
export const typeName = (type: number) => TYPE_NAMES[type] ?? 'value';
