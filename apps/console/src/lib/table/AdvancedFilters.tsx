import { ActionIcon, Badge, Button, Group, MultiSelect, Popover, Select, Stack, TextInput } from '@mantine/core';
import { IconFilter, IconX } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Column } from './column.ts';
import type { FieldFilter } from './where.ts';

function emptyFilter(column: Column<never>): FieldFilter {
  if (column.type === 'text') return { field: column.field, type: 'text', mode: 'contains', value: '' };
  if (column.type === 'enum') return { field: column.field, type: 'enum', values: [] };
  return { field: column.field, type: column.type };
}

/** Per column type: text contains or equals, ranges for numbers and dates, a list for enums. */
// Option lists open inside the popover: in a portal, a click on an option counts as a click
// outside the popover, which may close it before the filter is applied.
const inPopover = { withinPortal: false } as const;

export function AdvancedFilters<Row>({
  columns,
  filters,
  onChange,
}: {
  columns: Column<Row>[];
  filters: FieldFilter[];
  onChange(filters: FieldFilter[]): void;
}) {
  const { t } = useTranslation();
  const [opened, setOpened] = useState(false);
  const [draft, setDraft] = useState<FieldFilter[]>(filters);
  const columnOf = (field: string) => columns.find((column) => column.field === field);
  const update = (index: number, next: FieldFilter) => setDraft(draft.map((item, i) => (i === index ? next : item)));
  const unused = columns.filter((column) => !draft.some((item) => item.field === column.field));

  return (
    <Popover opened={opened} onChange={setOpened} width={420} position="bottom-start" trapFocus withinPortal>
      <Popover.Target>
        <Button
          variant="default"
          leftSection={<IconFilter size={16} />}
          onClick={() => {
            setDraft(filters);
            setOpened((open) => !open);
          }}
          rightSection={filters.length > 0 ? <Badge size="xs" circle>{filters.length}</Badge> : null}
          data-testid="advanced-filters"
        >
          {t('table.filters')}
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap="xs">
          {draft.map((item, index) => {
            const column = columnOf(item.field);
            if (!column) return null;
            return (
              <Group key={item.field} gap="xs" align="flex-end" wrap="nowrap">
                {item.type === 'text' && (
                  <>
                    <Select
                      comboboxProps={inPopover}
                      label={t(column.labelKey)}
                      data={[
                        { value: 'contains', label: t('table.contains') },
                        { value: 'equals', label: t('table.equals') },
                      ]}
                      value={item.mode}
                      onChange={(mode) => update(index, { ...item, mode: mode === 'equals' ? 'equals' : 'contains' })}
                      w={120}
                      allowDeselect={false}
                    />
                    <TextInput aria-label={t('table.value')} value={item.value} onChange={(e) => update(index, { ...item, value: e.currentTarget.value })} style={{ flex: 1 }} />
                  </>
                )}
                {(item.type === 'number' || item.type === 'date') && (
                  <>
                    <TextInput
                      label={`${t(column.labelKey)} · ${t('table.from')}`}
                      type={item.type === 'date' ? 'date' : 'number'}
                      value={item.min ?? ''}
                      onChange={(e) => update(index, { ...item, min: e.currentTarget.value })}
                      style={{ flex: 1 }}
                    />
                    <TextInput
                      label={t('table.to')}
                      type={item.type === 'date' ? 'date' : 'number'}
                      value={item.max ?? ''}
                      onChange={(e) => update(index, { ...item, max: e.currentTarget.value })}
                      style={{ flex: 1 }}
                    />
                  </>
                )}
                {item.type === 'enum' && (
                  <MultiSelect
                    comboboxProps={inPopover}
                    label={t(column.labelKey)}
                    data={(column.options ?? []).map((option) => ({ value: option.value, label: t(option.labelKey) }))}
                    value={item.values}
                    onChange={(values) => update(index, { ...item, values })}
                    style={{ flex: 1 }}
                  />
                )}
                <ActionIcon variant="subtle" color="gray" aria-label={t('table.removeFilter')} onClick={() => setDraft(draft.filter((_, i) => i !== index))} mb={4}>
                  <IconX size={16} />
                </ActionIcon>
              </Group>
            );
          })}
          {unused.length > 0 && (
            <Select
              comboboxProps={inPopover}
              aria-label={t('table.addFilter')}
              placeholder={t('table.addFilter')}
              data={unused.map((column) => ({ value: column.field, label: t(column.labelKey) }))}
              value={null}
              onChange={(field) => {
                const column = field ? columnOf(field) : undefined;
                if (column) setDraft([...draft, emptyFilter(column as Column<never>)]);
              }}
              data-testid="add-filter"
            />
          )}
          <Group justify="space-between">
            {/* Clearing takes effect at once: a list still filtered after "Clear" reads as the whole
                list, and a bulk removal made there would act on rows the user did not mean. */}
            <Button
              variant="subtle"
              onClick={() => {
                setDraft([]);
                onChange([]);
              }}
              data-testid="clear-filters"
            >
              {t('table.clearFilters')}
            </Button>
            <Button
              onClick={() => {
                onChange(draft);
                setOpened(false);
              }}
              data-testid="apply-filters"
            >
              {t('table.applyFilters')}
            </Button>
          </Group>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
