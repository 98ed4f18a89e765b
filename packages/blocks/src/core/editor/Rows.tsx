import { ActionIcon, Button, Fieldset, Group, Input, Paper, Stack, Text } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconPlus, IconTrash } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { childPath } from './field-values.ts';
import { useFormContext } from './form-context.ts';
import { formatText } from './texts.ts';

/** The frame of a list: its label, its rows with remove and reorder buttons, an add button. */
export function Rows({
  path,
  label,
  items,
  min,
  max,
  onChange,
  newItem,
  renderRow,
  addButtons,
}: {
  path: string;
  label: string;
  items: unknown[];
  min: number;
  max?: number;
  onChange(items: unknown[]): void;
  newItem(): unknown;
  renderRow(item: unknown, index: number, onChange: (item: unknown) => void): ReactNode;
  /** Buttons of their own in place of the one "Add" (one per variant). */
  addButtons?: ReactNode;
}) {
  const { texts, issues, readOnly, filled } = useFormContext();
  const error = issues.get(path);
  const replace = (index: number, item: unknown) => onChange(items.map((current, at) => (at === index ? item : current)));
  const move = (from: number, to: number) => {
    const next = [...items];
    const [item] = next.splice(from, 1);
    next.splice(to, 0, item);
    onChange(next);
  };
  const canAdd = !readOnly && (max === undefined || items.length < max);
  return (
    <Fieldset legend={label} data-testid={`field-${path}`} variant="filled" p="xs">
      <Stack gap="xs">
        {filled.includes(path) && (
          <Text size="xs" c="dimmed" data-testid={`filled-${path}`}>
            {texts.filled_from_prompt}
          </Text>
        )}
        {items.length === 0 && (
          <Text size="sm" c="dimmed">
            {texts.no_rows}
          </Text>
        )}
        {items.map((item, index) => {
          const number = index + 1;
          const rowPath = childPath(path, index);
          return (
            // Rows have no identity of their own but their place; the form redraws them from the data.
            <Paper key={index} withBorder p="xs" role="group" aria-label={formatText(texts.row, { number })} data-testid={`row-${rowPath}`}>
              <Group align="flex-start" gap="xs" wrap="nowrap">
                <Stack gap="xs" style={{ flex: 1, minWidth: 0 }}>
                  {renderRow(item, index, (next) => replace(index, next))}
                </Stack>
                {!readOnly && (
                  <Stack gap={4}>
                    <RowButton
                      action="remove"
                      text={formatText(texts.remove_row, { number })}
                      icon={<IconTrash size={16} />}
                      disabled={items.length <= min}
                      onClick={() => onChange(items.filter((_, at) => at !== index))}
                      rowPath={rowPath}
                    />
                    <RowButton action="up" text={formatText(texts.move_up, { number })} icon={<IconArrowUp size={16} />} disabled={index === 0} onClick={() => move(index, index - 1)} rowPath={rowPath} />
                    <RowButton
                      action="down"
                      text={formatText(texts.move_down, { number })}
                      icon={<IconArrowDown size={16} />}
                      disabled={index === items.length - 1}
                      onClick={() => move(index, index + 1)}
                      rowPath={rowPath}
                    />
                  </Stack>
                )}
              </Group>
            </Paper>
          );
        })}
        {error && <Input.Error>{error}</Input.Error>}
        {canAdd &&
          (addButtons ?? (
            <Button variant="light" size="xs" leftSection={<IconPlus size={14} />} onClick={() => onChange([...items, newItem()])} data-testid={`add-${path}`} style={{ alignSelf: 'flex-start' }}>
              {texts.add_row}
            </Button>
          ))}
      </Stack>
    </Fieldset>
  );
}

/** A row's remove or move button: an icon, named for screen readers and in its tooltip by the same text. */
function RowButton({ action, text, icon, disabled, onClick, rowPath }: { action: 'remove' | 'up' | 'down'; text: string; icon: ReactNode; disabled: boolean; onClick(): void; rowPath: string }) {
  return (
    <ActionIcon variant="subtle" color={action === 'remove' ? 'red' : undefined} aria-label={text} title={text} disabled={disabled} onClick={onClick} data-testid={`${action}-${rowPath}`}>
      {icon}
    </ActionIcon>
  );
}
