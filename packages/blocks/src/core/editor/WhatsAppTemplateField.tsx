/**
 * A WhatsApp template chosen among the tenant's synced ones, and what fills each of its
 * parameters: one input per parameter, labelled with its place and Meta's type, Meta's example as
 * its hint. Choosing a template fills the block's language, its parameter rows (keeping what was
 * typed for keys it still has) and its quick replies (the block's exits).
 */
import { Alert, Select, Stack, Text } from '@mantine/core';
import type { FieldDescriptor } from './form-model.ts';
import { useFormContext } from './form-context.ts';
import { TemplateInput } from './TemplateInput.tsx';
import { fieldLabel, formatText } from './texts.ts';

type Row = Record<string, unknown>;
type TemplateDescriptor = Extract<FieldDescriptor, { kind: 'whatsapp_template' }>;
interface Mapping {
  key: string;
  value: string;
}

const noneValue = '';
const separator = '\u0000';
const choiceValue = (name: string, language: string): string => (name === '' ? noneValue : `${name}${separator}${language}`);

const asText = (value: unknown): string => (typeof value === 'string' ? value : '');

function mappingsOf(value: unknown): Mapping[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item: unknown) => {
    const row = item !== null && typeof item === 'object' ? (item as Row) : {};
    return typeof row.key === 'string' ? [{ key: row.key, value: asText(row.value) }] : [];
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

  const setValue = (index: number, value: string) => onChange({ ...row, [field.parameters]: mappings.map((mapping, at) => (at === index ? { ...mapping, value } : mapping)) });

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
        return (
          <TemplateInput
            key={mapping.key}
            value={mapping.value}
            onChange={(value) => setValue(index, value)}
            label={type === undefined ? partLabel(mapping.key) : `${partLabel(mapping.key)} · ${type}`}
            placeholder={described?.example ? formatText(own.example, { example: described.example }) : undefined}
            error={issues.get(path) ?? unmapped}
            testId={`field-${path}`}
          />
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
