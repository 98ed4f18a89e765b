/**
 * The browser's stand-in for `pattern.ts`, chosen through the package's `#condition-pattern` import
 * with the `browser` condition: the editor checks a pattern as it is typed without loading RE2
 * (re2js, 64 KB gzip, a sixth of the editor's budget) nor the nested-repetition lint. It refuses
 * what RegExp cannot read and what RE2 lacks (lookaround, backreferences); the server compiles the
 * pattern with RE2 and lints it when the plan is saved, and has the last word (`unsafe_pattern`).
 */
const withoutRe2 = /\(\?<?[=!]|\\[1-9]/;

export function patternProblem(pattern: string): string | undefined {
  const problem = 'not a pattern RE2 can run (no backreferences or lookaround)';
  if (withoutRe2.test(pattern)) return problem;
  try {
    new RegExp(pattern, 'u');
    return undefined;
  } catch (error) {
    return `${problem}: ${(error as Error).message}`;
  }
}
