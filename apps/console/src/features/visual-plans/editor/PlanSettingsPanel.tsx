import { Badge, Button, Code, CopyButton, Group, Modal, NumberInput, Select, Stack, Switch, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type PlanSettings, planSettingsSchema } from '@voxplan/blocks/definitions';
import { growingTextarea } from '@voxplan/blocks/editor/textarea';
import type { WebhookDelivery, WebhookSecret } from '@voxplan/contracts';
import { espeakVoices, planLanguageOf, planLanguages } from '@voxplan/contracts/voices';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../lib/api/client.ts';
import { showError } from '../../../lib/errors.ts';
import { formatDateTime } from '../../../lib/format.ts';
import { translateIssue } from '../../../lib/forms/validation.ts';
import { toast } from '../../../lib/notify.ts';
import { useEditorContext } from './editor-context.tsx';

/** The settings' problems as the user types, in their language, by field. */
function settingsErrors(settings: PlanSettings, t: (key: string, options?: Record<string, unknown>) => string): Record<string, string> {
  const result = planSettingsSchema.safeParse(settings);
  if (result.success) return {};
  const errors: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const field = String(issue.path[0] ?? '');
    errors[field] ??=
      issue.code === 'custom' && field === 'webhook'
        ? t('editor.settings.webhookInvalid')
        : issue.code === 'custom' && field === 'twilio_voice'
          ? t('editor.settings.voiceMismatch')
          : translateIssue(issue as never, t as never);
  }
  return errors;
}

function WebhookSecretButton({ tenantId }: { tenantId: number }) {
  const { t } = useTranslation();
  const [opened, setOpened] = useState(false);
  const queryClient = useQueryClient();
  const secret = useQuery({
    queryKey: ['/webhook-secret', tenantId],
    queryFn: () => api.get<WebhookSecret>('/webhook-secret', { tenantId }),
    enabled: opened,
  });
  const rotate = useMutation({
    mutationFn: () => api.post<WebhookSecret>('/webhook-secret', undefined, { tenantId }),
    onSuccess: (fresh) => {
      queryClient.setQueryData(['/webhook-secret', tenantId], fresh);
      toast('success', t('editor.settings.secretRotated'));
    },
    onError: (error) => showError(error, t),
  });
  return (
    <>
      <Button variant="default" size="xs" onClick={() => setOpened(true)} data-testid="webhook-secret">
        {t('editor.settings.secret')}
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title={t('editor.settings.secret')} size="lg">
        <Stack>
          <Text size="sm">{t('editor.settings.secretHint')}</Text>
          {secret.data && (
            <Group wrap="nowrap" align="center">
              <Code style={{ flex: 1, wordBreak: 'break-all' }} data-testid="webhook-secret-value">
                {secret.data.secret}
              </Code>
              <CopyButton value={secret.data.secret}>
                {({ copied, copy }) => (
                  <Button size="xs" variant="light" onClick={copy}>
                    {t(copied ? 'common.copied' : 'common.copy')}
                  </Button>
                )}
              </CopyButton>
            </Group>
          )}
          {secret.isError && <Text c="red" size="sm">{t('editor.settings.secretUnavailable')}</Text>}
          <Group justify="flex-end">
            <Button color="red" variant="light" loading={rotate.isPending} onClick={() => rotate.mutate()} data-testid="webhook-secret-rotate">
              {t('editor.settings.secretRotate')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

const deliveryColors: Record<WebhookDelivery['status'], string> = { pending: 'yellow', delivered: 'teal', failed: 'red' };

function WebhookDeliveriesButton({ planId, tenantId, readOnly }: { planId: number; tenantId: number; readOnly: boolean }) {
  const { t, i18n } = useTranslation();
  const [opened, setOpened] = useState(false);
  const deliveries = useQuery({
    queryKey: ['/webhook-deliveries', tenantId, planId],
    queryFn: () => api.get<WebhookDelivery[]>('/webhook-deliveries', { query: { filter: { where: { plan_id: planId }, order: ['id DESC'], limit: 50 } }, tenantId }),
    enabled: opened,
    refetchInterval: opened ? 5_000 : false,
  });
  const redeliver = useMutation({
    mutationFn: (id: number) => api.post(`/webhook-deliveries/${id}/redeliver`, undefined, { tenantId }),
    onSuccess: () => {
      toast('success', t('editor.settings.redelivering'));
      void deliveries.refetch();
    },
    onError: (error) => showError(error, t),
  });
  return (
    <>
      <Button variant="default" size="xs" onClick={() => setOpened(true)} data-testid="webhook-deliveries">
        {t('editor.settings.deliveries')}
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title={t('editor.settings.deliveries')} size="xl">
        {deliveries.data?.length === 0 && <Text c="dimmed">{t('editor.settings.noDeliveries')}</Text>}
        {(deliveries.data?.length ?? 0) > 0 && (
          <Table.ScrollContainer minWidth={560}>
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('editor.settings.deliveryTime')}</Table.Th>
                  <Table.Th>{t('editor.settings.deliveryEvent')}</Table.Th>
                  <Table.Th>{t('editor.settings.deliveryStatus')}</Table.Th>
                  <Table.Th>{t('editor.settings.deliveryAttempts')}</Table.Th>
                  <Table.Th>{t('editor.settings.deliveryAnswer')}</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {deliveries.data?.map((delivery) => (
                  <Table.Tr key={delivery.id}>
                    <Table.Td>{formatDateTime(delivery.created_time, i18n.language)}</Table.Td>
                    <Table.Td>{delivery.event}</Table.Td>
                    <Table.Td>
                      <Badge color={deliveryColors[delivery.status]} variant="light">
                        {t(`editor.settings.deliveryStatuses.${delivery.status}`)}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{delivery.attempts}</Table.Td>
                    <Table.Td>{delivery.last_status ?? delivery.last_error ?? '—'}</Table.Td>
                    <Table.Td>
                      {!readOnly && (
                        <Button size="compact-xs" variant="subtle" onClick={() => redeliver.mutate(delivery.id)}>
                          {t('editor.settings.redeliver')}
                        </Button>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Modal>
    </>
  );
}

/**
 * Twilio's voices for the plan's language (the list's only: another language's voice can make
 * Twilio's `<Say>` fail). A voice chosen before the language changed stays listed, so the user sees
 * what the save will refuse.
 */
function twilioVoiceOptions(settings: PlanSettings, t: (key: string) => string): Array<{ value: string; label: string }> {
  const voices = planLanguageOf(settings.language)?.twilio ?? [];
  const options = [
    { value: '', label: t('editor.settings.defaultVoice') },
    ...voices.map(({ id, gender }) => ({ value: id, label: `${id} · ${t(`editor.settings.genders.${gender}`)}` })),
  ];
  if (settings.twilio_voice !== '' && !voices.some((voice) => voice.id === settings.twilio_voice)) options.push({ value: settings.twilio_voice, label: settings.twilio_voice });
  return options;
}

/** The plan's own settings (blocks.md, "settings"), shown when no block is selected. */
export function PlanSettingsPanel({ settings, onChange }: { settings: PlanSettings; onChange(settings: PlanSettings, field: string): void }) {
  const { t } = useTranslation();
  const { readOnly, planId, tenantId } = useEditorContext();
  const errors = settingsErrors(settings, t);
  const set = <K extends keyof PlanSettings>(field: K, value: PlanSettings[K]) => onChange({ ...settings, [field]: value }, field);
  return (
    <Stack gap="sm" p="sm" data-testid="plan-settings">
      <Title order={4}>{t('editor.settings.title')}</Title>
      <NumberInput
        label={t('editor.settings.sessionTimeout')}
        description={t('editor.settings.sessionTimeoutHint')}
        min={1}
        max={10_080}
        clampBehavior="none"
        allowDecimal={false}
        value={settings.session_timeout_min}
        onChange={(value) => set('session_timeout_min', typeof value === 'number' ? value : Number.NaN)}
        error={errors.session_timeout_min}
        readOnly={readOnly}
        data-testid="settings-session-timeout"
      />
      <Textarea
        label={t('editor.settings.chatText')}
        description={t('editor.settings.chatTextHint')}
        {...growingTextarea(2, 12)}
        value={settings.chat_text}
        onChange={(event) => set('chat_text', event.currentTarget.value)}
        error={errors.chat_text}
        readOnly={readOnly}
        data-testid="settings-chat-text"
      />
      <Switch
        label={t('editor.settings.syncWithVoice')}
        description={t('editor.settings.syncWithVoiceHint')}
        checked={settings.sync_with_voice_text}
        onChange={(event) => set('sync_with_voice_text', event.currentTarget.checked)}
        disabled={readOnly}
        data-testid="settings-sync"
      />
      <Select
        label={t('editor.settings.language')}
        description={t('editor.settings.languageHint')}
        data={[{ value: '', label: t('editor.settings.tenantLanguage') }, ...planLanguages.map(({ tag, name }) => ({ value: tag, label: `${name} · ${tag}` }))]}
        value={settings.language}
        onChange={(value) => set('language', value ?? '')}
        allowDeselect={false}
        readOnly={readOnly}
        data-testid="settings-language"
      />
      <Select
        label={t('editor.settings.twilioVoice')}
        description={t('editor.settings.twilioVoiceHint')}
        data={twilioVoiceOptions(settings, t)}
        value={settings.twilio_voice}
        onChange={(value) => set('twilio_voice', value ?? '')}
        error={errors.twilio_voice}
        searchable
        allowDeselect={false}
        readOnly={readOnly}
        data-testid="settings-twilio-voice"
      />
      <Select
        label={t('editor.settings.ttsVoice')}
        description={t('editor.settings.ttsVoiceHint')}
        data={[{ value: '', label: t('editor.settings.defaultVoice') }, ...espeakVoices.map(({ id, gender }) => ({ value: id, label: `${id} · ${t(`editor.settings.genders.${gender}`)}` }))]}
        value={settings.tts_voice}
        onChange={(value) => set('tts_voice', (value ?? '') as PlanSettings['tts_voice'])}
        allowDeselect={false}
        readOnly={readOnly}
        data-testid="settings-tts-voice"
      />
      <TextInput
        label={t('editor.settings.webhook')}
        description={t('editor.settings.webhookHint')}
        value={settings.webhook}
        onChange={(event) => set('webhook', event.currentTarget.value)}
        error={errors.webhook}
        readOnly={readOnly}
        data-testid="settings-webhook"
      />
      <Group gap="xs">
        {!readOnly && <WebhookSecretButton tenantId={tenantId} />}
        <WebhookDeliveriesButton planId={planId} tenantId={tenantId} readOnly={readOnly} />
      </Group>
    </Stack>
  );
}
