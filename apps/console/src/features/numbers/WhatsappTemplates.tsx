import { Badge, Button, Code, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { IconRefresh } from '@tabler/icons-react';
import type { PhoneNumber } from '@voxplan/contracts';
import type { WhatsAppTemplate } from '@voxplan/contracts/whatsapp-templates';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api/client.ts';
import { useCanWrite } from '../../lib/auth.tsx';
import { showError } from '../../lib/errors.ts';
import { formatDateTime } from '../../lib/format.ts';
import { toast } from '../../lib/notify.ts';

// Filled, in shades whose text (white, or black on the light ones: autoContrast) keeps WCAG AA in both schemes.
const statusColor: Record<string, string> = { approved: 'teal.9', pending: 'yellow.4', in_appeal: 'yellow.4', rejected: 'red.9', paused: 'orange.4', disabled: 'gray.7', flagged: 'orange.4' };
const knownStatuses = ['approved', 'pending', 'rejected', 'paused', 'disabled', 'in_appeal', 'pending_deletion', 'deleted', 'limit_exceeded', 'archived', 'flagged'];

type SyncAnswer = { templates: number; added: number; updated: number; removed: number };

/** A template in the list: its name, language, category and status, its body and the values it takes. */
function TemplateCard({ template }: { template: WhatsAppTemplate }) {
  const { t } = useTranslation();
  const status = knownStatuses.includes(template.status) ? t(`numbers.templateStatus.${template.status}`) : template.status;
  return (
    <Paper withBorder p="sm" data-testid="number-template" data-name={template.name} data-status={template.status}>
      <Stack gap={6}>
        <Group gap="xs" justify="space-between" wrap="wrap">
          <Text fw={600} style={{ wordBreak: 'break-all' }} data-testid="number-template-name">
            {template.name}
          </Text>
          <Group gap={6} wrap="wrap">
            <Badge variant="default" tt="none" data-testid="number-template-language">
              {template.language}
            </Badge>
            <Badge variant="default" data-testid="number-template-category">
              {t(`numbers.templateCategory.${template.category}`)}
            </Badge>
            <Badge variant="filled" autoContrast color={statusColor[template.status] ?? 'gray.7'} data-testid="number-template-status">
              {status}
            </Badge>
          </Group>
        </Group>
        {template.rejected_reason && (
          <Text size="sm" data-testid="number-template-reason">
            {t('numbers.templateRejectedReason', { reason: template.rejected_reason })}
          </Text>
        )}
        <Text size="sm" c="dimmed" lineClamp={3} style={{ whiteSpace: 'pre-wrap' }}>
          {template.body_text}
        </Text>
        <Group gap={6} wrap="wrap" data-testid="number-template-parameters">
          <Text size="xs" c="dimmed">
            {template.parameters.length === 0 ? t('numbers.templateNoParameters') : t('numbers.templateParameters')}
          </Text>
          {template.parameters.map((parameter) => (
            <Code key={parameter.key} data-testid="number-template-parameter">
              {parameter.key} · {t(`numbers.templateParameterType.${parameter.type}`)}
            </Code>
          ))}
        </Group>
      </Stack>
    </Paper>
  );
}

/**
 * A WhatsApp number's message templates, read-only (docs/channels-whatsapp.md, "Templates"): as
 * last synced from Meta, with a button that syncs them now (writers only).
 */
export function WhatsappTemplates({ number }: { number: PhoneNumber }) {
  const { t, i18n } = useTranslation();
  const canWrite = useCanWrite();
  const queryClient = useQueryClient();
  const queryKey = ['/whatsapp-templates', number.id];
  const templates = useQuery({
    queryKey,
    queryFn: ({ signal }) =>
      api.get<WhatsAppTemplate[]>('/whatsapp-templates', { signal, tenantId: number.tenant_id, query: { filter: { where: { number_id: number.id }, limit: 500 } } }),
  });
  const sync = useMutation({
    mutationFn: () => api.post<SyncAnswer>(`/numbers/${number.id}/whatsapp-templates/sync`, undefined, { tenantId: number.tenant_id }),
    onSuccess: async (answer) => {
      toast('success', t('numbers.templatesSynced', { count: answer.templates, added: answer.added, removed: answer.removed }));
      await queryClient.invalidateQueries({ queryKey });
    },
    onError: (error) => showError(error, t),
  });
  const rows = templates.data ?? [];
  const lastSync = rows.reduce<string | null>((latest, template) => (latest === null || template.synced_at > latest ? template.synced_at : latest), null);
  return (
    <Stack gap="xs" data-testid="number-templates">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <div>
          <Title order={4}>{t('numbers.templates')}</Title>
          <Text size="xs" c="dimmed" data-testid="number-templates-synced">
            {lastSync ? t('numbers.templatesLastSync', { time: formatDateTime(lastSync, i18n.language) }) : t('numbers.templatesHint')}
          </Text>
        </div>
        {canWrite && (
          <Button
            type="button"
            variant="default"
            size="xs"
            leftSection={<IconRefresh size={14} />}
            loading={sync.isPending}
            disabled={number.whatsapp_business_account_id === ''}
            onClick={() => sync.mutate()}
            data-testid="number-templates-sync"
          >
            {t('numbers.templatesSync')}
          </Button>
        )}
      </Group>
      {number.whatsapp_business_account_id === '' ? (
        <Text size="sm" c="dimmed" data-testid="number-templates-no-account">
          {t('numbers.templatesNeedAccount')}
        </Text>
      ) : templates.isSuccess && rows.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="number-templates-empty">
          {t('numbers.templatesEmpty')}
        </Text>
      ) : (
        rows.map((template) => <TemplateCard key={template.id} template={template} />)
      )}
    </Stack>
  );
}
