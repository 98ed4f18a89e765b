import { Stack } from '@mantine/core';
import type { CallReportRecord } from '@voxplan/contracts';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDuration } from '../../lib/format.ts';
import type { ConversationMessage, ConversationOutcome } from '../conversations/model.ts';

interface NamedRef {
  id: number;
  name: string;
}
import { authorName, Bubble } from '../conversations/Transcript.tsx';
import { Facts } from '../visual-plans/editor/test-panel/RunDetails.tsx';

/** What a chat report says of its hand-off to a person (docs/conversations.md). */
export interface ReportHandoff {
  queue: NamedRef | null;
  agent: NamedRef | null;
  wait_s: number | null;
  handling_s: number | null;
  outcome: ConversationOutcome | null;
  messages: ConversationMessage[];
}

/** The hand-off of a report, when the chat had one: its facts, then what the customer and the agents wrote, by name. */
export function handoffOf(report: CallReportRecord): ReportHandoff | null {
  return (report as CallReportRecord & { handoff?: ReportHandoff | null }).handoff ?? null;
}

export function ReportHandoffView({ handoff }: { handoff: ReportHandoff }) {
  const { t } = useTranslation();
  const seconds = (value: number | null) => (value === null ? '—' : formatDuration(value * 1000));
  const rows: Array<[string, ReactNode]> = [
    [t('conversations.fields.queue'), handoff.queue?.name ?? '—'],
    [t('conversations.fields.agent'), handoff.agent?.name ?? '—'],
    [t('reports.handoff.wait'), seconds(handoff.wait_s)],
    [t('reports.handoff.handling'), seconds(handoff.handling_s)],
    [t('conversations.fields.outcome'), handoff.outcome ? t(`conversations.outcome.${handoff.outcome}`) : '—'],
  ];
  return (
    <Stack gap="sm">
      <Facts rows={rows} label={t('reports.handoff.title')} testId="report-handoff" />
      {handoff.messages.length > 0 && (
        <Stack gap={6} role="log" aria-label={t('conversations.transcript')} data-testid="report-handoff-messages">
          {handoff.messages
            .filter((message) => message.author !== 'system')
            .map((message) => (
              <Bubble key={message.id} who={authorName(message, handoff.agent, t)} text={message.text} at={message.created_at} right={message.author !== 'customer'} />
            ))}
        </Stack>
      )}
    </Stack>
  );
}
