import { Stack, TextInput } from '@mantine/core';
import { type Audio, type AudioUpdate, audioNameMaxLength, audioUpdateSchema } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { AppModal, useDialogTitle } from '../../lib/AppModal.tsx';
import { FormActions } from '../../lib/forms/FormActions.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';
import { AUDIOS } from './use-audios.ts';

/** Only the name of an audio changes; its sound is replaced by uploading another. */
export function AudioRenameModal({ audio, onClose }: { audio: Audio; onClose(): void }) {
  const { t } = useTranslation();
  const { update } = useResourceMutations<Audio, AudioUpdate>(AUDIOS);
  const { form, formRef, onSubmit, submitting } = useSchemaForm<{ name: string }>({
    // The name is required here: an emptied field is sent as '' and refused.
    schema: audioUpdateSchema.required(),
    initialValues: { name: audio.name },
    submit: (values) => update.mutateAsync({ id: audio.id, input: values }),
    onSuccess: () => {
      toast('success', t('audios.renamed'));
      onClose();
    },
  });
  return (
    <AppModal opened onClose={onClose} size="md" title={useDialogTitle('audios', 'rename')}>
      <form ref={formRef} onSubmit={onSubmit} noValidate>
        <Stack>
          <TextInput label={t('audios.name')} withAsterisk autoComplete="off" maxLength={audioNameMaxLength} {...form.getInputProps('name')} data-testid="audio-rename-name" />
          <FormActions onCancel={onClose} submitting={submitting} submitTestId="audio-rename-save" />
        </Stack>
      </form>
    </AppModal>
  );
}
