/**
 * Meta's refusals of a sent message as reasons a plan's report names (docs/channels-whatsapp.md,
 * "Meta's refusals"), from the Cloud API's error codes
 * (https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes). A code not
 * listed keeps the HTTP status (`provider_status_<status>`).
 */
const reasons: Readonly<Record<number, string>> = {
  131047: 'outside_customer_window',
  131026: 'undeliverable',
  130429: 'rate_limited',
  132000: 'template_parameter_mismatch',
  132001: 'template_not_found',
  132012: 'template_parameter_format_mismatch',
  132015: 'template_not_approved',
  132016: 'template_not_approved',
};

/** The reason of Meta's error answer (`{error: {code}}`), or undefined for a code without one of its own. */
export function metaReasonOf(body: unknown): string | undefined {
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'number' ? reasons[code] : undefined;
}
