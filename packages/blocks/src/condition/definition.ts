import { RE2JS } from 're2js';
import safeRegex from 'safe-regex2';
import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { customIssue, valueText } from '../core/fields.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const conditionOperators = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'contains', 'starts_with', 'matches', 'empty', 'not_empty'] as const;
export type ConditionOperator = (typeof conditionOperators)[number];

/** Longest pattern `matches` accepts. */
export const maxPatternLength = 200;

/**
 * A `matches` pattern on RE2 (re2js), whose matching time grows linearly with the text: a pattern
 * that passes every save-time check (`^\d*\d*\d*$`) could still make a backtracking engine
 * (RegExp) hold the thread for seconds on a 150-character chat message. JavaScript's escapes
 * (`\u00e9`, `\u{1F600}`, `\cA`) and `(?<name>…)` are translated first; what RE2 does not have
 * (backreferences, lookahead and lookbehind) throws RE2JSSyntaxException.
 */
export const compilePattern = (pattern: string): RE2JS => RE2JS.compile(RE2JS.translateRegExp(pattern));

export const conditionBlock = defineBlock({
  type: 'condition',
  schema: z.strictObject({
    match: z.enum(['all', 'any']).default('all'),
    rules: z
      .array(
        z
          .strictObject({ left: valueText(), op: z.enum(conditionOperators), right: valueText() })
          .superRefine((rule, ctx) => {
            if (rule.op !== 'matches') return;
            // The pattern is fixed when the plan is saved, so it is checked (and compiled) once.
            if (rule.right.length > maxPatternLength) {
              customIssue(ctx, 'unsafe_pattern', ['right'], `a pattern has at most ${maxPatternLength} characters`);
              return;
            }
            try {
              compilePattern(rule.right);
            } catch (error) {
              customIssue(ctx, 'unsafe_pattern', ['right'], `not a pattern RE2 can run (no backreferences or lookaround): ${(error as Error).message}`);
              return;
            }
            // A lint now that matching is linear: nested repetition is most often a mistake.
            if (!safeRegex(rule.right)) customIssue(ctx, 'unsafe_pattern', ['right'], 'nested repetition could take too long to match');
          }),
      )
      .min(1)
      .max(20),
  }),
  exits: ['true', 'false'],
  texts: { en, pt },
});
