/**
 * Meta's error codes, in one place (docs/channels-whatsapp.md, "Meta's errors"): the Cloud API's
 * codes (https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes) and the
 * Graph API's (https://developers.facebook.com/docs/graph-api/guides/error-handling) as the outcome
 * names the product uses: a failed send's `reason`, a plan's error exit, a campaign's result. A
 * code not listed is `meta_error`, its code kept beside it.
 */

export const metaOutcomes = {
  131047: 'reengagement_needed',
  131026: 'undeliverable',
  131050: 'marketing_opted_out',
  131049: 'not_delivered_by_meta',
  131051: 'unsupported_message_type',
  131052: 'media_download_failed',
  131053: 'media_upload_failed',
  131009: 'invalid_parameter',
  100: 'invalid_parameter',
  132000: 'template_parameter_mismatch',
  132001: 'template_missing',
  132005: 'template_text_too_long',
  132007: 'template_policy_violated',
  132012: 'template_parameter_format',
  132015: 'template_paused',
  132016: 'template_disabled',
  130429: 'rate_limited',
  131056: 'pair_rate_limited',
  131048: 'spam_rate_limited',
  4: 'rate_limited',
  80007: 'rate_limited',
  190: 'token_expired',
  0: 'not_authorized',
  3: 'not_authorized',
  10: 'not_authorized',
  131031: 'account_locked',
  368: 'account_locked',
  131042: 'payment_required',
  133010: 'number_not_registered',
} as const satisfies Record<number, string>;

export type MetaOutcome = (typeof metaOutcomes)[keyof typeof metaOutcomes] | 'meta_error';

/** The outcome of Meta's code; 200 to 299 are permission errors, as 10 is. */
export function metaOutcome(code: number): MetaOutcome {
  if (code >= 200 && code <= 299) return 'not_authorized';
  return (metaOutcomes as Record<number, MetaOutcome>)[code] ?? 'meta_error';
}

/** Meta's error in an answer's body (`{error: {code, message, error_data: {details}}}`); undefined when the body holds none. */
export function metaErrorOf(body: unknown): { code: number; message: string } | undefined {
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message, error_data: data } = error as { code?: unknown; message?: unknown; error_data?: { details?: unknown } };
  if (typeof code !== 'number') return undefined;
  const details = typeof data?.details === 'string' && data.details !== '' ? data.details : undefined;
  return { code, message: details ?? (typeof message === 'string' ? message : '') };
}

/** Meta's throughput limit of a number: the same request goes through a little later (retried once). */
export const THROUGHPUT_LIMIT = 130429;
