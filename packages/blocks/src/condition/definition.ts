import { patternProblem } from '#condition-pattern';
import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { customIssue, valueText } from '../core/fields.ts';
import { conditionDescription } from './description.ts';

export const conditionOperators = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'contains', 'starts_with', 'matches', 'empty', 'not_empty'] as const;
export type ConditionOperator = (typeof conditionOperators)[number];

/** Longest pattern `matches` accepts. */
export const maxPatternLength = 200;


export const conditionBlock = defineBlock(
  conditionDescription,
  z.strictObject({
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
            const problem = patternProblem(rule.right);
            if (problem !== undefined) customIssue(ctx, 'unsafe_pattern', ['right'], problem);
          }),
      )
      .min(1)
      .max(20),
  }),
);
