import { Alert, Text } from '@mantine/core';
import { useInterval } from '@mantine/hooks';
import { IconClockHour4, IconLock } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/** The time left is shown to the minute: a tick this often keeps it right without a reload. */
const TICK_MS = 15_000;
/** In its last hour the window's notice turns into a warning. */
export const WINDOW_WARNING_MS = 60 * 60 * 1000;

/**
 * Milliseconds left in the customer service window (docs/conversations.md), counted down by the
 * page's own clock; null where the chat has no window (`closesAt` null). Zero or less: closed.
 */
export function useWindowLeft(closesAt: string | null): number | null {
  const [now, setNow] = useState(() => Date.now());
  useInterval(() => setNow(Date.now()), TICK_MS, { autoInvoke: true });
  return closesAt === null ? null : Date.parse(closesAt) - now;
}

/** "3 h 12 min", "12 min", "less than a minute": whole minutes left, rounded down. */
export function timeLeftText(left: number, t: (key: string, options?: Record<string, unknown>) => string): string {
  const minutes = Math.floor(left / 60_000);
  if (minutes < 1) return t('conversations.window.underAMinute');
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return t('conversations.window.minutes', { count: rest });
  return rest === 0 ? t('conversations.window.hours', { hours }) : t('conversations.window.hoursMinutes', { hours, minutes: rest });
}

/**
 * Above the composer of a chat whose channel has a customer service window: how long is left
 * (a warning in its last hour), or that it closed and only a template may go.
 */
export function WindowNotice({ left }: { left: number }) {
  const { t } = useTranslation();
  const closed = left <= 0;
  const warning = !closed && left <= WINDOW_WARNING_MS;
  const state = closed ? 'closed' : warning ? 'warning' : 'open';
  const Icon = closed ? IconLock : IconClockHour4;
  const text = closed
    ? t('conversations.window.closed')
    : warning
      ? t('conversations.window.closingSoon', { time: timeLeftText(left, t) })
      : t('conversations.window.closesIn', { time: timeLeftText(left, t) });
  if (state === 'open') {
    return (
      <Text size="sm" c="dimmed" mb={6} role="status" data-state={state} data-testid="conversation-window" style={{ display: 'flex', gap: 6, alignItems: 'center' }}>
        <Icon size={16} aria-hidden />
        {text}
      </Text>
    );
  }
  // The light variant's orange keeps AA contrast in both schemes, as the chat's other warnings do.
  return (
    <Alert variant="light" color="orange" p={6} mb={6} icon={<Icon size={16} aria-hidden />} role="status" data-state={state} data-testid="conversation-window" styles={{ icon: { marginInlineEnd: 6 } }}>
      <Text size="sm" fw={warning ? 600 : undefined} c="var(--mantine-color-text)">
        {text}
      </Text>
    </Alert>
  );
}
