import en from './i18n/errors.en.json' with { type: 'json' };
import pt from './i18n/errors.pt.json' with { type: 'json' };

/**
 * The error catalogue of spec section 8, plus the codes this project added (marked in
 * docs/errors.md). Server answers carry one of these codes; the console translates them.
 */
export const errorCodes = [
  // spec section 8
  'email_exists',
  'no_role_permission',
  'token_not_found',
  'wrong_password',
  'forbidden',
  'access_forbidden',
  'readonly_only',
  'initial_date_after_final_date',
  'tenant_already_exists',
  'uri_already_exists',
  'no_name_provided',
  'no_tenant_provided',
  'name_already_exists',
  'audio_not_found',
  'error_deleting_file',
  'invalid_credentials',
  'generating_token_error',
  'refresh_token_not_found',
  'copy_cache_error',
  'api_key_not_found',
  'invalid_api_key',
  'user_not_found',
  'auth_header_not_found',
  'auth_not_bearer',
  'auth_header_malformed',
  'invalid_secret',
  'forbidden_tenant',
  'invalid_token',
  'verifying_token_error',
  'ai_key_not_found',
  'ai_key_invalid',
  'ai_access_error',
  'license_already_licensed',
  'license_missing_configuration',
  'license_invalid_serial',
  'license_not_found',
  'license_missing_hardware_id',
  'license_create_error',
  'license_get_error',
  'license_update_error',
  'license_sync_error',
  'license_decrypt_error',
  'license_invalid_signature',
  'license_hardware_mismatch',
  'license_installation_mismatch',
  'license_sessions_limit_reached',
  'license_tenants_limit_reached',
  'license_numbers_limit_reached',
  // added by this project
  'invalid_input',
  'invalid_filter',
  'not_found',
  'internal_error',
  'database_unavailable',
  'too_many_attempts',
  'username_exists',
  'tenant_in_use',
  'tenant_not_found',
  'cannot_remove_self',
  'system_setting_not_removable',
  'invalid_setting_value',
  'system_setting_value_only',
  'passwords_do_not_match',
  'destination_in_use',
  'payload_too_large',
  'unsupported_media_type',
  'malformed_request',
  'request_timeout',
  'uri_too_long',
  'headers_too_large',
  'address_already_exists',
  'holiday_already_exists',
  'holiday_region_unknown',
  'file_too_large',
  'invalid_audio_format',
  'audio_not_ready',
  'webhook_delivery_in_progress',
  'plan_out_of_sync',
  'invalid_plan',
  'plan_in_use',
  'rollout_needs_published',
  'rollout_running',
  'rollout_not_found',
  'date_range_in_use',
  'record_in_use',
  'audio_in_use',
  'number_already_exists',
  'whatsapp_incomplete',
  'reference_not_found',
  'voice_language_mismatch',
  'session_not_found',
  'session_busy',
  'session_id_taken',
  'plan_not_published',
  'plan_version_not_found',
  'start_node_not_found',
  'upgrade_required',
  'invalid_twilio_signature',
  'twilio_account_mismatch',
  'twilio_form_required',
  // issue 38: outbound calls (docs/outbound.md)
  'invalid_phone_number',
  'outbound_number_not_found',
  'outbound_number_cannot_call',
  'outbound_no_plan',
  'outbound_do_not_call',
  'outbound_number_in_call',
  'outbound_provider_not_configured',
  'outbound_provider_auth_refused',
  'outbound_provider_refused',
  'outbound_provider_rate_limited',
  'outbound_provider_unreachable',
  // issue 39: conversations the business starts on WhatsApp (docs/outbound.md, "WhatsApp")
  'whatsapp_daily_limit_reached',
  'invalid_whatsapp_signature',
  'invalid_whatsapp_verify_token',
  'invalid_media_signature',
  'media_url_expired',
  'webchat_key_not_found',
  'webchat_origin_refused',
  'webchat_rate_limited',
  'webchat_number_busy',
  'webchat_address_busy',
  'webchat_unavailable',
  'webchat_identity_refused',
  'webchat_name_already_exists',
  'webchat_files_need_a_person',
  'stats_period_invalid',
  'stats_period_too_long',
  'recording_not_found',
  'recording_conversion_failed',
  'ai_limit_reached',
  'second_ai_provider_disabled',
  'conversation_taken',
  'conversation_not_yours',
  'conversation_closed',
  'conversation_not_found',
  'agent_not_in_tenant',
  'queue_has_no_agents',
  'reply_token_invalid',
  'attachment_type_not_supported',
  'attachment_too_large',
  'attachment_not_found',
  'customer_window_closed',
  'campaign_running',
  'campaign_finished',
  'campaign_status_invalid',
  'campaign_has_no_contacts',
  'number_cannot_call',
  'csv_invalid',
  'csv_too_large',
  'csv_column_not_found',
  'do_not_call_already_exists',
  'do_not_call_file_invalid',
  'ami_unreachable',
  'ami_login_refused',
  'ami_originate_refused',
  // issue 39: WhatsApp message templates (docs/channels-whatsapp.md)
  'number_not_whatsapp',
  'whatsapp_business_account_missing',
  'whatsapp_meta_auth_refused',
  'whatsapp_meta_refused',
  'whatsapp_meta_unreachable',
  'template_not_found',
  'template_not_approved',
  'template_value_missing',
  'template_value_invalid',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export type Locale = 'en' | 'pt';

export const errorMessages: Record<Locale, Record<ErrorCode, string>> = { en, pt };

/** Picks the catalogue language from an Accept-Language header ("pt-BR,pt;q=0.9,en;q=0.8"). */
export function localeFromAcceptLanguage(header: string | undefined): Locale {
  if (!header) return 'en';
  const ranked = header
    .split(',')
    .map((part) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.find((p) => p.trim().startsWith('q='));
      return { tag: tag.toLowerCase(), q: q ? Number(q.trim().slice(2)) : 1 };
    })
    .sort((a, b) => b.q - a.q);
  for (const { tag } of ranked) {
    if (tag.startsWith('pt')) return 'pt';
    if (tag.startsWith('en')) return 'en';
  }
  return 'en';
}

/** Values a catalogue text names as {{name}} (e.g. file_too_large's maxSize), as i18next writes them. */
export type ErrorParams = Record<string, string | number>;

export function errorMessage(code: ErrorCode, locale: Locale, params?: ErrorParams): string {
  const text = errorMessages[locale][code];
  if (!params) return text;
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}

/** The error body every API answer uses on failure (spec section 8). */
export interface ApiErrorBody {
  error: {
    statusCode: number;
    name: string;
    message: string;
    code?: ErrorCode;
    details?: ErrorDetail[];
    /** The values the code's text names, so that the console can word it in its own language. */
    params?: ErrorParams;
  };
}

export interface ErrorDetail {
  path: string;
  message: string;
  code?: string;
  /** A plan's block the detail is about (`invalid_plan`); `path` is then inside the block's data. */
  node_id?: string;
  /** A plan's edge the detail is about; `path` is then one of its fields. */
  edge_id?: string;
  /** The plan that uses the record a removal was refused for (`…_in_use`); `path` is then that record's id. */
  plan_id?: number;
  plan_name?: string;
  /** The number (DID) that uses the plan or date range a removal was refused for; `path` is then that record's id. */
  number_id?: number;
  number?: string;
}
