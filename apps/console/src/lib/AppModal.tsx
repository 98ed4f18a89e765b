import { Modal, type ModalProps } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useCanWrite } from './auth.tsx';
import { type DialogMode, dialogTitleKeys, readOnlyModes, viewTitleKey } from './dialog-titles.ts';
import { MODAL_CLOSE_MS, MODAL_MIN_WIDTH, type ModalSize, modalWidth } from '../app/theme.ts';

/**
 * A form dialog's title from its screen's catalogue namespace: `createTitle`, `editTitle` or
 * `renameTitle`, and `viewTitle` when a guest opens one that changes a record (its fields are then
 * read-only). Given the keys rather than the text, so no dialog depends on how a title is worded.
 */
export function useDialogTitle(namespace: string, mode: DialogMode): string {
  const { t } = useTranslation();
  const canWrite = useCanWrite();
  return t(`${namespace}.${!canWrite && readOnlyModes.includes(mode) ? viewTitleKey : dialogTitleKeys[mode]}`);
}

/**
 * Every modal of the console: the spec's sizes, a 500 ms close and a 30 rem minimum width. For a
 * guest every field inside is disabled: guests read and never write (form dialogs take their title
 * from useDialogTitle, "View …" for a guest).
 */
export function AppModal({ size = 'md', children, ...props }: Omit<ModalProps, 'size'> & { size?: ModalSize }) {
  const { t } = useTranslation();
  const canWrite = useCanWrite();
  return (
    <Modal
      closeButtonProps={{ 'aria-label': t('common.close') }}
      {...props}
      size={modalWidth(size)}
      fullScreen={size === 'cover'}
      transitionProps={{ transition: 'pop', duration: 200, exitDuration: MODAL_CLOSE_MS }}
      styles={{ content: { minWidth: `min(${MODAL_MIN_WIDTH}, 100vw)` } }}
    >
      {canWrite ? (
        children
      ) : (
        <fieldset disabled data-testid="read-only" style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
          {children}
        </fieldset>
      )}
    </Modal>
  );
}
