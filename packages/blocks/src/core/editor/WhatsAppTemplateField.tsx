/**
 * A WhatsApp template chosen among the tenant's synced ones, and what fills each of its
 * parameters: one input per parameter, labelled with its place and Meta's type, Meta's example as
 * its hint. Choosing a template fills the block's language, its parameter rows (keeping what was
 * typed for keys it still has) and its quick replies (the block's exits).
 */
import { Alert, Group, Select, Stack, Text } from '@mantine/core';
import type { FieldDescriptor } from './form-model.ts';
import { useFormContext } from './form-context.ts';
import { TemplateInput } from './TemplateInput.tsx';
import { fieldLabel, formatText } from './texts.ts';

type Row = Record<string, unknown>;
type TemplateDescriptor = Extract<FieldDescriptor, { kind: 'whatsapp_template' }>;
/** How a text parameter may be sent instead (Meta's template types its placeholders as text only). */
const sendAs = ['text', 'currency', 'date_time'] as const;
type SendAs = (typeof sendAs)[number];

interface Mapping {
  key: string;
  value: string;
  type?: Exclude<SendAs, 'text'>;
}

const noneValue = '';
const separator = '\u0000';
const choiceValue = (name: string, language: string): string => (name === '' ? noneValue : `${name}${separator}${language}`);

const asText = (value: unknown): string => (typeof value === 'string' ? value : '');

function mappingsOf(value: unknown): Mapping[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item: unknown) => {
    const row = item !== null && typeof item === 'object' ? (item as Row) : {};
    if (typeof row.key !== 'string') return [];
    return [{ key: row.key, value: asText(row.value), ...((row.type === 'currency' || row.type === 'date_time') && { type: row.type }) }];
  });
}

export function WhatsAppTemplateField({ field, row, onChange }: { field: TemplateDescriptor; row: Row; onChange(row: Row): void }) {
  const { services, blockTexts, texts, issues, readOnly } = useFormContext();
  const own = texts.whatsapp_template;
  const { templates, loading } = services.useWhatsAppTemplates?.() ?? { templates: [], loading: false };
  if (field.when && row[field.when.key] !== field.when.value) return null;

  const name = asText(row[field.key]);
  const language = asText(row[field.language]);
  const mappings = mappingsOf(row[field.parameters]);
  const chosen = templates.find((template) => template.name === name && template.language === language);
  const statusText = (status: string): string => (own.statuses as Record<string, string>)[status] ?? status;

  const data = templates.map((template) => ({
    value: choiceValue(template.name, template.language),
    label: formatText(template.status === 'approved' ? own.option : own.option_status, { name: template.name, language: template.language, status: statusText(template.status) }),
  }));
  // A template synced no more still shows by its name, until another is chosen.
  if (name !== '' && !chosen && !loading) data.push({ value: choiceValue(name, language), label: formatText(own.option, { name, language }) });
  if (field.optional) data.unshift({ value: noneValue, label: texts.none });

  const choose = (value: string | null) => {
    const template = templates.find((candidate) => choiceValue(candidate.name, candidate.language) === value);
    if (!template) {
      onChange({ ...row, [field.key]: '', [field.language]: '', [field.parameters]: [], ...(field.buttons && { [field.buttons]: [] }) });
      return;
    }
    const typed = new Map(mappings.map((mapping) => [mapping.key, mapping.value]));
    onChange({
      ...row,
      [field.key]: template.name,
      [field.language]: template.language,
      [field.parameters]: template.parameters.map((parameter) => ({ key: parameter.key, value: typed.get(parameter.key) ?? '' })),
      ...(field.buttons && { [field.buttons]: [...template.quickReplies] }),
    });
  };

  const setRow = (index: number, next: (mapping: Mapping) => Mapping) => onChange({ ...row, [field.parameters]: mappings.map((mapping, at) => (at === index ? next(mapping) : mapping)) });
  const setValue = (index: number, value: string) => setRow(index, (mapping) => ({ ...mapping, value }));
  const setType = (index: number, type: SendAs) =>
    setRow(index, ({ key, value }) => (type === 'text' ? { key, value } : { key, value, type }));

  const partLabel = (key: string): string => {
    const [part = '', place = ''] = key.split('.');
    return formatText(own.parameter, { part: (own.parts as Record<string, string>)[part] ?? part, place });
  };

  return (
    <Stack gap="xs" data-testid={`whatsapp-template-${field.key}`}>
      <Select
        label={fieldLabel(blockTexts, field.key, false)}
        error={issues.get(field.key)}
        data={data}
        value={name === '' ? (field.optional ? noneValue : null) : choiceValue(name, language)}
        onChange={choose}
        searchable
        allowDeselect={false}
        readOnly={readOnly}
        placeholder={loading ? texts.loading : own.choose}
        nothingFoundMessage={own.no_templates}
        data-testid={`field-${field.key}`}
      />
      {name !== '' && !loading && !chosen && (
        <Alert color="yellow" variant="light" data-testid={`template-state-${field.key}`}>
          {own.not_synced}
        </Alert>
      )}
      {chosen && chosen.status !== 'approved' && (
        <Alert color="yellow" variant="light" data-testid={`template-state-${field.key}`}>
          {formatText(own.not_approved, { status: statusText(chosen.status) })}
        </Alert>
      )}
      {mappings.map((mapping, index) => {
        const described = chosen?.parameters.find((parameter) => parameter.key === mapping.key);
        const type = described ? ((own.types as Record<string, string>)[described.type] ?? described.type) : undefined;
        const path = `${field.parameters}.${index}.value`;
        const unmapped = mapping.value.trim() === '' ? own.unmapped : undefined;
        const input = (
          <TemplateInput
            value={mapping.value}
            onChange={(value) => setValue(index, value)}
            label={type === undefined ? partLabel(mapping.key) : `${partLabel(mapping.key)} · ${type}`}
            placeholder={described?.example ? formatText(own.example, { example: described.example }) : undefined}
            // The short word beside the field; the issues list has the long one.
            error={unmapped ?? issues.get(path)}
            testId={`field-${path}`}
          />
        );
        // A body's text placeholder may go as a currency or a date and time instead.
        if (described?.type !== 'text' || !mapping.key.startsWith('body.')) return <div key={mapping.key}>{input}</div>;
        return (
          <Group key={mapping.key} align="flex-start" gap="xs" wrap="nowrap">
            <div style={{ flex: 1, minWidth: 0 }}>{input}</div>
            <Select
              label={own.send_as}
              data={sendAs.map((value) => ({ value, label: (own.send_as_types as Record<string, string>)[value] ?? value }))}
              value={mapping.type ?? 'text'}
              onChange={(value) => setType(index, (value as SendAs | null) ?? 'text')}
              allowDeselect={false}
              readOnly={readOnly}
              w={130}
              data-testid={`field-${field.parameters}.${index}.type`}
            />
          </Group>
        );
      })}
      {field.buttons && chosen && chosen.quickReplies.length > 0 && (
        <Text size="xs" c="dimmed">
          {formatText(own.quick_replies, { buttons: chosen.quickReplies.join(' · ') })}
        </Text>
      )}
    </Stack>
  );
}
