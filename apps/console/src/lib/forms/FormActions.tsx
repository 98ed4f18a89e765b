import { Button, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useCanWrite } from '../auth.tsx';

/**
 * Cancel and submit at the foot of a modal form; the submit button shows the request running.
 * A guest's forms are read-only (AppModal): nothing to submit, and the modal closes from its header.
 */
export function FormActions({ onCancel, submitting, submitTestId, submitLabel, disabled }: { onCancel(): void; submitting: boolean; submitTestId: string; submitLabel?: string; disabled?: boolean }) {
  const { t } = useTranslation();
  if (!useCanWrite()) return null;
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onCancel}>
        {t('common.cancel')}
      </Button>
      <Button type="submit" loading={submitting} disabled={disabled} data-testid={submitTestId}>
        {submitLabel ?? t('common.save')}
      </Button>
    </Group>
  );
}
