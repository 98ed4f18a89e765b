import { Box, Group, Paper, SegmentedControl, Skeleton, Stack, Text, Title } from '@mantine/core';
import type { StatsDaily, StatsPlans, StatsSummary } from '@voxplan/contracts';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PageError } from '../../lib/PageError.tsx';
import { RefreshControl, useAutoRefresh } from '../../lib/RefreshControl.tsx';
import { HiddenTestCalls } from '../reports/HiddenTestCalls.tsx';
import { testReportsLink } from '../reports/report-filter.ts';
import { LiveSessions } from './LiveSessions.tsx';
import { CampaignFigures } from './CampaignFigures.tsx';
import { browserTimeZone, chartPeriod, type DayText, dayText, type Period, periodKinds, type PeriodKind, periodOf } from './period.ts';
import { HandOffFigures } from './HandOffFigures.tsx';
import { PeriodFigures } from './PeriodFigures.tsx';
import { PlanStats } from './PlanStats.tsx';
import { QueueFigures } from './QueueFigures.tsx';
import { SystemStatus } from './SystemStatus.tsx';
import { useStats, useStatsRefresh } from './use-stats.ts';

// The chart library, the date picker and the plan canvas are most of the dashboard's weight, and
// the dashboard is where every user lands: they load after it shows.
const DailyChart = lazy(() => import('./DailyChart.tsx'));
const PlanDetail = lazy(() => import('./PlanDetail.tsx'));
const CustomRangeInput = lazy(() => import('./CustomRangeInput.tsx'));

const periodQuery = (period: Period, tz: string) => ({ from: period.from.toISOString(), to: period.to.toISOString(), tz });

/** The landing page (spec section 2, "Dashboard"). */
export default function DashboardPage() {
  const { t } = useTranslation();
  const [refreshSeconds, setRefreshSeconds] = useAutoRefresh('dashboard');
  const { refresh, fetching } = useStatsRefresh();
  const [kind, setKind] = useState<PeriodKind>('day');
  const [custom, setCustom] = useState<[DayText | null, DayText | null]>([null, null]);
  const [selectedPlan, setSelectedPlan] = useState<number>();
  const tz = browserTimeZone();
  const period = periodOf(kind, new Date(), custom);
  const query = period && periodQuery(period, tz);
  const enabled = query !== undefined;
  const summary = useStats<StatsSummary>('/stats/summary', query, refreshSeconds, enabled);
  const daily = useStats<StatsDaily>('/stats/daily', period && periodQuery(chartPeriod(period), tz), refreshSeconds, enabled);
  const plans = useStats<StatsPlans>('/stats/plans', query, refreshSeconds, enabled);
  const periodError = summary.error ?? daily.error ?? plans.error;
  // While a custom range lacks its last day nothing is asked, and the previous period's answers
  // (kept on screen while a new period loads) would be taken for the new one's.
  const [figures, days, planFigures] = enabled ? [summary.data?.figures, daily.data?.days, plans.data?.plans] : [];
  const shownPlan = selectedPlan ?? planFigures?.[0]?.plan_id;

  return (
    <Stack gap="lg">
      <Group justify="space-between">
        <Title order={2}>{t('nav.dashboard')}</Title>
        <RefreshControl seconds={refreshSeconds} onIntervalChange={setRefreshSeconds} onRefresh={refresh} refreshing={fetching} testId="dashboard-refresh" />
      </Group>

      <SystemStatus refreshSeconds={refreshSeconds} />
      <LiveSessions />
      <QueueFigures refreshSeconds={refreshSeconds} />
      <CampaignFigures refreshSeconds={refreshSeconds} />

      <section aria-labelledby="dashboard-period">
        <Group justify="space-between" mb="sm" align="flex-end">
          <Title order={3} size="h4" id="dashboard-period">
            {t('dashboard.period.title')}
          </Title>
          <Group gap="sm" align="flex-end">
            {kind === 'custom' && (
              <Suspense fallback={<Skeleton h={36} w={260} />}>
                <CustomRangeInput value={custom} onChange={setCustom} />
              </Suspense>
            )}
            <SegmentedControl
              aria-label={t('dashboard.period.label')}
              value={kind}
              onChange={(value) => setKind(value as PeriodKind)}
              data={periodKinds.map((value) => ({ value, label: t(`dashboard.period.${value}`) }))}
              data-testid="period-kind"
            />
          </Group>
        </Group>
        {!period && (
          <Text size="sm" c="dimmed" mb="sm">
            {t('dashboard.period.chooseDays')}
          </Text>
        )}
        {periodError ? <PageError error={periodError} onRetry={refresh} /> : <PeriodFigures figures={figures} />}
        {period && query && (
          <Box mt="sm">
            <HiddenTestCalls
              where={{ start_time: { gte: query.from, lt: query.to } }}
              // The period's last day is the one before its exclusive end.
              showTo={testReportsLink(dayText(period.from), dayText(new Date(period.to.getTime() - 1)))}
            />
          </Box>
        )}
      </section>

      <HandOffFigures query={enabled ? query : undefined} refreshSeconds={refreshSeconds} />

      <section aria-labelledby="dashboard-daily">
        <Title order={3} size="h4" mb="sm" id="dashboard-daily">
          {t('dashboard.daily.title')}
        </Title>
        <Paper withBorder p="md">
          <Suspense fallback={<Skeleton h={260} />}>{days ? <DailyChart days={days} /> : <Skeleton h={260} />}</Suspense>
        </Paper>
      </section>

      <section aria-labelledby="dashboard-plans">
        <Title order={3} size="h4" mb="sm" id="dashboard-plans">
          {t('dashboard.plans.title')}
        </Title>
        <Stack>
          <PlanStats plans={planFigures} selected={shownPlan} onSelect={setSelectedPlan} />
          {shownPlan !== undefined && query && (
            <Suspense fallback={<Skeleton h={480} />}>
              <PlanDetail planId={shownPlan} query={query} refreshSeconds={refreshSeconds} />
            </Suspense>
          )}
        </Stack>
      </section>
    </Stack>
  );
}
