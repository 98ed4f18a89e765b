import { Button, FileButton, Group, Stack, Textarea } from '@mantine/core';
import { IconUpload } from '@tabler/icons-react';
import { type LicenseInfo, licenseActivateSchema } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { AppModal } from '../../lib/AppModal.tsx';
import { FormActions } from '../../lib/forms/FormActions.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { useLicenseActions } from './use-license.ts';

/** The document's longest accepted text; a file larger than it cannot be a licence, and is not read. */
const MAX_LENGTH = licenseActivateSchema.shape.license.maxLength ?? 16_384;

/**
 * Activation: the licence document the vendor sent, pasted, or read from its file into the same
 * field (so what is sent can be seen before sending). The server checks its signature, its
 * hardware id and its dates, and says which of them failed.
 */
export function ActivateLicenseModal({ onClose, onActivated }: { onClose(): void; onActivated(info: LicenseInfo): void }) {
  const { t } = useTranslation();
  const { activate } = useLicenseActions();
  const { form, formRef, onSubmit, submitting } = useSchemaForm({
    schema: licenseActivateSchema,
    initialValues: { license: '' },
    submit: (values) => activate.mutateAsync(values.license ?? ''),
    onSuccess: (info) => onActivated(info as LicenseInfo),
  });

  const readFile = async (file: File | null) => {
    if (!file) return;
    // A character takes up to four bytes: beyond four times the limit the text cannot fit, so it is not read.
    const text = file.size > MAX_LENGTH * 4 ? null : await file.text();
    if (text === null || text.trim().length > MAX_LENGTH) {
      form.setFieldError('license', t('license.fileTooLarge', { name: file.name }));
      return;
    }
    form.setFieldValue('license', text.trim());
    form.clearFieldError('license');
  };

  return (
    <AppModal opened onClose={onClose} size="lg" title={t('license.activateTitle')}>
      <form ref={formRef} onSubmit={onSubmit} noValidate>
        <Stack>
          <Textarea
            label={t('license.document')}
            description={t('license.documentHint')}
            withAsterisk
            autosize
            minRows={6}
            maxRows={14}
            spellCheck={false}
            autoComplete="off"
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 'var(--mantine-font-size-xs)' } }}
            {...form.getInputProps('license')}
            data-testid="license-document"
          />
          <Group>
            <FileButton onChange={(file) => void readFile(file)} accept=".lic,.txt,text/plain">
              {(props) => (
                <Button {...props} variant="default" leftSection={<IconUpload size={16} />} data-testid="license-file">
                  {t('license.upload')}
                </Button>
              )}
            </FileButton>
          </Group>
          <FormActions onCancel={onClose} submitting={submitting} submitTestId="license-activate-save" submitLabel={t('license.activate')} />
        </Stack>
      </form>
    </AppModal>
  );
}
