import { Paper, ScrollArea, Table, Text, UnstyledButton } from '@mantine/core';
import type { StatsPlans } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '../../lib/format.ts';

/** Per plan: its sessions, calls and chats, retention rate, routed and retained; a plan's name selects it for its detail. */
export function PlanStats({ plans, selected, onSelect }: { plans: StatsPlans['plans'] | undefined; selected: number | undefined; onSelect(planId: number): void }) {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const number = (value: number) => formatNumber(value, language);
  return (
    <Paper withBorder>
      <ScrollArea>
        <Table highlightOnHover verticalSpacing="xs" data-testid="plan-stats">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('dashboard.plans.plan')}</Table.Th>
              <Table.Th ta="right">{t('dashboard.figures.calls')}</Table.Th>
              <Table.Th ta="right">{t('dashboard.figures.chats')}</Table.Th>
              <Table.Th ta="right">{t('dashboard.figures.retentionRate')}</Table.Th>
              <Table.Th ta="right">{t('dashboard.figures.routed')}</Table.Th>
              <Table.Th ta="right">{t('dashboard.figures.retained')}</Table.Th>
              <Table.Th ta="right">{t('dashboard.figures.abandoned')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {plans?.length === 0 && (
              <Table.Tr>
                <Table.Td colSpan={7}>
                  <Text size="sm" c="dimmed" ta="center">
                    {t('dashboard.plans.none')}
                  </Text>
                </Table.Td>
              </Table.Tr>
            )}
            {plans?.map(({ plan_id, plan_name, figures }) => (
              <Table.Tr key={plan_id} data-testid="plan-stats-row" data-plan-id={plan_id} bg={plan_id === selected ? 'var(--mantine-primary-color-light)' : undefined}>
                <Table.Td>
                  <UnstyledButton onClick={() => onSelect(plan_id)} aria-pressed={plan_id === selected} fw={600} td="underline" data-testid="plan-stats-open">
                    {plan_name}
                  </UnstyledButton>
                </Table.Td>
                <Table.Td ta="right">{number(figures.calls)}</Table.Td>
                <Table.Td ta="right">{number(figures.chats)}</Table.Td>
                <Table.Td ta="right">{formatNumber(figures.retention_rate, language, { style: 'percent', maximumFractionDigits: 1 })}</Table.Td>
                <Table.Td ta="right">{number(figures.routed)}</Table.Td>
                <Table.Td ta="right">{number(figures.retained)}</Table.Td>
                <Table.Td ta="right">{number(figures.abandoned)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    </Paper>
  );
}
