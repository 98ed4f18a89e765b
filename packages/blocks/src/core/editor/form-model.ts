/**
 * The generic form's model: a block's zod schema read into field descriptors, default values for
 * new blocks and new list rows, and the schema's issues keyed by the path of the field they are
 * about. Pure functions: the renderer (BlockForm) and the tests read the same model.
 */
import { z } from 'zod';
// One locale by its own path: `z.locales` would bring every language zod has into the editor's bundle.
import portugueseLocale from 'zod/v4/locales/pt-BR.js';
import type { ReferenceField, ReferenceKind } from '../define.ts';
import { fieldHints } from '../fields.ts';
import { blockDefinition } from '../../registry.ts';
import { editorTexts, type EditorTexts, fieldLabel } from './texts.ts';
import type { BlockEditor, EditorLanguage, FieldHint } from './types.ts';

/** Strings that may be longer than this get a text area; a name, a path or a pattern keeps one line. */
const oneLineUpTo = 500;

const isMultiline = (max: number | undefined): boolean => max !== undefined && max > oneLineUpTo;

interface FieldBase {
  /** The key of the field in its object (`digits`), or `''` for the items of a list of texts. */
  key: string;
  /** Where the field sits in the block's schema, list indices left out (`options.digits`): the key of `fieldHints`. */
  schemaPath: string;
  /** What a new block or a new row holds in this field. */
  defaultValue: unknown;
}

export type FieldDescriptor = FieldBase &
  (
    | { kind: 'text'; multiline: boolean; maxLength?: number }
    | { kind: 'template'; multiline: boolean; maxLength?: number }
    | { kind: 'value' }
    | { kind: 'expression' }
    | { kind: 'json' }
    | { kind: 'code'; language: 'lua' }
    | { kind: 'number'; min?: number; max?: number; integer: boolean }
    | { kind: 'switch' }
    | { kind: 'select'; options: readonly string[] }
    /** A language of the voices list; '' for the plan's. */
    | { kind: 'language' }
    /** Phone keys: 0-9, * and # (a menu option's). */
    | { kind: 'keys'; maxLength?: number }
    | { kind: 'reference'; reference: ReferenceKind; nullable: boolean }
    /** A list of objects (one row per item, `fields` side by side) or of single values (`fields` holds one descriptor keyed `''`). */
    | { kind: 'list'; fields: readonly FieldDescriptor[]; itemIsObject: boolean; itemDefault: unknown; min: number; max?: number }
    /** A list whose rows are one of several shapes, chosen by the `discriminator` field (recording's analyses). */
    | {
        kind: 'variants';
        discriminator: string;
        variants: ReadonlyArray<{ value: string; fields: readonly FieldDescriptor[]; defaultValue: unknown }>;
        min: number;
        max?: number;
      }
    /** Name/value pairs stored as an object (http headers, query parameters). */
    | { kind: 'record'; value: FieldDescriptor }
    /** A WhatsApp template's name, with the sibling fields its picker fills (FieldHint `whatsapp_template`). */
    | ({ kind: 'whatsapp_template' } & Omit<Extract<FieldHint, { kind: 'whatsapp_template' }>, 'kind'>)
  );

export type FieldKind = FieldDescriptor['kind'];

/** What the block's editor adds to what the schema says. */
export interface DescribeOptions {
  hints?: Readonly<Record<string, FieldHint>>;
  references?: readonly ReferenceField[];
}

type Schema = z.core.$ZodType;

/** The schema under `.default()`, `.nullable()` and `.optional()`, with what those wrappers said. */
function unwrap(schema: Schema): { inner: Schema; defaultValue?: unknown; hasDefault: boolean; nullable: boolean; hint?: FieldHint } {
  let current = schema;
  let hint = fieldHints.get(current);
  let defaultValue: unknown;
  let hasDefault = false;
  let nullable = false;
  for (;;) {
    if (current instanceof z.ZodDefault) {
      if (!hasDefault) defaultValue = current.def.defaultValue;
      hasDefault = true;
      current = current.def.innerType;
    } else if (current instanceof z.ZodNullable) {
      nullable = true;
      current = current.def.innerType;
    } else if (current instanceof z.ZodOptional) {
      current = current.def.innerType;
    } else break;
    hint ??= fieldHints.get(current);
  }
  return { inner: current, defaultValue, hasDefault, nullable, ...(hint ? { hint } : {}) };
}

function lengthBounds(schema: Schema): { min?: number; max?: number } {
  const bounds: { min?: number; max?: number } = {};
  for (const check of schema._zod.def.checks ?? []) {
    const def = check._zod.def as { check: string; minimum?: number; maximum?: number; length?: number };
    if (def.check === 'min_length') bounds.min = def.minimum;
    else if (def.check === 'max_length') bounds.max = def.maximum;
    else if (def.check === 'length_equals') bounds.min = bounds.max = def.length;
  }
  return bounds;
}

/** What a value of this schema starts as when the data has none: its default, else the emptiest valid-looking value. */
export function defaultValueOf(schema: Schema): unknown {
  const { inner, defaultValue, hasDefault, nullable } = unwrap(schema);
  if (hasDefault) return structuredClone(defaultValue);
  if (nullable) return null;
  if (inner instanceof z.ZodObject) return Object.fromEntries(Object.entries(inner.shape).map(([key, field]) => [key, defaultValueOf(field)]));
  if (inner instanceof z.ZodString) return '';
  if (inner instanceof z.ZodBoolean) return false;
  if (inner instanceof z.ZodEnum) return inner.options[0];
  if (inner instanceof z.ZodLiteral) return inner.value;
  if (inner instanceof z.ZodDiscriminatedUnion) return defaultValueOf(inner.options[0] as Schema);
  if (inner instanceof z.ZodArray) return Array.from({ length: lengthBounds(inner).min ?? 0 }, () => defaultValueOf(inner.element));
  if (inner instanceof z.ZodRecord) return {};
  // A number (or a reference id) is left empty: the form asks for it rather than guessing one.
  return null;
}

/** The data a block starts with: every field's default (required references empty, for the user to pick). */
export function initialDataOf(schema: Schema): Record<string, unknown> {
  const value = defaultValueOf(schema);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The schema of an editor part's block (a registry test holds every editor part to a definition). */
function schemaOf(editor: BlockEditor): Schema {
  const definition = blockDefinition(editor.type);
  if (!definition) throw new Error(`no definition of block type ${editor.type}`);
  return definition.schema;
}

/**
 * The data of a block added from the palette: its schema's defaults with its editor part's changes
 * to them, a fresh copy each time (two new blocks never share a list).
 */
export function newBlockData(editor: BlockEditor): Record<string, unknown> {
  return structuredClone({ ...initialDataOf(schemaOf(editor)), ...editor.initialData });
}

function objectFields(schema: z.ZodObject, prefix: string, options: DescribeOptions, skip?: string): FieldDescriptor[] {
  return Object.entries(schema.shape)
    .filter(([key]) => key !== skip)
    .flatMap(([key, field]) => {
      const described = describeField(key, field, prefix === '' ? key : `${prefix}.${key}`, options);
      return described ? [described] : [];
    });
}

function describeField(key: string, schema: Schema, schemaPath: string, options: DescribeOptions): FieldDescriptor | undefined {
  const { inner, nullable, hint: tagged } = unwrap(schema);
  const hint = options.hints?.[schemaPath] ?? tagged;
  const base: FieldBase = { key, schemaPath, defaultValue: defaultValueOf(schema) };
  if (hint?.kind === 'hidden') return undefined;
  const reference = options.references?.find((field) => field.path === schemaPath);
  if (reference) return { ...base, kind: 'reference', reference: reference.kind, nullable };
  const { min, max } = lengthBounds(inner);
  if (hint) {
    switch (hint.kind) {
      case 'template':
        return { ...base, kind: 'template', multiline: hint.multiline ?? isMultiline(max), ...(max === undefined ? {} : { maxLength: max }) };
      case 'code':
        return { ...base, kind: 'code', language: hint.language };
      case 'keys':
        return { ...base, kind: 'keys', ...(max === undefined ? {} : { maxLength: max }) };
      case 'whatsapp_template':
        return { ...base, ...hint };
      default:
        return { ...base, kind: hint.kind };
    }
  }
  if (inner instanceof z.ZodString) return { ...base, kind: 'text', multiline: isMultiline(max), ...(max === undefined ? {} : { maxLength: max }) };
  if (inner instanceof z.ZodNumber) {
    return {
      ...base,
      kind: 'number',
      integer: inner.isInt,
      ...(Number.isFinite(inner.minValue) ? { min: inner.minValue! } : {}),
      ...(Number.isFinite(inner.maxValue) ? { max: inner.maxValue! } : {}),
    };
  }
  if (inner instanceof z.ZodBoolean) return { ...base, kind: 'switch' };
  if (inner instanceof z.ZodEnum) return { ...base, kind: 'select', options: inner.options.map(String) };
  if (inner instanceof z.ZodRecord) {
    const value = describeField('value', inner.valueType, `${schemaPath}.value`, options);
    if (!value) throw new Error(`the values of ${schemaPath} cannot be hidden`);
    return { ...base, kind: 'record', value };
  }
  if (inner instanceof z.ZodArray) {
    const bounds = { min: min ?? 0, ...(max === undefined ? {} : { max }) };
    const itemDefault = defaultValueOf(inner.element);
    const element = unwrap(inner.element).inner;
    if (element instanceof z.ZodObject) return { ...base, kind: 'list', itemIsObject: true, itemDefault, fields: objectFields(element, schemaPath, options), ...bounds };
    if (element instanceof z.ZodDiscriminatedUnion) {
      const discriminator = element.def.discriminator;
      const variants = (element.options as Schema[]).map((option) => {
        if (!(option instanceof z.ZodObject)) throw new Error(`${schemaPath}: a variant is not an object`);
        const tag = option.shape[discriminator];
        if (!(tag instanceof z.ZodLiteral)) throw new Error(`${schemaPath}: a variant's ${discriminator} is not a literal`);
        return { value: String(tag.value), fields: objectFields(option, schemaPath, options, discriminator), defaultValue: defaultValueOf(option) };
      });
      return { ...base, kind: 'variants', discriminator, variants, ...bounds };
    }
    const item = describeField('', inner.element, schemaPath, options);
    if (!item) throw new Error(`the items of ${schemaPath} cannot be hidden`);
    return { ...base, kind: 'list', itemIsObject: false, itemDefault, fields: [item], ...bounds };
  }
  throw new Error(`the generic form has no input for ${schemaPath} (${inner._zod.def.type}): give the block a hint or a form of its own`);
}

/** The fields of a block's form, in the schema's order. */
export function describeFields(schema: Schema, options: DescribeOptions = {}): FieldDescriptor[] {
  const { inner } = unwrap(schema);
  if (!(inner instanceof z.ZodObject)) throw new Error('a block schema is an object');
  return objectFields(inner, '', options);
}

const described = new WeakMap<BlockEditor, FieldDescriptor[]>();

/** The fields of a block's generic form: its schema read with its editor's hints and its description's references, once. */
export function formFieldsOf(editor: BlockEditor): FieldDescriptor[] {
  let fields = described.get(editor);
  if (!fields) {
    fields = describeFields(schemaOf(editor), { hints: editor.fieldHints, references: editor.description.references });
    described.set(editor, fields);
  }
  return fields;
}

/** The dotted path the issues and the test ids use (`options.0.digits`). */
export const joinPath = (path: readonly PropertyKey[]): string => path.map(String).join('.');

// English needs no locale: zod's own messages are English.
const portugueseError = portugueseLocale().localeError;

/**
 * The schema's issues with `data`, one message per path (the first), in the user's language:
 * an empty required field says so; zod's other issues come from its locale; the blocks' own
 * issues (core/fields.ts `customIssue`) keep their English message, which names the culprit, or
 * take the generic text of their code in Portuguese.
 */
export function validateData(schema: Schema, data: unknown, language: EditorLanguage = 'en'): Map<string, string> {
  const result = z.safeParse(schema, data, { reportInput: true });
  const issues = new Map<string, string>();
  if (result.success) return issues;
  for (const issue of result.error.issues) {
    const path = joinPath(issue.path);
    if (!issues.has(path)) issues.set(path, issueMessage(issue, language));
  }
  return issues;
}

/** A required field a block's data leaves empty: where it is, and the label its form gives it. */
export interface EmptyRequiredField {
  path: string;
  label: string;
}

/**
 * The required fields `data` leaves empty (a destination not picked, a menu's text not typed), each
 * with its form's label ("Destination"; a list row's field as "Keys 2"), for the editor's issues
 * list as the plan is edited: a person reads the label, never the document's path.
 */
export function emptyRequiredFields(editor: BlockEditor, data: unknown, language: EditorLanguage = 'en'): EmptyRequiredField[] {
  const result = z.safeParse(schemaOf(editor), data, { reportInput: true });
  if (result.success) return [];
  const texts = editor.description.texts[language];
  const found = new Map<string, EmptyRequiredField>();
  for (const issue of result.error.issues) {
    // Left empty, whatever the rule it then breaks (a length, a pattern: a menu's keys, a URL).
    const input = (issue as { input?: unknown }).input;
    if (input !== null && input !== undefined && input !== '') continue;
    const path = joinPath(issue.path);
    const keys = issue.path.filter((part): part is string => typeof part === 'string');
    const row = issue.path.find((part): part is number => typeof part === 'number');
    const key = keys.at(-1) ?? '';
    const label = fieldLabel(texts, key, row !== undefined);
    if (!found.has(path)) found.set(path, { path, label: row === undefined ? label : `${label} ${row + 1}` });
  }
  return [...found.values()];
}

function isEmptyRequired(issue: z.core.$ZodIssue): boolean {
  const input = (issue as { input?: unknown }).input;
  if (issue.code === 'invalid_type') return input === null || input === undefined;
  return issue.code === 'too_small' && issue.origin === 'string' && input === '';
}

function issueMessage(issue: z.core.$ZodIssue, language: EditorLanguage): string {
  const texts = editorTexts[language];
  if (isEmptyRequired(issue)) return texts.required;
  if (issue.code === 'custom') {
    const code = issue.params?.code as string | undefined;
    return language !== 'en' && code !== undefined && code in texts.issues ? texts.issues[code as keyof EditorTexts['issues']] : issue.message;
  }
  if (language === 'en') return issue.message;
  // The locale reads the raw issue's fields, which the final issue keeps (`input` too, with reportInput).
  const localised = portugueseError(issue as unknown as z.core.$ZodRawIssue);
  return (typeof localised === 'string' ? localised : localised?.message) ?? issue.message;
}
