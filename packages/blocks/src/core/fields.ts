/** Field schemas several blocks share, so one rule has one spelling. */
import { compileExpression, ExpressionError, isAssignableVariableName, parseJsonPath, JsonPathError } from '@voxplan/engine';
import { planLanguageTags } from '@voxplan/contracts/voices';
import { z } from 'zod';
import type { FieldHint } from './editor/types.ts';

/**
 * How the editor's generic form shows a field whose schema alone does not say (a template, a
 * value, JSON). Tagged where the field is defined, so every block using it gets the same input.
 * A registry of its own rather than `.meta()`: the global registry's metadata would be copied
 * into every JSON Schema generated from the blocks.
 */
export const fieldHints = z.registry<FieldHint>();

/** Ids are 32-bit integer columns on both databases (as `idSchema` of the contracts). */
export const referenceId = () => z.number().int().positive().max(2 ** 31 - 1);

/** Free text that may hold `{{name}}` placeholders. */
export const templateText = (max = 4_000) => z.string().max(max).default('').register(fieldHints, { kind: 'template' });

/** The issue codes structural validation reports besides zod's own (docs/engine.md). */
export type CustomIssueCode = 'invalid_json' | 'invalid_expression' | 'invalid_path' | 'unsafe_pattern' | 'duplicate_value' | 'reserved_name' | 'voice_language_mismatch';

export function customIssue(ctx: z.RefinementCtx, code: CustomIssueCode, path: PropertyKey[], message: string): void {
  ctx.addIssue({ code: 'custom', path, message, params: { code } });
}

export const variableName = () =>
  z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must start with a letter or _ and hold only letters, digits and _')
    .superRefine((name, ctx) => {
      if (!isAssignableVariableName(name)) customIssue(ctx, 'reserved_name', [], `'${name}' is a built-in variable and cannot be assigned`);
    });

/** An exit name the plan author chooses (an `fx` return, an `api_switch` case). */
export const exitName = () =>
  z
    .string()
    .min(1)
    .max(40)
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only');

/**
 * A value that is a template, or an expression when it starts with `=`: `{{caller}}` is text,
 * `=count + 1` is computed (docs/engine.md, "Values and expressions").
 */
export const valueText = (max = 2_000) =>
  z
    .string()
    .max(max)
    .default('')
    .superRefine((value, ctx) => {
      if (!value.startsWith('=')) return;
      try {
        compileExpression(value.slice(1));
      } catch (error) {
        if (error instanceof ExpressionError) customIssue(ctx, 'invalid_expression', [], error.message);
        else throw error;
      }
    })
    .register(fieldHints, { kind: 'value' });

export const jsonPath = () =>
  z
    .string()
    .min(1)
    .max(500)
    .superRefine((path, ctx) => {
      try {
        parseJsonPath(path);
      } catch (error) {
        if (error instanceof JsonPathError) customIssue(ctx, 'invalid_path', [], error.message);
        else throw error;
      }
    });

/** A prompt: spoken text or a stored audio on voice, text on chat (blocks.md, `play_message`). */
/**
 * A language of the voices list (`@voxplan/contracts/voices`), or '' for the one above it: the
 * plan's for a block, the tenant's (else the server's) for the plan.
 */
export const languageChoice = () => z.enum(['', ...planLanguageTags]).default('').register(fieldHints, { kind: 'language' });

export const promptFields = {
  text_to_speech: z.boolean().default(true),
  voice_text: templateText(),
  audio_id: referenceId().nullable().default(null),
  chat_text: templateText(),
  /** The prompt's language when it is not the plan's (a block in another language). */
  language: languageChoice(),
};

/** Refuses a prompt that should play an audio but names none. */
export function checkPrompt(data: { text_to_speech: boolean; audio_id: number | null }, ctx: z.RefinementCtx): void {
  if (!data.text_to_speech && data.audio_id === null) {
    ctx.addIssue({ code: 'custom', path: ['audio_id'], message: 'choose an audio, or turn text to speech on' });
  }
}

/** Reports list items whose key repeats an earlier one (`field` empty when the items are the values). */
export function checkUnique<T>(items: readonly T[], key: (item: T) => string, field: string, list: string, ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    const value = key(item);
    if (seen.has(value)) customIssue(ctx, 'duplicate_value', field === '' ? [list, index] : [list, index, field], `'${value}' appears twice`);
    seen.add(value);
  });
}
