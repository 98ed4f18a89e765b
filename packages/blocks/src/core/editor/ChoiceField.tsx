import { Alert, Select, Stack } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { planLanguages } from '@voxplan/contracts/voices';
import { useFormContext } from './form-context.ts';
import { formatText, optionLabel } from './texts.ts';

/**
 * A choice among the schema's options. One whose system setting is off (the second AI provider) is
 * not offered; a block that already names it keeps it, with a warning beside it that it will fail.
 */
export function ChoiceField({
  options,
  value,
  path,
  label,
  error,
  testId,
  onChange,
}: {
  options: readonly string[];
  value: unknown;
  path: string;
  label: string;
  error: string | undefined;
  testId: string;
  onChange(value: string): void;
}) {
  const { blockTexts, texts, readOnly, services, settingGates } = useFormContext();
  const isOff = (option: string) => settingGates.some((gate) => gate.path === path && gate.option === option && !services.isSettingOn(gate.setting));
  const current = typeof value === 'string' ? value : null;
  const offered = options.filter((option) => option === current || !isOff(option));
  const isCurrentOff = current !== null && isOff(current);
  return (
    <Stack gap={6}>
      <Select
        label={label}
        // The server's lint says the same as the warning below, in its own words: shown once.
        error={isCurrentOff ? undefined : error}
        data-testid={testId}
        data={offered.map((option) => ({ value: option, label: optionLabel(blockTexts, option) }))}
        value={current}
        onChange={(next) => next !== null && onChange(next)}
        allowDeselect={false}
        readOnly={readOnly}
      />
      {isCurrentOff && (
        <Alert color="yellow" variant="light" p="xs" icon={<IconAlertTriangle size={16} />} role="status" data-testid={`warning-${path}`}>
          {formatText(texts.setting_off, { option: optionLabel(blockTexts, current) })}
        </Alert>
      )}
    </Stack>
  );
}

/**
 * A block's language: the plan's ('') or one of the voices list, by its own name. A tag outside
 * the list (a speech detection block saved before it) is offered as it is, so it stays visible.
 */
export function LanguageField({ value, label, error, testId, onChange }: { value: string; label: string; error: string | undefined; testId: string; onChange(value: string): void }) {
  const { texts, readOnly } = useFormContext();
  const known = planLanguages.some((language) => language.tag === value);
  const data = [
    { value: '', label: texts.plan_language },
    ...planLanguages.map((language) => ({ value: language.tag, label: `${language.name} · ${language.tag}` })),
    ...(value === '' || known ? [] : [{ value, label: value }]),
  ];
  return <Select label={label} error={error} data-testid={testId} data={data} value={value} onChange={(next) => onChange(next ?? '')} allowDeselect={false} readOnly={readOnly} />;
}
