import { Group, NumberInput, Select, TextInput } from '@mantine/core';
import type { TemplateButton, TemplateParameter, TemplateParameterType } from '@voxplan/contracts/whatsapp-templates';
import { useTranslation } from 'react-i18next';

/** Currencies offered first; Meta's example's own code is added when it is another. */
const CURRENCIES = ['BRL', 'USD', 'EUR', 'GBP', 'ARS', 'MXN', 'CLP', 'COP', 'PEN', 'UYU'];

/** A currency value as the server reads it (`BRL 12.50`): its code and amount; what is not one yet reads as empty. */
export function splitCurrency(value: string): { code: string; amount: string } {
  const match = /^\s*([A-Za-z]{3})\s+([0-9.]+)\s*$/.exec(value) ?? /^\s*([0-9.]+)\s+([A-Za-z]{3})\s*$/.exec(value);
  if (!match) return { code: '', amount: '' };
  return /^[A-Za-z]/.test(match[1]!) ? { code: match[1]!.toUpperCase(), amount: match[2]! } : { code: match[2]!.toUpperCase(), amount: match[1]! };
}

/** A date picked (YYYY-MM-DD) as the customer reads it, in the template's language (`pt_BR`: "24 de dezembro de 2026"). */
export function dateText(day: string, language: string): string {
  const date = new Date(`${day}T12:00:00Z`);
  if (Number.isNaN(date.getTime())) return '';
  try {
    return new Intl.DateTimeFormat(language.replace('_', '-'), { dateStyle: 'long', timeZone: 'UTC' }).format(date);
  } catch {
    return day;
  }
}

/** How a text parameter may be sent: Meta's template does not type its text placeholders, the sender does. */
export const textKinds = ['text', 'currency', 'date_time'] as const;
export type TextKind = (typeof textKinds)[number];

/** The kind a text parameter's example suggests ("BRL 12.50", "R$ 12,50": currency; "25/12/2026", "December 25": a date), else text. */
export function kindOfExample(example: string | undefined): TextKind {
  if (!example) return 'text';
  if (splitCurrency(example).code || /^\s*(R\$|US\$|\$|€|£)\s*\d/.test(example)) return 'currency';
  if (/\b\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}\b/.test(example) || /\b(jan|feb|fev|mar|apr|abr|may|mai|jun|jul|aug|ago|sep|set|oct|out|nov|dec|dez)[a-zç]*\.?\s+\d/i.test(example)) return 'date_time';
  return 'text';
}

/** The parameter's label as a person reads it: where in the template it goes, and what it is. */
export function parameterLabel(parameter: TemplateParameter, buttons: readonly TemplateButton[], t: (key: string, options?: Record<string, unknown>) => string): string {
  const name = parameter.key.slice(parameter.key.indexOf('.') + 1);
  if (parameter.component === 'button') return t('conversations.template.buttonLink', { text: buttons.find((button) => String(button.index) === name)?.text ?? name });
  if (parameter.component === 'header' && parameter.type !== 'text') return t(`conversations.template.media.${parameter.type}`);
  return t(`conversations.template.${parameter.component}Value`, { name });
}

interface FieldProps {
  parameter: TemplateParameter;
  /** The type it is sent as: a text parameter's chosen kind, else Meta's own. */
  kind: TemplateParameterType;
  label: string;
  /** The template's language: a date is written in it. */
  language: string;
  value: string;
  error: string | undefined;
  onChange(value: string): void;
}

/**
 * One parameter's field, typed as Meta types it: a text; a currency (its code and amount, sent as
 * `BRL 12.50`); a date (picked, sent written out in the template's language); a media header's
 * https link. Meta's example is the placeholder.
 */
export function TemplateField({ parameter, kind, label, language, value, error, onChange }: FieldProps) {
  const { t } = useTranslation();
  const testId = `template-field-${parameter.key}`;
  const example = parameter.example ?? '';
  if (kind === 'currency') {
    const current = splitCurrency(value);
    const exampleCode = splitCurrency(example).code;
    const code = current.code || exampleCode || 'BRL';
    const codes = exampleCode && !CURRENCIES.includes(exampleCode) ? [exampleCode, ...CURRENCIES] : CURRENCIES;
    const compose = (nextCode: string, amount: string | number) => onChange(amount === '' ? '' : `${nextCode} ${Number(amount).toFixed(2)}`);
    return (
      <Group gap="xs" align="flex-start" wrap="nowrap" data-testid={testId}>
        <Select
          label={label}
          aria-label={t('conversations.template.currency')}
          data={codes}
          value={code}
          allowDeselect={false}
          onChange={(next) => compose(next ?? code, current.amount)}
          w={110}
          data-testid={`${testId}-code`}
        />
        <NumberInput
          label={t('conversations.template.amount')}
          placeholder={splitCurrency(example).amount || '12.50'}
          decimalScale={2}
          fixedDecimalScale={false}
          decimalSeparator="."
          min={0}
          hideControls
          value={current.amount === '' ? '' : Number(current.amount)}
          onChange={(amount) => compose(code, amount)}
          error={error}
          style={{ flex: 1 }}
          data-testid={`${testId}-amount`}
        />
      </Group>
    );
  }
  if (kind === 'date_time') {
    return (
      <TextInput
        type="date"
        label={label}
        description={example ? t('conversations.template.example', { example }) : undefined}
        // The date picked is kept as the customer will read it; the field shows it back as a date.
        value={value ? (value.split('|')[0] ?? '') : ''}
        onChange={(event) => onChange(event.currentTarget.value ? `${event.currentTarget.value}|${dateText(event.currentTarget.value, language)}` : '')}
        error={error}
        data-testid={testId}
      />
    );
  }
  const media = kind !== 'text';
  return (
    <TextInput
      type={media ? 'url' : 'text'}
      label={label}
      placeholder={example || (media ? 'https://…' : undefined)}
      description={media ? t('conversations.template.mediaHint') : undefined}
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      error={error}
      maxLength={1024}
      data-testid={testId}
    />
  );
}

/** What is sent for a field's value: a date field keeps the day picked beside its text; the text goes. */
export const sentValue = (kind: TemplateParameterType, value: string): string => (kind === 'date_time' ? (value.split('|')[1] ?? '') : value.trim());

/** A text parameter's kind: text, a currency or a date (what Meta's message calls it). */
export function KindSelect({ parameterKey, value, onChange }: { parameterKey: string; value: TextKind; onChange(kind: TextKind): void }) {
  const { t } = useTranslation();
  return (
    <Select
      aria-label={t('conversations.template.kindOf', { key: parameterKey })}
      label={t('conversations.template.kind')}
      data={textKinds.map((kind) => ({ value: kind, label: t(`conversations.template.kinds.${kind}`) }))}
      value={value}
      allowDeselect={false}
      onChange={(next) => next && onChange(next as TextKind)}
      w={120}
      data-testid={`template-kind-${parameterKey}`}
    />
  );
}
