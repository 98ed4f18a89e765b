/**
 * Twilio places the plan's calls (docs/channels-twilio.md, "Outbound calls"): the Calls resource
 * through the official library, with the tenant's account. Twilio then asks our voice webhook for
 * the session when the callee answers, posts the call's progress to the status callback, and,
 * with machine detection, the detection's answer to the same callback (`on=amd`).
 *
 * Create a Call: https://www.twilio.com/docs/voice/api/call-resource#create-a-call-resource
 * Asynchronous AMD: https://www.twilio.com/docs/voice/answering-machine-detection
 */
import twilio from 'twilio';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import type { OutboundDial, OutboundDialer } from '../channel.ts';
import { twilioHttpClient } from '../messaging.ts';
import { tenantIntegrations } from '../../modules/tenants/integrations.routes.ts';
import { outboundHookUrl, STATUS_HOOK_PATH as STATUS_HOOK, VOICE_HOOK_PATH as VOICE_HOOK } from './twilio.routes.ts';

/** One HTTP client (its kept connections) per Twilio base URL the process uses. */
const httpClients = new Map<string, twilio.RequestClient>();
function httpClientFor(baseUrl: string): twilio.RequestClient {
  let client = httpClients.get(baseUrl);
  if (!client) {
    client = twilioHttpClient(baseUrl);
    httpClients.set(baseUrl, client);
  }
  return client;
}

/**
 * What Twilio answers a refused request with (its error's `code` and HTTP `status`), as a code of
 * our catalogue: https://www.twilio.com/docs/api/errors (21211 a `To` that is no phone number,
 * 20003 credentials refused, 20429 / HTTP 429 too many requests).
 */
export function refusalOf(error: InstanceType<typeof twilio.RestException>): AppError {
  const reason = `${error.code ?? error.status}: ${error.message}`;
  if (error.code === 21211 || error.code === 13223 || error.code === 13224) {
    return new AppError(400, 'invalid_phone_number', [{ path: 'to', message: reason }]);
  }
  if (error.status === 401 || error.code === 20003) return new AppError(422, 'outbound_provider_auth_refused', [{ path: 'from', message: reason }]);
  if (error.status === 429 || error.code === 20429) return new AppError(429, 'outbound_provider_rate_limited', [{ path: 'from', message: reason }]);
  if (error.status >= 500) return new AppError(502, 'outbound_provider_unreachable', [{ path: 'from', message: reason }]);
  return new AppError(422, 'outbound_provider_refused', [{ path: 'from', message: reason }], undefined, { reason });
}

async function place(ctx: AppContext, call: OutboundDial): Promise<{ provider_call_id: string }> {
  const { twilio_sid: account, twilio_token: token } = await tenantIntegrations(ctx, call.tenant_id);
  if (!account || !token) throw new AppError(422, 'outbound_provider_not_configured', [{ path: 'from', message: 'the tenant has no Twilio account SID and auth token' }]);
  const { publicUrl } = ctx.config;
  const client = twilio(account, token, { httpClient: httpClientFor(ctx.config.twilioApiUrl) });
  try {
    const created = await client.calls.create({
      to: call.to,
      from: call.from,
      url: outboundHookUrl(publicUrl, VOICE_HOOK, call.session_id, 'outbound'),
      method: 'POST',
      statusCallback: outboundHookUrl(publicUrl, STATUS_HOOK, call.session_id, 'outbound'),
      statusCallbackMethod: 'POST',
      statusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
      timeout: call.ring_timeout_s,
      // Asynchronous, so that the plan starts the moment the callee answers; `Enable` answers as soon as it knows.
      ...(call.machine_detection && {
        machineDetection: 'Enable',
        asyncAmd: 'true',
        asyncAmdStatusCallback: outboundHookUrl(publicUrl, STATUS_HOOK, call.session_id, 'amd'),
        asyncAmdStatusCallbackMethod: 'POST',
      }),
    });
    return { provider_call_id: created.sid };
  } catch (error) {
    if (error instanceof twilio.RestException) throw refusalOf(error);
    throw new AppError(502, 'outbound_provider_unreachable', [{ path: 'from', message: error instanceof Error ? error.message : String(error) }]);
  }
}

/** Twilio's default: 1 call a second per account, the rest queued (docs/channels-twilio.md). */
export const DEFAULT_TWILIO_CALLS_PER_SECOND = 1;

export const twilioDialer: OutboundDialer = {
  place,
  // An account can be granted a higher CPS by Twilio: TWILIO_CALLS_PER_SECOND, read when a pass asks, as AMI_CALLS_PER_SECOND is.
  get callsPerSecond() {
    const configured = Number(process.env.TWILIO_CALLS_PER_SECOND);
    return Number.isInteger(configured) && configured >= 1 ? configured : DEFAULT_TWILIO_CALLS_PER_SECOND;
  },
};
