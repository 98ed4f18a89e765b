import { Group, Paper, Progress, SimpleGrid, Stack, Text } from '@mantine/core';
import type { CampaignOutcome, CampaignProgress } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { formatDateTime, formatNumber } from '../../lib/format.ts';

/** The outcomes always shown; the rarer ones (cancelled, invalid) only once they happened. */
const shownOutcomes: readonly CampaignOutcome[] = ['answer', 'busy', 'no_answer', 'failed', 'machine', 'dont_call'];
const rareOutcomes: readonly CampaignOutcome[] = ['cancel', 'invalid_args'];
/** A WhatsApp campaign's: a conversation opened, or not (docs/outbound.md, "WhatsApp"). */
const messageOutcomes: readonly CampaignOutcome[] = ['answer', 'failed', 'dont_call'];

export const outcomeColor: Partial<Record<CampaignOutcome, string>> = { answer: 'teal', machine: 'grape', busy: 'yellow', no_answer: 'orange', failed: 'red', dont_call: 'gray' };

function Count({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Paper withBorder p="xs" data-testid={testId}>
      <Text size="xs" c="dimmed" lh={1.2}>
        {label}
      </Text>
      <Text fz="lg" fw={700} data-testid={`${testId}-value`}>
        {value}
      </Text>
    </Paper>
  );
}

/** "12 / 40": the contacts done of those imported. */
export function progressText(progress: CampaignProgress | undefined, language: string): string {
  if (!progress) return '—';
  return `${formatNumber(progress.done, language)} / ${formatNumber(progress.total, language)}`;
}

/** A bar of the done contacts, coloured by outcome. */
export function ProgressBar({ progress, size = 'lg' }: { progress: CampaignProgress | undefined; size?: 'sm' | 'lg' }) {
  const { t, i18n } = useTranslation();
  const total = progress?.total ?? 0;
  return (
    <Progress.Root size={size} data-testid="campaign-progress-bar">
      {total > 0 &&
        [...shownOutcomes, ...rareOutcomes].map((outcome) => {
          const count = progress?.by_outcome[outcome] ?? 0;
          if (count === 0) return null;
          // Each part is a progress bar of its own for a screen reader: it says which outcome, and how many.
          const label = t('campaigns.progress.part', { outcome: t(`campaigns.results.${outcome}`), figure: formatNumber(count, i18n.language) });
          return <Progress.Section key={outcome} value={(count / total) * 100} color={outcomeColor[outcome] ?? 'dark'} aria-label={label} title={label} />;
        })}
    </Progress.Root>
  );
}

/**
 * A WhatsApp campaign's number against Meta's messaging limit: "Reached today: 180 of 250", and,
 * once it is reached with contacts left, when they go on (docs/outbound.md, "Daily reach").
 */
function ReachLine({ reach, pending }: { reach: NonNullable<CampaignProgress['reach']>; pending: number }) {
  const { t, i18n } = useTranslation();
  const reached = formatNumber(reach.reached, i18n.language);
  const full = reach.limit !== null && reach.reached >= reach.limit && pending > 0;
  return (
    <Paper withBorder p="xs" data-testid="campaign-reach" title={t('campaigns.progress.reachHint')}>
      <Text size="sm" fw={600} data-testid="campaign-reach-value">
        {reach.limit === null
          ? t('campaigns.progress.reachedTodayUnlimited', { reached })
          : t('campaigns.progress.reachedToday', { reached, limit: formatNumber(reach.limit, i18n.language) })}
      </Text>
      <Text size="xs" c="dimmed">
        {t('campaigns.progress.reachHint')}
      </Text>
      {full && (
        <Text size="xs" c="orange.8" data-testid="campaign-reach-waiting">
          {t('campaigns.progress.reachWaiting', { time: formatDateTime(reach.frees_at, i18n.language) ?? '—' })}
        </Text>
      )}
    </Paper>
  );
}

/**
 * Where the campaign's contacts are: pending, being called, done by outcome, and the calls placed
 * so far. The figures are the server's (`/campaigns/{id}/progress`), asked again while it runs.
 */
export function CampaignProgressView({ progress }: { progress: CampaignProgress | undefined }) {
  const { t, i18n } = useTranslation();
  const number = (value: number | undefined) => (progress ? formatNumber(value ?? 0, i18n.language) : '—');
  // A WhatsApp campaign rings nobody: no busy line, no answering machine; its attempts are conversations started.
  const whatsapp = Boolean(progress?.reach);
  const shown = whatsapp ? messageOutcomes : shownOutcomes;
  const outcomes = [...shown, ...[...rareOutcomes, ...shownOutcomes].filter((outcome) => !shown.includes(outcome) && (progress?.by_outcome[outcome] ?? 0) > 0)];
  return (
    <Stack gap="sm" data-testid="campaign-progress">
      <Group justify="space-between" gap="xs">
        <Text fw={600} data-testid="campaign-progress-done">
          {t('campaigns.progress.doneOf', { done: number(progress?.done), total: number(progress?.total) })}
        </Text>
        <Text size="sm" c="dimmed" data-testid="campaign-progress-attempts">
          {t(whatsapp ? 'campaigns.progress.conversations' : 'campaigns.progress.attempts', { count: progress?.attempts ?? 0, formatted: number(progress?.attempts) })}
        </Text>
      </Group>
      <ProgressBar progress={progress} />
      {progress?.reach && <ReachLine reach={progress.reach} pending={progress.pending} />}
      <SimpleGrid cols={{ base: 3, sm: 3 }} spacing="xs">
        <Count label={t('campaigns.progress.pending')} value={number(progress?.pending)} testId="campaign-pending" />
        <Count label={t('campaigns.progress.inProgress')} value={number(progress?.in_progress)} testId="campaign-in-progress" />
        <Count label={t('campaigns.progress.done')} value={number(progress?.done)} testId="campaign-done" />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 2, xs: 3, md: whatsapp ? 3 : 6 }} spacing="xs">
        {outcomes.map((outcome) => (
          <Count key={outcome} label={t(`campaigns.results.${outcome}`)} value={number(progress?.by_outcome[outcome])} testId={`campaign-outcome-${outcome}`} />
        ))}
      </SimpleGrid>
    </Stack>
  );
}
