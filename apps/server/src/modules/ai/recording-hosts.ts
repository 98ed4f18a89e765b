/**
 * Where a provider's recordings may be fetched from. A recording's URL comes in a callback the
 * tenant can sign itself (its own Twilio auth token), so the URL alone is not trusted: it must name
 * a host of the provider that made the recording, on every hop.
 */
import type { Provider } from '@voxplan/engine';
import type { AgiConfig } from '../../config.ts';

export interface RecordingHostsConfig {
  /** Twilio's REST API, as configured (a test server, or a proxy, in place of api.twilio.com). */
  twilioApiUrl: string;
  agi: Pick<AgiConfig, 'recordingUrl'> | null;
}

/**
 * Twilio serves a recording's media under its REST API: `https://api.twilio.com/2010-04-01/Accounts/{AccountSid}/Recordings/{Sid}`
 * (https://www.twilio.com/docs/voice/api/recording, "Fetch a Recording media file"), or under a
 * region's API host, `api.{edge}.{region}.twilio.com` or `api.{region}.twilio.com`
 * (https://www.twilio.com/docs/global-infrastructure/using-the-twilio-rest-api-in-a-non-us-region).
 */
const twilioApiHost = /^api(?:\.[a-z0-9-]+){0,2}\.twilio\.com$/;

function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url.replace('{file}', 'file')).origin;
  } catch {
    return undefined;
  }
}

/** Whether a URL (first or redirected to) is one of the provider's media hosts; nothing is for a provider that sends no recordings. */
export function recordingUrlCheck(config: RecordingHostsConfig, provider: Provider): (url: URL) => boolean {
  if (provider === 'twilio') {
    const configured = originOf(config.twilioApiUrl);
    return (url) => url.origin === configured || (url.protocol === 'https:' && url.port === '' && twilioApiHost.test(url.hostname));
  }
  if (provider === 'asterisk') {
    // The PBX serves MixMonitor's files where the operator said (AGI_RECORDING_URL).
    const configured = originOf(config.agi?.recordingUrl);
    return (url) => configured !== undefined && url.origin === configured;
  }
  return () => false;
}
