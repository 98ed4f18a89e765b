import { Table, UnstyledButton } from '@mantine/core';
import type { StatsPlans } from '@voxplan/contracts';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { loadRolloutTexts } from '../../i18n/index.ts';
import { formatNumber } from '../../lib/format.ts';
import { FigureTable } from './FigureTable.tsx';

// A running rollout is rare: its badge (and its texts) load only for a row that has one, outside the route every user lands on.
const RolloutBadge = lazy(() => Promise.all([import('../visual-plans/rollouts/RolloutBadge.tsx'), loadRolloutTexts()]).then(([module]) => ({ default: module.RolloutBadge })));

/** Per plan: its sessions, calls and chats, retention rate, routed and retained; a plan's name selects it for its detail. */
export function PlanStats({ plans, selected, onSelect }: { plans: StatsPlans['plans'] | undefined; selected: number | undefined; onSelect(planId: number): void }) {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const number = (value: number) => formatNumber(value, language);
  return (
    <FigureTable
      testId="plan-stats"
      headings={[
        { label: t('dashboard.plans.plan') },
        ...(['calls', 'chats', 'retentionRate', 'routed', 'retained', 'abandoned'] as const).map((key) => ({ label: t(`dashboard.figures.${key}`), numeric: true })),
      ]}
      isEmpty={plans?.length === 0}
      emptyText={t('dashboard.plans.none')}
    >
      {plans?.map(({ plan_id, plan_name, figures, rollout }) => (
        <Table.Tr key={plan_id} data-testid="plan-stats-row" data-plan-id={plan_id} bg={plan_id === selected ? 'var(--mantine-primary-color-light)' : undefined}>
          <Table.Td>
            <UnstyledButton onClick={() => onSelect(plan_id)} aria-pressed={plan_id === selected} fw={600} td="underline" data-testid="plan-stats-open">
              {plan_name}
            </UnstyledButton>
            {rollout && (
              <Suspense fallback={null}>
                <RolloutBadge rollout={rollout} />
              </Suspense>
            )}
          </Table.Td>
          <Table.Td ta="right">{number(figures.calls)}</Table.Td>
          <Table.Td ta="right">{number(figures.chats)}</Table.Td>
          <Table.Td ta="right">{formatNumber(figures.retention_rate, language, { style: 'percent', maximumFractionDigits: 1 })}</Table.Td>
          <Table.Td ta="right">{number(figures.routed)}</Table.Td>
          <Table.Td ta="right">{number(figures.retained)}</Table.Td>
          <Table.Td ta="right">{number(figures.abandoned)}</Table.Td>
        </Table.Tr>
      ))}
    </FigureTable>
  );
}
