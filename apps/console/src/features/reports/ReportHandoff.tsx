import { Divider, Stack } from '@mantine/core';
import type { CallReportRecord } from '@voxplan/contracts';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDuration } from '../../lib/format.ts';
import { AttachmentView, Bubble, NoteBubble } from '../conversations/Transcript.tsx';
import { Facts } from '../visual-plans/editor/test-panel/RunDetails.tsx';

type Handoff = NonNullable<CallReportRecord['handoffs']>[number];

/** One hand-off of a chat's report: its facts, then what the customer and the person wrote, the person by name, and the agents' private notes set apart. */
function HandoffView({ handoff }: { handoff: Handoff }) {
  const { t } = useTranslation();
  const seconds = (value: number | null) => (value === null ? '—' : formatDuration(value * 1000));
  const rows: Array<[string, ReactNode]> = [
    [t('conversations.fields.queue'), handoff.queue?.name ?? '—'],
    [t('conversations.fields.agent'), handoff.agent?.name ?? '—'],
    [t('reports.handoff.wait'), seconds(handoff.wait_s)],
    [t('reports.handoff.handling'), seconds(handoff.handling_s)],
    [t('conversations.fields.outcome'), handoff.outcome ? t(`conversations.outcome.${handoff.outcome}`) : '—'],
  ];
  const said = handoff.messages.filter((message) => message.author !== 'system');
  return (
    <Stack gap="sm">
      <Facts rows={rows} label={t('reports.handoff.title')} testId="report-handoff" />
      {said.length > 0 && (
        <Stack gap={6} role="log" aria-label={t('conversations.transcript')} data-testid="report-handoff-messages">
          {said.map((message, index) =>
            message.author === 'note' ? (
              <NoteBubble key={index} who={message.agent_name ?? t('conversations.author.agent')} text={message.text} at={message.at} />
            ) : (
            <Bubble
              key={index}
              who={message.author === 'agent' ? (message.agent_name ?? t('conversations.author.agent')) : t(`conversations.author.${message.author}`)}
              text={message.text}
              at={message.at}
              right={message.author !== 'customer'}
            >
              {message.attachment && <AttachmentView attachment={message.attachment} compact />}
            </Bubble>
            ),
          )}
        </Stack>
      )}
    </Stack>
  );
}

/** The chat's hand-offs to people (GET /reports/{id} `handoffs`), oldest first; nothing when it had none. */
export function ReportHandoffs({ report }: { report: CallReportRecord }) {
  const handoffs = report.handoffs ?? [];
  return (
    <Stack gap="md">
      {handoffs.map((handoff, index) => (
        <Stack key={handoff.conversation_id} gap="md">
          {index > 0 && <Divider />}
          <HandoffView handoff={handoff} />
        </Stack>
      ))}
    </Stack>
  );
}
