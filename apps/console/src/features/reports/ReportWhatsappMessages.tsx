import { Badge, Group, Stack, Text } from '@mantine/core';
import type { CallReportRecord, ReportWhatsappMessage } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../lib/format.ts';

const statusColor: Record<ReportWhatsappMessage['status'], string> = { accepted: 'gray', sent: 'blue', delivered: 'teal', read: 'green', failed: 'red' };

/**
 * A WhatsApp chat's messages to the customer, oldest first, each with what Meta last reported of
 * it (sent, delivered, read, failed with its code). An outbound chat's first is the message that
 * opened the conversation (docs/outbound.md, "WhatsApp").
 */
export function ReportWhatsappMessages({ report }: { report: CallReportRecord }) {
  const { t, i18n } = useTranslation();
  const messages = report.whatsapp_messages ?? [];
  return (
    <Stack gap={6}>
      {messages.map((message, index) => (
        <Group key={message.id} justify="space-between" gap="xs" wrap="nowrap" data-testid="report-whatsapp-message">
          <Text size="sm">
            {index === 0 && report.direction === 'outbound' ? t('reports.whatsapp.opening') : t('reports.whatsapp.message', { n: index + 1 })}
            <Text span size="xs" c="dimmed">
              {' · '}
              {formatDateTime(message.sent_time, i18n.language)}
            </Text>
          </Text>
          <Badge variant="light" color={statusColor[message.status]} miw="max-content" title={message.error ?? undefined} data-value={message.status} data-testid="report-whatsapp-status">
            {t(`reports.whatsapp.statuses.${message.status}`)}
            {message.error ? ` · ${message.error.split(' ')[0]}` : ''}
          </Badge>
        </Group>
      ))}
    </Stack>
  );
}
