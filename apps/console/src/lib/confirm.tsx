import { Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import i18n from 'i18next';

/** The removal dialog of spec section 2: a title, a message, Cancel and a red confirm button. */
export function confirmRemoval(options: { title?: string; message: string; confirmLabel?: string; onConfirm(): void }): void {
  modals.openConfirmModal({
    title: options.title ?? i18n.t('table.removeTitle'),
    children: <Text size="sm">{options.message}</Text>,
    labels: { confirm: options.confirmLabel ?? i18n.t('common.remove'), cancel: i18n.t('common.cancel') },
    confirmProps: { color: 'red', 'data-testid': 'confirm-remove' } as Record<string, string>,
    onConfirm: options.onConfirm,
  });
}
