import { Modal, type ModalProps } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useCanWrite } from './auth.tsx';
import { MODAL_CLOSE_MS, MODAL_MIN_WIDTH, type ModalSize, modalWidth } from '../app/theme.ts';

/**
 * Every modal of the console: the spec's sizes, a 500 ms close and a 30 rem minimum width. For a
 * guest every field inside is disabled: guests read and never write.
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
