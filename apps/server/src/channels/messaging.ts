import type { Messaging } from '@voxplan/engine';
import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient.js';
import type { AppContext, MessagingOptions } from '../context.ts';
import { tenantIntegrations } from '../modules/tenants/integrations.routes.ts';
import { sendWhatsAppText } from './whatsapp/whatsapp-channel.ts';

/** How long a send may hold the turn: the caller is waiting on the line. */
const SEND_TIMEOUT_MS = 10_000;

export const TWILIO_API_URL = 'https://api.twilio.com';

/**
 * The library's HTTP client sending to another base URL. The library builds every address on
 * `api.twilio.com` and offers only `edge` and `region` to change its host (both still under
 * twilio.com), so a local server (the tests') or a proxy is reached by rewriting the address's
 * origin here; path, query, authentication and body stay the library's.
 */
class BaseUrlRequestClient extends twilio.RequestClient {
  constructor(private readonly baseUrl: string) {
    super({ timeout: SEND_TIMEOUT_MS });
  }

  override request<TData>(options: RequestClient.RequestOptions<TData>) {
    const url = new URL(options.uri);
    return super.request({ ...options, uri: `${this.baseUrl}${url.pathname}${url.search}` });
  }
}

/**
 * The `send_message` block's port, through the tenant's integrations (spec section 3).
 *
 * SMS goes through Twilio's Messages API with the official client when the tenant has its SID and
 * token, from the number the session runs on. WhatsApp goes through the Graph API with that
 * number's WhatsApp configuration, within the 24-hour customer service window
 * (docs/channels-whatsapp.md). Without the configuration the answer is `not_configured` and the
 * block takes `failed`. Nothing is pretended: a message is `sent` only when the provider took it.
 */
/** One HTTP client (and its kept connections) for every tenant's Twilio client, at Twilio's REST API or `twilioApiUrl`. */
export function twilioHttpClient(twilioApiUrl: string | undefined): twilio.RequestClient {
  const baseUrl = (twilioApiUrl ?? TWILIO_API_URL).replace(/\/+$/, '');
  return baseUrl === TWILIO_API_URL ? new twilio.RequestClient({ timeout: SEND_TIMEOUT_MS }) : new BaseUrlRequestClient(baseUrl);
}

export function createMessaging(ctx: Pick<AppContext, 'db' | 'keys' | 'config'>, options: MessagingOptions = {}): Messaging {
  const httpClient = twilioHttpClient(options.twilioApiUrl);
  return {
    async send(message) {
      if (message.channel === 'whatsapp') return sendWhatsAppText(ctx, message);
      const { twilio_sid: sid, twilio_token: token } = await tenantIntegrations(ctx, message.tenantId);
      if (!sid || !token) return { ok: false, reason: 'not_configured' };
      try {
        const sent = await twilio(sid, token, { httpClient }).messages.create({ to: message.to, from: message.from, body: message.text });
        return typeof sent.sid === 'string' && sent.sid !== '' ? { ok: true, id: sent.sid } : { ok: true };
      } catch (error) {
        // The provider's refusal (RestException) carries its HTTP status; anything else never reached it.
        if (error instanceof twilio.RestException) return { ok: false, reason: `provider_status_${error.status}` };
        return { ok: false, reason: isTimeout(error) ? 'timeout' : 'network' };
      }
    },
  };
}

function isTimeout(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === 'ECONNABORTED' || code === 'ETIMEDOUT';
}
