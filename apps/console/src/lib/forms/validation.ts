import type { TFunction } from 'i18next';
import type { z } from 'zod';

/** Spec section 5: empty and undefined values are dropped before validation. */
export function dropEmpty<T extends Record<string, unknown>>(values: T): Partial<T> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined || value === null || value === '') continue;
    kept[key] = value;
  }
  return kept as Partial<T>;
}

/**
 * What a form sends: the empty values dropped, except a field the user emptied, which is sent as
 * empty text so that an edit can clear it.
 */
export function valuesToSubmit<T extends Record<string, unknown>>(values: T, initial: T): Partial<T> {
  const kept: Record<string, unknown> = dropEmpty(values);
  for (const [key, value] of Object.entries(values)) {
    const before = initial[key];
    if (value === '' && before !== '' && before !== undefined && before !== null) kept[key] = '';
  }
  return kept as Partial<T>;
}

type Issue = z.core.$ZodRawIssue;

/** Zod's issues in the user's language: required, types, limits for text, numbers and lists, e-mail, URL. */
export function translateIssue(issue: Issue, t: TFunction): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? t('validation.required') : t('validation.invalidType');
    case 'too_small': {
      const origin = issue.origin === 'array' || issue.origin === 'set' ? 'array' : issue.origin === 'string' ? 'string' : 'number';
      if (origin === 'string' && Number(issue.minimum) === 1) return t('validation.required');
      return t(`validation.min.${origin}`, { min: Number(issue.minimum) });
    }
    case 'too_big': {
      const origin = issue.origin === 'array' || issue.origin === 'set' ? 'array' : issue.origin === 'string' ? 'string' : 'number';
      return t(`validation.max.${origin}`, { max: Number(issue.maximum) });
    }
    case 'invalid_format':
      if (issue.format === 'email') return t('validation.email');
      if (issue.format === 'url') return t('validation.url');
      return t('validation.invalidFormat');
    case 'invalid_value':
      return t('validation.invalidOption');
    case 'unrecognized_keys':
      return t('validation.unknownField');
    default:
      return t('validation.invalidFormat');
  }
}

/** A contract refinement's message ('required' or a validation.custom key) in the user's language; other text as it is. */
export function refinementText(message: string, t: TFunction): string {
  if (message === 'required') return t('validation.required');
  // Only a key-like message names a text: others (a server's prose) would read as nested keys.
  return /^\w+$/.test(message) ? t(`validation.custom.${message}`, { defaultValue: message }) : message;
}

/** Validates with a shared contract schema and returns Mantine-style errors, keyed by field path. */
export function validateWith(schema: z.ZodType, values: Record<string, unknown>, t: TFunction): Record<string, string> {
  const result = schema.safeParse(dropEmpty(values), { error: (issue) => translateIssue(issue, t) });
  if (result.success) return {};
  const errors: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const path = issue.path.map(String).join('.') || 'form';
    // A refinement keeps its own message instead of asking the error map. The console's own
    // refinements pass translated text; a contract's says 'required' or names a validation.custom key.
    const message = issue.code === 'custom' ? refinementText(issue.message, t) : issue.message;
    errors[path] ??= message;
  }
  return errors;
}
