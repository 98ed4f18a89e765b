import { Modal, type ModalProps } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { MODAL_CLOSE_MS, MODAL_MIN_WIDTH, type ModalSize, modalWidth } from '../app/theme.ts';

/** Every modal of the console: the spec's sizes, a 500 ms close and a 30 rem minimum width. */
export function AppModal({ size = 'md', ...props }: Omit<ModalProps, 'size'> & { size?: ModalSize }) {
  const { t } = useTranslation();
  return (
    <Modal
      closeButtonProps={{ 'aria-label': t('common.close') }}
      {...props}
      size={modalWidth(size)}
      fullScreen={size === 'cover'}
      transitionProps={{ transition: 'pop', duration: 200, exitDuration: MODAL_CLOSE_MS }}
      styles={{ content: { minWidth: `min(${MODAL_MIN_WIDTH}, 100vw)` } }}
    />
  );
}
