import { Modal, type ModalProps } from '@mantine/core';
import type { i18n as I18n } from 'i18next';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useCanWrite } from './auth.tsx';
import { MODAL_CLOSE_MS, MODAL_MIN_WIDTH, type ModalSize, modalWidth } from '../app/theme.ts';

/** Catalogue keys of the titles that name a change; a read-only dialog shows the `viewTitle` beside them. */
export const changeTitleKeys = ['editTitle', 'renameTitle'] as const;

/**
 * The title a read-only dialog shows instead of an edit one: the catalogue's `viewTitle` beside the
 * `editTitle` (or `renameTitle`) whose text the dialog was given ("Edit user" → "View user"); any
 * other title as it is. Found by the text so that no form has to know who reads it; `npm run check`
 * makes sure each of those titles has its `viewTitle`.
 */
export function readOnlyTitle(title: ReactNode, i18n: I18n): ReactNode {
  if (typeof title !== 'string') return title;
  const texts = i18n.getResourceBundle(i18n.language, 'translation') as Record<string, unknown> | undefined;
  for (const area of Object.values(texts ?? {})) {
    if (typeof area !== 'object' || area === null) continue;
    const texts = area as Record<string, unknown>;
    if (typeof texts.viewTitle === 'string' && changeTitleKeys.some((key) => texts[key] === title)) return texts.viewTitle;
  }
  return title;
}

/**
 * Every modal of the console: the spec's sizes, a 500 ms close and a 30 rem minimum width. For a
 * guest every field inside is disabled and an edit dialog is titled "View …": guests read and never write.
 */
export function AppModal({ size = 'md', children, title, ...props }: Omit<ModalProps, 'size'> & { size?: ModalSize }) {
  const { t, i18n } = useTranslation();
  const canWrite = useCanWrite();
  return (
    <Modal
      closeButtonProps={{ 'aria-label': t('common.close') }}
      {...props}
      title={canWrite ? title : readOnlyTitle(title, i18n)}
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
