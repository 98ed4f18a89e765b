import { Badge, Group, Paper, ScrollArea, Stack, Text } from '@mantine/core';
import type { TFunction } from 'i18next';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { actionText, type RunNaming } from './run-texts.ts';
import type { SimulatorInput, TranscriptEntry } from './simulator-state.ts';

function callerText(input: SimulatorInput, label: string | undefined, t: TFunction): string {
  switch (input.type) {
    case 'digits':
      return t('testPanel.caller.digits', { digits: input.digits });
    case 'speech':
      return t('testPanel.caller.speech', { text: input.text });
    case 'message':
      return label ?? input.text;
    case 'timeout':
      return t('testPanel.caller.timeout');
    case 'dial_result':
      return t('testPanel.caller.dialResult', { status: t(`testPanel.dialStatus.${input.status}`) });
    case 'hangup':
      return t('testPanel.caller.hangup');
  }
}

/**
 * The run as it happens: what the caller did and every action of the plan, newest last. A live
 * region, so that a screen reader reads each new line as it comes.
 */
export function Transcript({ entries, naming }: { entries: TranscriptEntry[]; naming: Pick<RunNaming, 'referenceName'> }) {
  const { t } = useTranslation();
  const viewport = useRef<HTMLDivElement>(null);

  useEffect(() => {
    viewport.current?.scrollTo({ top: viewport.current.scrollHeight });
  }, [entries.length]);

  return (
    <ScrollArea.Autosize mah={320} viewportRef={viewport} type="auto" viewportProps={{ tabIndex: 0 }}>
      <Stack gap={6} role="log" aria-live="polite" aria-label={t('testPanel.conversation')} data-testid="test-panel-transcript">
        {entries.length === 0 && (
          <Text size="sm" c="dimmed">
            {t('testPanel.noEntries')}
          </Text>
        )}
        {entries.map((entry, index) =>
          entry.from === 'caller' ? (
            <Paper key={index} p={6} px="xs" ml="xl" radius="md" bg="var(--mantine-primary-color-light)" data-testid="test-panel-caller">
              <Text size="sm">{callerText(entry.input, entry.label, t)}</Text>
            </Paper>
          ) : (
            <Paper key={index} p={6} px="xs" mr="xl" radius="md" withBorder data-testid="test-panel-action" data-action={entry.action.type}>
              <Group gap={6} wrap="nowrap" align="flex-start">
                <Badge size="xs" variant="light" color="gray" style={{ flexShrink: 0 }}>
                  {t(`testPanel.actionType.${entry.action.type}`)}
                </Badge>
                <Text size="sm" style={{ overflowWrap: 'break-word', minWidth: 0 }}>
                  {actionText(entry.action, naming, t)}
                </Text>
              </Group>
            </Paper>
          ),
        )}
      </Stack>
    </ScrollArea.Autosize>
  );
}
