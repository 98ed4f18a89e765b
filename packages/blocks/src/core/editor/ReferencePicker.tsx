/** Picks one of the tenant's records (a destination, an audio, a date range, a plan); audios can be played. */
import { ActionIcon, Group, Select } from '@mantine/core';
import { IconPlayerPlay } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import type { ReferenceKind } from '../define.ts';
import { useFormContext } from './form-context.ts';

/** The value of the "None" choice of a reference that may be empty (Select's values are strings). */
const noneValue = '';

export interface ReferencePickerProps {
  kind: ReferenceKind;
  value: number | null | undefined;
  onChange(value: number | null): void;
  nullable: boolean;
  label: string;
  error?: ReactNode;
  testId: string;
}

export function ReferencePicker({ kind, value, onChange, nullable, label, error, testId }: ReferencePickerProps) {
  const { services, texts, readOnly } = useFormContext();
  const { options, loading } = services.useReferenceOptions(kind);
  const data = options.map((option) => ({ value: String(option.value), label: option.label }));
  // A record removed since the plan was saved still shows, by its id, until the user picks another.
  if (typeof value === 'number' && !options.some((option) => option.value === value) && !loading) data.push({ value: String(value), label: `#${value}` });
  if (nullable) data.unshift({ value: noneValue, label: texts.none });
  const selected = typeof value === 'number' ? String(value) : nullable ? noneValue : null;
  const select = (
    <Select
      label={label}
      error={error}
      data={data}
      value={selected}
      onChange={(next) => onChange(next === null || next === noneValue ? null : Number(next))}
      searchable
      allowDeselect={false}
      readOnly={readOnly}
      placeholder={loading ? texts.loading : undefined}
      nothingFoundMessage={texts.nothing_to_choose}
      data-testid={testId}
      style={{ flex: 1 }}
    />
  );
  if (kind !== 'audio') return select;
  const play = services.playAudio;
  return (
    <Group align="flex-end" gap="xs" wrap="nowrap">
      {select}
      <ActionIcon
        variant="default"
        size="input-sm"
        aria-label={texts.play_audio}
        title={texts.play_audio}
        disabled={!play || typeof value !== 'number'}
        onClick={() => typeof value === 'number' && play?.(value)}
        data-testid={`play-${testId.replace(/^field-/, '')}`}
      >
        <IconPlayerPlay size={16} />
      </ActionIcon>
    </Group>
  );
}
