/**
 * `matches` patterns run on RE2 (re2js), whose matching time grows linearly with the text: a pattern
 * that passes every save-time check (`^\d*\d*\d*$`) could still make a backtracking engine
 * (RegExp) hold the thread for seconds on a 150-character chat message. JavaScript's escapes
 * (`\u00e9`, `\u{1F600}`, `\cA`) and `(?<name>…)` are translated first; what RE2 does not have
 * (backreferences, lookahead and lookbehind) throws RE2JSSyntaxException.
 */
import { RE2JS } from 're2js';
import safeRegex from 'safe-regex2';

export const compilePattern = (pattern: string): RE2JS => RE2JS.compile(RE2JS.translateRegExp(pattern));

/** Why a plan may not hold this pattern, or undefined when it may: the check a plan's save makes. */
export function patternProblem(pattern: string): string | undefined {
  try {
    compilePattern(pattern);
  } catch (error) {
    return `not a pattern RE2 can run (no backreferences or lookaround): ${(error as Error).message}`;
  }
  // A lint now that matching is linear: nested repetition is most often a mistake.
  if (!safeRegex(pattern)) return 'nested repetition could take too long to match';
  return undefined;
}
