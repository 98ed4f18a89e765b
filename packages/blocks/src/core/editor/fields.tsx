/**
 * One input per field kind of the form model, and the lists (rows of objects, of single values, of
 * variants, name/value pairs) that hold more fields; the lists' frame is Rows.tsx. Every input
 * carries `data-testid="field-<path>"` with the data path its issues use (`options.0.digits`).
 */
import { Button, Group, NumberInput, Select, Switch, Textarea, TextInput } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { ChoiceField, LanguageField } from './ChoiceField.tsx';
import { useFormContext } from './form-context.ts';
import { asList, asRow, asText, childPath, type Row } from './field-values.ts';
import { growingTextarea, monospaceFont } from './growing-textarea.ts';
import type { FieldDescriptor } from './form-model.ts';
import { ReferencePicker } from './ReferencePicker.tsx';
import { Rows } from './Rows.tsx';
import { TemplateInput } from './TemplateInput.tsx';
import { WhatsAppTemplateField } from './WhatsAppTemplateField.tsx';
import { fieldLabel, formatText, optionLabel } from './texts.ts';

/** What a phone's keypad can send (0-9, * and #): a letter or a space typed or pasted is dropped. */
export const phoneKeysOf = (typed: string): string => typed.replace(/[^0-9*#]/g, '');

/** The keys 1-9 then 0, in the order a caller reads them on a keypad: a new menu option takes the first one free. */
const keypadOrder = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0'];

/**
 * A new row of a list: its default, with the first free key of the keypad in its phone-keys
 * field (options 1 and 2 taken, the next option is 3), so the usual menu is built without typing keys.
 */
function newRowOf(field: ListDescriptor, items: readonly unknown[]): unknown {
  const row = structuredClone(field.itemDefault);
  const keys = field.itemIsObject ? field.fields.find((inner) => inner.kind === 'keys') : undefined;
  if (!keys || row === null || typeof row !== 'object') return row;
  const used = new Set(items.map((item) => asText(asRow(item)[keys.key])));
  const free = keypadOrder.find((key) => !used.has(key));
  return free === undefined ? row : { ...row, [keys.key]: free };
}

/** Why a JSON text does not parse, or nothing when it does (an empty body is no body). */
export function jsonError(text: string): string | undefined {
  if (text.trim() === '') return undefined;
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The fields of one object (the block's data, or a row), each under its own label. */
export function ObjectFields({ fields, value, path, inRow, onChange }: { fields: readonly FieldDescriptor[]; value: Row; path: string; inRow: boolean; onChange(value: Row): void }) {
  return (
    <>
      {fields.map((field) =>
        // A template's picker fills its sibling fields too (its language, parameters and buttons).
        field.kind === 'whatsapp_template' ? (
          <WhatsAppTemplateField key={field.key} field={field} row={value} onChange={onChange} />
        ) : (
          <Field key={field.key} field={field} value={value[field.key]} path={childPath(path, field.key)} inRow={inRow} onChange={(next) => onChange({ ...value, [field.key]: next })} />
        ),
      )}
    </>
  );
}

interface FieldProps {
  field: FieldDescriptor;
  value: unknown;
  /** The field's data path (`options.0.digits`). */
  path: string;
  inRow: boolean;
  onChange(value: unknown): void;
  /** Replaces the label texts give (the items of a list of single values are named by their list). */
  label?: string;
}

export function Field({ field, value, path, inRow, onChange, label: givenLabel }: FieldProps) {
  const { blockTexts, texts, issues, readOnly } = useFormContext();
  const label = givenLabel ?? fieldLabel(blockTexts, field.key, inRow);
  const error = issues.get(path);
  const testId = `field-${path}`;
  // What every scalar input takes: its label, its issue, and the id tests drive it by.
  const shared = { label, error, 'data-testid': testId };
  switch (field.kind) {
    case 'template':
      return <TemplateInput value={asText(value)} onChange={onChange} label={label} error={error} multiline={field.multiline} maxLength={field.maxLength} testId={testId} />;
    case 'value': {
      const text = asText(value);
      return <TemplateInput value={text} onChange={onChange} label={label} error={error} placeholder={texts.value_hint} monospace={text.startsWith('=')} testId={testId} />;
    }
    case 'expression':
      return <TemplateInput value={asText(value)} onChange={onChange} label={label} error={error} monospace testId={testId} />;
    case 'json': {
      const text = asText(value);
      const invalid = jsonError(text);
      // Shown as the user types; the schema's issue (the server's, after a save) takes precedence.
      const shown = error ?? (invalid === undefined ? undefined : formatText(texts.invalid_json, { message: invalid }));
      return <TemplateInput value={text} onChange={onChange} label={label} error={shown} multiline monospace testId={testId} />;
    }
    case 'code':
      return (
        <Textarea
          {...shared}
          value={asText(value)}
          onChange={(event) => onChange(event.currentTarget.value)}
          readOnly={readOnly}
          {...growingTextarea(6, 24, monospaceFont)}
          spellCheck={false}
        />
      );
    case 'text': {
      const common = { ...shared, value: asText(value), readOnly, maxLength: field.maxLength };
      return field.multiline ? (
        <Textarea {...common} onChange={(event) => onChange(event.currentTarget.value)} {...growingTextarea(2, 12)} />
      ) : (
        <TextInput {...common} onChange={(event) => onChange(event.currentTarget.value)} />
      );
    }
    case 'keys':
      return (
        <TextInput
          {...shared}
          value={asText(value)}
          onChange={(event) => onChange(phoneKeysOf(event.currentTarget.value))}
          readOnly={readOnly}
          maxLength={field.maxLength}
          // A phone's keypad on touch screens: the digits, * and #.
          inputMode="tel"
          autoComplete="off"
        />
      );
    case 'number':
      return (
        <NumberInput
          {...shared}
          value={typeof value === 'number' ? value : ''}
          // Emptied, the field holds null: the schema then says it is required, rather than a guessed number.
          onChange={(next) => onChange(typeof next === 'number' ? next : next === '' ? null : Number(next))}
          min={field.min}
          max={field.max}
          allowDecimal={!field.integer}
          clampBehavior="none"
          readOnly={readOnly}
        />
      );
    case 'switch':
      return (
        <Switch
          {...shared}
          checked={value === true}
          onChange={(event) => onChange(event.currentTarget.checked)}
          // Mantine's Switch ties its error to the input but does not mark the input invalid.
          aria-invalid={error ? true : undefined}
          disabled={readOnly}
        />
      );
    case 'language':
      return <LanguageField value={asText(value)} label={label} error={error} testId={testId} onChange={onChange} />;
    case 'select':
      return <ChoiceField options={field.options} value={value} path={path} label={label} error={error} testId={testId} onChange={onChange} />;
    case 'reference':
      return (
        <ReferencePicker
          kind={field.reference}
          value={typeof value === 'number' ? value : null}
          onChange={onChange}
          nullable={field.nullable}
          label={label}
          error={error}
          testId={testId}
        />
      );
    case 'list':
      return <ListField field={field} value={asList(value)} path={path} label={label} onChange={onChange} />;
    case 'variants':
      return <VariantsField field={field} value={asList(value)} path={path} label={label} onChange={onChange} />;
    case 'record':
      return <RecordField field={field} value={asRow(value)} path={path} label={label} onChange={onChange} />;
    case 'whatsapp_template':
      // Drawn by ObjectFields, which hands it the whole row.
      return null;
  }
}

type ListDescriptor = Extract<FieldDescriptor, { kind: 'list' }>;

function ListField({ field, value, path, label, onChange }: { field: ListDescriptor; value: unknown[]; path: string; label: string; onChange(value: unknown[]): void }) {
  return (
    <Rows
      path={path}
      label={label}
      items={value}
      min={field.min}
      max={field.max}
      onChange={onChange}
      newItem={() => newRowOf(field, value)}
      renderRow={(item, index, change) =>
        field.itemIsObject ? (
          <ObjectFields fields={field.fields} value={asRow(item)} path={childPath(path, index)} inRow onChange={change} />
        ) : (
          <Field field={field.fields[0]!} value={item} path={childPath(path, index)} inRow label={`${label} ${index + 1}`} onChange={change} />
        )
      }
    />
  );
}

type VariantsDescriptor = Extract<FieldDescriptor, { kind: 'variants' }>;

/** Rows of several shapes (recording's analyses): the kind picked first, its own fields below. */
function VariantsField({ field, value, path, label, onChange }: { field: VariantsDescriptor; value: unknown[]; path: string; label: string; onChange(value: unknown[]): void }) {
  const { blockTexts, texts, issues, readOnly } = useFormContext();
  const variantOf = (item: unknown) => field.variants.find((variant) => variant.value === asRow(item)[field.discriminator]);
  const used = new Set(value.map((item) => variantOf(item)?.value));
  const addButtons = (
    <Group gap="xs">
      {field.variants
        // Each kind once (the schema refuses a second): only the ones not in the list yet are offered.
        .filter((variant) => !used.has(variant.value))
        .map((variant) => (
          <Button
            key={variant.value}
            variant="light"
            size="xs"
            leftSection={<IconPlus size={14} />}
            onClick={() => onChange([...value, structuredClone(variant.defaultValue)])}
            data-testid={`add-${path}-${variant.value}`}
          >
            {formatText(texts.add_variant, { name: optionLabel(blockTexts, variant.value) })}
          </Button>
        ))}
    </Group>
  );
  return (
    <Rows
      path={path}
      label={label}
      items={value}
      min={field.min}
      max={field.max}
      onChange={onChange}
      newItem={() => structuredClone(field.variants[0]!.defaultValue)}
      addButtons={addButtons}
      renderRow={(item, index, change) => {
        const rowPath = childPath(path, index);
        const variant = variantOf(item);
        const kindPath = childPath(rowPath, field.discriminator);
        return (
          <>
            <Select
              label={fieldLabel(blockTexts, field.discriminator, true)}
              error={issues.get(kindPath)}
              data={field.variants.map((option) => ({ value: option.value, label: optionLabel(blockTexts, option.value) }))}
              value={variant?.value ?? null}
              // Another kind is another shape: the row starts over with that kind's defaults.
              onChange={(next) => {
                const chosen = field.variants.find((option) => option.value === next);
                if (chosen && chosen !== variant) change(structuredClone(chosen.defaultValue));
              }}
              allowDeselect={false}
              readOnly={readOnly}
              data-testid={`field-${kindPath}`}
            />
            {variant && <ObjectFields fields={variant.fields} value={asRow(item)} path={rowPath} inRow onChange={change} />}
          </>
        );
      }}
    />
  );
}

type RecordDescriptor = Extract<FieldDescriptor, { kind: 'record' }>;

/**
 * Name/value pairs kept as an object (headers, query parameters). The rows live in the component
 * while the user types: an object cannot hold two rows with the same (or no) name yet.
 */
function RecordField({ field, value, path, label, onChange }: { field: RecordDescriptor; value: Row; path: string; label: string; onChange(value: Row): void }) {
  const { texts, issues, readOnly } = useFormContext();
  const [rows, setRows] = useState<Array<[string, unknown]>>(() => Object.entries(value));
  // The data changed elsewhere (undo, another block selected): the rows follow it.
  const fromData = JSON.stringify(value);
  const [seen, setSeen] = useState(fromData);
  if (fromData !== seen) {
    setSeen(fromData);
    if (fromData !== JSON.stringify(Object.fromEntries(rows))) setRows(Object.entries(value));
  }
  const update = (next: Array<[string, unknown]>) => {
    setRows(next);
    const object = Object.fromEntries(next);
    setSeen(JSON.stringify(object));
    onChange(object);
  };
  return (
    <Rows
      path={path}
      label={label}
      items={rows}
      min={0}
      onChange={(next) => update(next as Array<[string, unknown]>)}
      newItem={() => ['', structuredClone(field.value.defaultValue)]}
      renderRow={(item, index, change) => {
        const [name, entry] = item as [string, unknown];
        const rowPath = childPath(path, index);
        return (
          <>
            <TextInput
              label={texts.name}
              value={name}
              error={issues.get(childPath(path, name))}
              onChange={(event) => change([event.currentTarget.value, entry])}
              readOnly={readOnly}
              data-testid={`field-${rowPath}.name`}
            />
            <Field field={field.value} value={entry} path={`${rowPath}.value`} inRow label={texts.value} onChange={(next) => change([name, next])} />
          </>
        );
      }}
    />
  );
}
