import type { ErrorDetail } from '@voxplan/contracts';
import type { TFunction } from 'i18next';
import { ApiError } from './api/client.ts';

/** The plans and numbers a refused removal names (`…_in_use` details), once each, in the user's language. */
function usingRecords(details: readonly ErrorDetail[] | undefined, t: TFunction): string[] {
  const names = new Map((details ?? []).flatMap((detail) => (detail.plan_name === undefined ? [] : [[detail.plan_id ?? detail.plan_name, detail.plan_name] as const])));
  const numbers = new Set((details ?? []).flatMap((detail) => (detail.number === undefined ? [] : [detail.number])));
  return [...[...names.values()].map((name) => t('plans.usedBy', { name })), ...[...numbers].map((number) => t('numbers.usedBy', { number }))];
}

/**
 * Spec section 8: a code shows its translated text (followed by the plans that keep a record from
 * being removed, when the details name them); else the details' messages, one per line; else the
 * message; else "An error occurred".
 */
export function errorText(error: unknown, t: TFunction): string {
  if (error instanceof ApiError && error.body) {
    const { code, details, message, params } = error.body;
    if (code && code !== 'invalid_input' && t(`errors.${code}`, { defaultValue: '' })) {
      return [t(`errors.${code}`, params ?? {}), ...usingRecords(details, t)].join('\n');
    }
    if (details && details.length > 0) return details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('\n');
    if (code) return t(`errors.${code}`);
    if (message) return message;
  }
  return t('common.errorOccurred');
}
