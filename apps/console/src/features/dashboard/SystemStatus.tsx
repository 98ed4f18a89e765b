import { Badge, Group, Paper, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { IconCpu, IconDatabase, IconDeviceFloppy, IconPhoneOff, IconServer, IconVolume } from '@tabler/icons-react';
import type { StatsSystem } from '@voxplan/contracts';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../lib/errors.ts';
import { formatBytes, formatDateTime, formatNumber } from '../../lib/format.ts';
import { useStats } from './use-stats.ts';

/** Below these shares free, the disk and the memory are shown as a problem. */
export const DISK_FREE_MIN = 0.1;
export const MEMORY_FREE_MIN = 0.05;

function freeShare(free: number | null, total: number | null): number | undefined {
  return free === null || total === null || total <= 0 ? undefined : free / total;
}

function StatusCard({ id, icon, title, ok, children }: { id: string; icon: ReactNode; title: string; ok: boolean | undefined; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <Paper withBorder p="md" data-testid={`system-${id}`} data-status={ok === undefined ? 'unknown' : ok ? 'ok' : 'problem'}>
      <Group justify="space-between" wrap="nowrap" mb="xs">
        <Group gap="xs" wrap="nowrap">
          {icon}
          <Text fw={600}>{title}</Text>
        </Group>
        {ok !== undefined && (
          // Filled in the darkest shades: the light variant's teal text is below the AA contrast ratio.
          <Badge color={ok ? 'teal.9' : 'red.9'} variant="filled" style={{ flexShrink: 0 }}>
            {ok ? t('dashboard.system.ok') : t('dashboard.system.problem')}
          </Badge>
        )}
      </Group>
      <Stack gap={2}>{children}</Stack>
    </Paper>
  );
}

/** Server, database, disk, memory and the calls' prompts (`GET /stats/system`), each plainly fine or not. */
export function SystemStatus({ refreshSeconds }: { refreshSeconds: number }) {
  const { t, i18n } = useTranslation();
  const system = useStats<StatsSystem>('/stats/system', undefined, refreshSeconds);
  const language = i18n.language;
  const line = (text: string) => (
    <Text size="sm" c="dimmed">
      {text}
    </Text>
  );
  const data = system.data;
  const diskFree = data && freeShare(data.disk.free_bytes, data.disk.total_bytes);
  const memoryFree = data && freeShare(data.memory.free_bytes, data.memory.total_bytes);
  // "1.2 GB of 8 GB used": a bare percentage left a reader guessing whether it was the free or the used share.
  const usedOfTotal = (free: number | null, total: number | null) =>
    free === null || total === null ? t('dashboard.system.unknown') : t('dashboard.system.used', { used: formatBytes(Math.max(0, total - free), language), total: formatBytes(total, language) });

  return (
    <section aria-labelledby="dashboard-system">
      <Title order={3} size="h4" mb="sm" id="dashboard-system">
        {t('dashboard.system.title')}
      </Title>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }}>
        <StatusCard id="server" icon={<IconServer size={18} />} title={t('dashboard.system.server')} ok={system.isError ? false : data ? true : undefined}>
          {system.isError && line(errorText(system.error, t))}
          {data && line(t('dashboard.system.version', { version: data.server.version }))}
          {data && line(t('dashboard.system.uptime', { duration: uptimeText(data.server.uptime_s, language) }))}
          {!data && !system.isError && <Skeleton h={16} />}
        </StatusCard>
        <StatusCard id="database" icon={<IconDatabase size={18} />} title={t('dashboard.system.database')} ok={data ? data.database.status === 'ok' : undefined}>
          {data && line(data.database.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite')}
          {data && data.database.latency_ms !== null && line(t('dashboard.system.latency', { ms: formatNumber(data.database.latency_ms, language, { maximumFractionDigits: 1 }) }))}
          {data && data.database.size_bytes !== null && line(t('dashboard.system.size', { size: formatBytes(data.database.size_bytes, language) }))}
          {data?.database.status === 'error' && line(t('dashboard.system.databaseError'))}
        </StatusCard>
        <StatusCard id="disk" icon={<IconDeviceFloppy size={18} />} title={t('dashboard.system.disk')} ok={diskFree === undefined ? undefined : diskFree >= DISK_FREE_MIN}>
          {data &&
            line(
              diskFree === undefined
                ? t('dashboard.system.unknown')
                : usedOfTotal(data.disk.free_bytes, data.disk.total_bytes),
            )}
        </StatusCard>
        <StatusCard id="memory" icon={<IconCpu size={18} />} title={t('dashboard.system.memory')} ok={memoryFree === undefined ? undefined : memoryFree >= MEMORY_FREE_MIN}>
          {data && line(usedOfTotal(data.memory.free_bytes, data.memory.total_bytes))}
          {data && line(t('dashboard.system.processMemory', { size: formatBytes(data.memory.process_rss_bytes, language) }))}
        </StatusCard>
        <StatusCard id="prompts" icon={<IconVolume size={18} />} title={t('dashboard.system.prompts')} ok={data ? data.prompts.unplayable_calls === 0 : undefined}>
          {data &&
            line(data.prompts.unplayable_calls === 0 ? t('dashboard.system.promptsNone') : t('dashboard.system.promptsFailed', { count: data.prompts.unplayable_calls }))}
          {data?.prompts.last && line(data.prompts.last.message)}
        </StatusCard>
        <StatusCard id="refusals" icon={<IconPhoneOff size={18} />} title={t('dashboard.system.refusals')} ok={data ? data.refusals.refused_sessions === 0 : undefined}>
          {data &&
            line(data.refusals.refused_sessions === 0 ? t('dashboard.system.refusalsNone') : t('dashboard.system.refusalsSome', { count: data.refusals.refused_sessions }))}
          {data?.refusals.last_at && line(t('dashboard.system.refusalsLast', { time: formatDateTime(data.refusals.last_at, language) }))}
        </StatusCard>
      </SimpleGrid>
    </section>
  );
}

/** Days, hours and minutes, the largest two that apply ("3 d 4 h"). */
function uptimeText(seconds: number, language: string): string {
  const units: [Intl.NumberFormatOptions['unit'], number][] = [
    ['day', 86_400],
    ['hour', 3600],
    ['minute', 60],
  ];
  const parts: string[] = [];
  let rest = Math.floor(seconds);
  for (const [unit, size] of units) {
    const amount = Math.floor(rest / size);
    rest -= amount * size;
    if (amount > 0 || (parts.length === 0 && unit === 'minute')) parts.push(formatNumber(amount, language, { style: 'unit', unit, unitDisplay: 'narrow' }));
  }
  return parts.slice(0, 2).join(' ');
}
