import { Alert, Button, Group, Progress, Select, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck } from '@tabler/icons-react';
import { type Audio, audioNameMaxLength, audioTextMaxLength, audioTtsSchema } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api/client.ts';
import { AppModal } from '../../lib/AppModal.tsx';
import { FormActions } from '../../lib/forms/FormActions.tsx';
import { TenantChoiceField, useTenantChoice } from '../../lib/forms/tenant-choice.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';
import { AUDIOS, useLiveAudio } from './use-audios.ts';
import { LanguageSelect, useVoiceOptions } from './voice-options.tsx';

type Values = { name: string; text: string; language: string; voice: string };

/** How the generation goes, until the audio is ready or failed. */
function GenerationProgress({ audio, onClose }: { audio: Audio; onClose(): void }) {
  const { t } = useTranslation();
  const live = useLiveAudio(audio);
  return (
    <Stack>
      {live.status === 'generating' && (
        <>
          <Text size="sm">{t('audios.generatingProgress', { progress: live.progress })}</Text>
          <Progress value={live.progress} animated aria-label={t('audios.progress')} data-testid="tts-progress" />
        </>
      )}
      {live.status === 'ready' && (
        <Alert color="teal" icon={<IconCircleCheck size={18} />} data-testid="tts-ready">
          {t('audios.generated', { name: live.name })}
        </Alert>
      )}
      {live.status === 'failed' && (
        <Alert color="red" icon={<IconAlertTriangle size={18} />} data-testid="tts-failed">
          {t('audios.generationFailed')}
        </Alert>
      )}
      <Group justify="flex-end">
        <Button onClick={onClose} data-testid="tts-close">
          {live.status === 'generating' ? t('audios.generateInBackground') : t('common.close')}
        </Button>
      </Group>
    </Stack>
  );
}

/** Text to speech: the request returns at once with the audio generating; the modal then follows it. */
export function AudioTtsModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const { t, i18n } = useTranslation();
  const { invalidate } = useResourceMutations(AUDIOS);
  const voices = useVoiceOptions();
  const [started, setStarted] = useState<Audio | null>(null);
  const tenant = useTenantChoice(true);

  const { form, formRef, onSubmit, submitting } = useSchemaForm<Values>({
    schema: audioTtsSchema,
    initialValues: { name: '', text: '', language: i18n.language === 'pt' ? 'pt-br' : 'en-us', voice: '' },
    tenant,
    submit: (values) => api.post<Audio>(`${AUDIOS}/tts`, values, { tenantId: tenant.tenantId }),
    onSuccess: (audio) => {
      void invalidate();
      setStarted(audio as Audio);
    },
  });

  return (
    <AppModal opened={opened} onClose={onClose} size="lg" title={t('audios.ttsTitle')}>
      {started ? (
        <GenerationProgress audio={started} onClose={onClose} />
      ) : (
        <form ref={formRef} onSubmit={onSubmit} noValidate>
          <Stack>
            <TenantChoiceField choice={tenant} />
            <TextInput label={t('audios.name')} withAsterisk autoComplete="off" maxLength={audioNameMaxLength} {...form.getInputProps('name')} data-testid="tts-name" />
            <Textarea
              label={t('audios.text')}
              withAsterisk
              autosize
              minRows={3}
              maxRows={10}
              maxLength={audioTextMaxLength}
              {...form.getInputProps('text')}
              data-testid="tts-text"
            />
            <Group grow align="flex-start">
              <LanguageSelect
                withAsterisk
                {...form.getInputProps('language')}
                value={form.values.language}
                onChange={(value) => form.setFieldValue('language', value)}
                data-testid="tts-language"
              />
              <Select
                label={t('audios.voice')}
                placeholder={t('audios.voiceDefault')}
                searchable
                clearable
                data={voices}
                {...form.getInputProps('voice')}
                value={form.values.voice || null}
                onChange={(value) => form.setFieldValue('voice', value ?? '')}
                data-testid="tts-voice"
              />
            </Group>
            <FormActions onCancel={onClose} submitting={submitting} submitTestId="tts-submit" submitLabel={t('audios.generateAction')} />
          </Stack>
        </form>
      )}
    </AppModal>
  );
}
