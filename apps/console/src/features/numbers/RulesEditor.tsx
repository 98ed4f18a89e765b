import { ActionIcon, Button, Group, Paper, Select, Stack, TagsInput, Text, Tooltip } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconPlus, IconTrash } from '@tabler/icons-react';
import { numberLimits } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { applyMask } from '../../lib/forms/masks.ts';
import type { PickerOption } from '@voxplan/blocks/editor';
import { emptyRule, type NumberForm } from './form-values.ts';

const selectData = (options: PickerOption[] | undefined) => (options ?? []).map((option) => ({ value: String(option.value), label: option.label }));

/** The first error under a path (a list's own, or one of its items': `rules.0.caller_prefixes.1`). */
export function errorUnder(errors: Record<string, unknown>, path: string): string | undefined {
  const key = Object.keys(errors).find((candidate) => candidate === path || candidate.startsWith(`${path}.`));
  return key === undefined ? undefined : String(errors[key]);
}

/**
 * The number's rules, tried from the top: each a date range (in hours) and/or caller prefixes,
 * and the plan they lead to. Rows are added, removed and moved.
 */
export function RulesEditor({ form, dateRanges, plans, disabled }: { form: NumberForm; dateRanges?: PickerOption[]; plans?: PickerOption[]; disabled: boolean }) {
  const { t } = useTranslation();
  const rules = form.getValues().rules;
  const move = (from: number, to: number) => form.reorderListItem('rules', { from, to });
  // What is being typed into each rule's prefixes, before it becomes a tag: letters are refused as typed.
  const [prefixTyped, setPrefixTyped] = useState<Record<number, string>>({});
  return (
    <Stack gap="xs">
      {rules.length === 0 && (
        <Text size="sm" c="dimmed">
          {t('numbers.noRules')}
        </Text>
      )}
      {rules.map((_, index) => {
        const n = index + 1;
        return (
          <Paper key={index} withBorder p="xs" data-testid="number-rule">
            <Group gap="xs" align="flex-start" wrap="nowrap">
              <Text fw={600} mt={30} w={20} aria-hidden>
                {n}
              </Text>
              <Select
                style={{ flex: 1 }}
                label={t('numbers.ruleDateRange')}
                aria-label={t('numbers.ruleDateRangeOf', { n })}
                placeholder={t('numbers.anyTime')}
                clearable
                clearButtonProps={{ 'aria-label': t('numbers.clearChoice') }}
                searchable
                disabled={disabled}
                data={selectData(dateRanges)}
                {...form.getInputProps(`rules.${index}.date_range_id`)}
                data-testid={`rule-${index}-date-range`}
              />
              <TagsInput
                style={{ flex: 1 }}
                label={t('numbers.ruleCallerPrefixes')}
                aria-label={t('numbers.ruleCallerPrefixesOf', { n })}
                placeholder={rules[index]!.caller_prefixes.length === 0 ? t('numbers.anyCaller') : undefined}
                maxTags={numberLimits.callerPrefixes}
                splitChars={[',', ' ', ';']}
                clearable
                clearButtonProps={{ 'aria-label': t('numbers.clearChoice') }}
                {...form.getInputProps(`rules.${index}.caller_prefixes`)}
                error={errorUnder(form.errors, `rules.${index}.caller_prefixes`)}
                inputMode="tel"
                searchValue={prefixTyped[index] ?? ''}
                onSearchChange={(typed) => setPrefixTyped((current) => ({ ...current, [index]: applyMask('callerPrefixes', typed) }))}
                data-testid={`rule-${index}-prefixes`}
              />
              <Select
                style={{ flex: 1 }}
                label={t('numbers.rulePlan')}
                aria-label={t('numbers.rulePlanOf', { n })}
                withAsterisk
                searchable
                disabled={disabled}
                data={selectData(plans)}
                {...form.getInputProps(`rules.${index}.plan_id`)}
                data-testid={`rule-${index}-plan`}
              />
              <Group gap={2} mt={28} wrap="nowrap">
                <Tooltip label={t('numbers.moveRuleUp')}>
                  <ActionIcon variant="subtle" disabled={index === 0} aria-label={t('numbers.moveRuleUpOf', { n })} onClick={() => move(index, index - 1)} data-testid={`rule-${index}-up`}>
                    <IconArrowUp size={16} />
                  </ActionIcon>
                </Tooltip>
                <Tooltip label={t('numbers.moveRuleDown')}>
                  <ActionIcon
                    variant="subtle"
                    disabled={index === rules.length - 1}
                    aria-label={t('numbers.moveRuleDownOf', { n })}
                    onClick={() => move(index, index + 1)}
                    data-testid={`rule-${index}-down`}
                  >
                    <IconArrowDown size={16} />
                  </ActionIcon>
                </Tooltip>
                <Tooltip label={t('numbers.removeRule')}>
                  <ActionIcon variant="subtle" color="red" aria-label={t('numbers.removeRuleOf', { n })} onClick={() => form.removeListItem('rules', index)} data-testid={`rule-${index}-remove`}>
                    <IconTrash size={16} />
                  </ActionIcon>
                </Tooltip>
              </Group>
            </Group>
          </Paper>
        );
      })}
      <Group>
        <Button
          variant="default"
          size="xs"
          leftSection={<IconPlus size={14} />}
          disabled={rules.length >= numberLimits.rules}
          onClick={() => form.insertListItem('rules', emptyRule())}
          data-testid="rule-add"
        >
          {t('numbers.addRule')}
        </Button>
      </Group>
    </Stack>
  );
}
