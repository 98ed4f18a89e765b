import { type Messaging, OutboundError } from '@voxplan/engine';
import type { AppContext } from '../../context.ts';
import { readIntegrations } from '../tenants/integrations.routes.ts';

export interface MessagingOptions {
  /** Twilio's REST API; tests point it at a local server. */
  twilioApiUrl?: string;
}

/** How long a send may hold the turn: the caller is waiting on the line. */
const SEND_TIMEOUT_MS = 10_000;

/**
 * The `send_message` block's port, through the tenant's integrations (spec section 3).
 *
 * SMS goes through Twilio's Messages API when the tenant has its SID and token, from the number
 * the session runs on. WhatsApp needs the number's WhatsApp configuration, which comes with the
 * numbers; until then, and for a tenant without Twilio, the answer is `not_configured` and the
 * block takes `failed`. Nothing is pretended: a message is `sent` only when the provider took it.
 */
export function createMessaging(ctx: Pick<AppContext, 'db' | 'keys' | 'outbound'>, options: MessagingOptions = {}): Messaging {
  const twilioApiUrl = (options.twilioApiUrl ?? 'https://api.twilio.com').replace(/\/+$/, '');
  return {
    async send(message) {
      if (message.channel !== 'sms') return { ok: false, reason: 'not_configured' };
      const tenant = await ctx.db.selectFrom('tenants').select('integrations').where('id', '=', message.tenantId).executeTakeFirst();
      const { twilio_sid: sid, twilio_token: token } = readIntegrations(ctx, tenant?.integrations ?? null);
      if (!sid || !token) return { ok: false, reason: 'not_configured' };
      try {
        const response = await ctx.outbound.request({
          method: 'POST',
          url: `${twilioApiUrl}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`,
          headers: {
            authorization: `Basic ${Buffer.from(`${sid}:${token}`).toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({ To: message.to, From: message.from, Body: message.text }).toString(),
          timeoutMs: SEND_TIMEOUT_MS,
        });
        if (response.status < 200 || response.status > 299) return { ok: false, reason: `provider_status_${response.status}` };
        const id = messageSid(response.body);
        return id === undefined ? { ok: true } : { ok: true, id };
      } catch (error) {
        if (error instanceof OutboundError) return { ok: false, reason: error.failure };
        throw error;
      }
    },
  };
}

function messageSid(body: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    const sid = typeof parsed === 'object' && parsed !== null ? (parsed as { sid?: unknown }).sid : undefined;
    return typeof sid === 'string' ? sid : undefined;
  } catch {
    return undefined;
  }
}
