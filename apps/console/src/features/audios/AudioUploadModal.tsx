import { FileInput, Stack, TextInput } from '@mantine/core';
import { IconUpload } from '@tabler/icons-react';
import { type Audio, audioNameMaxLength, audioUploadFieldsSchema, bytesPerMb } from '@voxplan/contracts';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { api } from '../../lib/api/client.ts';
import { AppModal } from '../../lib/AppModal.tsx';
import { FormActions } from '../../lib/forms/FormActions.tsx';
import { TenantChoiceField, useTenantChoice } from '../../lib/forms/tenant-choice.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';
import { AUDIOS, useAudioLimits } from './use-audios.ts';
import { LanguageSelect } from './voice-options.tsx';

type Values = { name: string; language: string; file: File | null };

const ACCEPT = 'audio/wav,audio/x-wav,audio/mpeg,audio/ogg,.wav,.mp3,.ogg';

/** A file's name without its extension, as the audio's name when none was typed. */
const baseName = (file: File) => file.name.replace(/\.[^.]+$/, '').slice(0, audioNameMaxLength);

/**
 * Upload: a name, an optional language and a file no bigger than the audio_max_size_mb setting,
 * checked here with the server's own message before anything is sent. The server checks it
 * again, and the format from the content.
 */
export function AudioUploadModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const { t } = useTranslation();
  const { invalidate } = useResourceMutations(AUDIOS);
  const limits = useAudioLimits();
  const tenant = useTenantChoice(true);
  const maxSize = limits.data?.max_size_mb;

  const schema = useMemo(
    () =>
      audioUploadFieldsSchema.extend({
        file: z
          .custom<File>((value) => value instanceof File, 'required')
          .refine((file) => maxSize === undefined || file.size <= maxSize * bytesPerMb, t('errors.file_too_large', { maxSize })),
      }),
    [maxSize, t],
  );

  const { form, formRef, onSubmit, submitting } = useSchemaForm<Values>({
    schema,
    initialValues: { name: '', language: '', file: null },
    tenant,
    submit: (values) => {
      const body = new FormData();
      // The fields before the file: the server reads them as they arrive.
      body.append('name', values.name ?? '');
      if (values.language) body.append('language', values.language);
      if (values.file) body.append('file', values.file, values.file.name);
      return api.post<Audio>(`${AUDIOS}/upload`, body, { tenantId: tenant.tenantId });
    },
    onSuccess: () => {
      void invalidate();
      toast('success', t('audios.uploaded'));
      onClose();
    },
  });

  return (
    <AppModal opened={opened} onClose={onClose} size="md" title={t('audios.uploadTitle')}>
      <form ref={formRef} onSubmit={onSubmit} noValidate>
        <Stack>
          <TenantChoiceField choice={tenant} />
          <TextInput label={t('audios.name')} withAsterisk autoComplete="off" maxLength={audioNameMaxLength} {...form.getInputProps('name')} data-testid="audio-upload-name" />
          <FileInput
            label={t('audios.file')}
            description={maxSize === undefined ? undefined : t('audios.fileHint', { maxSize })}
            placeholder={t('audios.filePlaceholder')}
            withAsterisk
            clearable
            accept={ACCEPT}
            leftSection={<IconUpload size={16} />}
            {...form.getInputProps('file')}
            onChange={(file) => {
              form.setFieldValue('file', file);
              form.clearFieldError('file');
              if (file && form.getValues().name.trim() === '') form.setFieldValue('name', baseName(file));
            }}
            data-testid="audio-upload-file"
          />
          <LanguageSelect
            placeholder={t('audios.languageNone')}
            clearable
            {...form.getInputProps('language')}
            value={form.values.language}
            onChange={(value) => form.setFieldValue('language', value)}
            data-testid="audio-upload-language"
          />
          <FormActions onCancel={onClose} submitting={submitting} disabled={limits.isPending} submitTestId="audio-upload-submit" submitLabel={t('audios.uploadAction')} />
        </Stack>
      </form>
    </AppModal>
  );
}
