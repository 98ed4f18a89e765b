import type { TFunction } from 'i18next';
import { ApiError } from './api/client.ts';
import { toast } from './notify.ts';

/**
 * Spec section 8: a code shows its translated text; else the details' messages, one per line; else
 * the message; else "An error occurred".
 */
export function errorText(error: unknown, t: TFunction): string {
  if (error instanceof ApiError && error.body) {
    const { code, details, message, params } = error.body;
    if (code && code !== 'invalid_input' && t(`errors.${code}`, { defaultValue: '' })) {
      return t(`errors.${code}`, params ?? {});
    }
    if (details && details.length > 0) return details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('\n');
    if (code) return t(`errors.${code}`);
    if (message) return message;
  }
  return t('common.errorOccurred');
}

export interface ShowErrorOptions {
  hideError?: boolean;
  onError?: (error: unknown) => void;
}

/** Shows an error toast, except for 401s (the session handling speaks for those) or when hidden. */
export function showError(error: unknown, t: TFunction, options: ShowErrorOptions = {}): void {
  options.onError?.(error);
  if (options.hideError) return;
  if (error instanceof ApiError && error.status === 401) return;
  if (error instanceof DOMException && error.name === 'AbortError') return;
  toast('error', errorText(error, t));
}
