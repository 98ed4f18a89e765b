import { notifications } from '@mantine/notifications';
import i18n from 'i18next';
import { TOAST_MS } from '../app/theme.ts';
import './toasts.css';

type ToastType = 'info' | 'success' | 'warning' | 'error' | 'loading';
const colors: Record<ToastType, string> = { info: 'blue', success: 'green', warning: 'yellow', error: 'red', loading: 'indigo' };

/** Spec section 8: toasts at the top for 3000 ms, of five types. Returns the toast id. */
export function toast(type: ToastType, message: string, title?: string): string {
  return notifications.show({
    message,
    title,
    color: colors[type],
    loading: type === 'loading',
    autoClose: type === 'loading' ? false : TOAST_MS,
    withCloseButton: type !== 'loading',
    closeButtonProps: { 'aria-label': i18n.t('common.close') },
    'data-toast': type,
  } as Parameters<typeof notifications.show>[0]);
}
