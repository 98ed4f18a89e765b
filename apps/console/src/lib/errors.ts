import type { TFunction } from 'i18next';
import { ApiError } from './api/client.ts';
import { errorText } from './error-text.ts';
import { toast } from './notify.ts';

// Apart so that the sign-in screen reads an error's text without the toasts' store.
export { errorText } from './error-text.ts';

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
