import { Button, Group } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useCanWrite } from '../auth.tsx';

/**
 * Cancel and submit at the foot of a modal form; the submit button shows the request running.
 * A guest's forms are read-only (AppModal): nothing to submit, and the modal closes from its header.
 */
export function FormActions({
  onCancel,
  submitting,
  submitTestId,
  submitLabel,
  disabled,
  extra,
  onSubmitClick,
}: {
  onCancel(): void;
  submitting: boolean;
  submitTestId: string;
  submitLabel?: string;
  disabled?: boolean;
  /** Another way to submit (a "save as draft"), between cancel and the main submit. */
  extra?: ReactNode;
  /** Runs before the main submit, to tell it from the extra one. */
  onSubmitClick?(): void;
}) {
  const { t } = useTranslation();
  if (!useCanWrite()) return null;
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onCancel}>
        {t('common.cancel')}
      </Button>
      {extra}
      <Button type="submit" loading={submitting} disabled={disabled} data-testid={submitTestId} onClick={onSubmitClick}>
        {submitLabel ?? t('common.save')}
      </Button>
    </Group>
  );
}
