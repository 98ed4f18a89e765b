/**
 * `Date.prototype.toISOString` with the last answer kept. The native one is a C++ builtin that
 * formats through printf (about 0.7 µs, 5 % of bench:engine's turn); a session's start and its
 * first turn, and the turns of a loaded server, ask for the same millisecond many times.
 */
let lastTime = Number.NaN;
let lastText = '';

export function isoTime(date: Date): string {
  const time = date.getTime();
  if (time !== lastTime) {
    lastText = date.toISOString();
    lastTime = time;
  }
  return lastText;
}
