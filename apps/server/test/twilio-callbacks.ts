/**
 * Twilio's voice callbacks as Twilio sends them, for tests that drive a call from outside the
 * server (a process, a console end-to-end test): the form signed with the account's auth token
 * over the public URL the server is reached at, with the official library's own function.
 */
import twilio from 'twilio';

export type TwilioForm = Record<string, string>;

/** The form of a voice callback for an inbound call in progress, as Twilio posts it; `extra` adds or replaces fields (Digits, CallStatus…). */
export function twilioCallForm(call: { account: string; callSid: string; from: string; to: string }, extra: TwilioForm = {}): TwilioForm {
  return { AccountSid: call.account, CallSid: call.callSid, From: call.from, To: call.to, Direction: 'inbound', CallStatus: 'in-progress', ...extra };
}

/** The request for the hook at `path` (after /api/v1/hooks/twilio/): its URL path, headers and body. */
export function signedTwilioCallback(authToken: string, publicUrl: string, path: string, form: TwilioForm) {
  const url = `/api/v1/hooks/twilio/${path}`;
  const headers = { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(authToken, `${publicUrl}${url}`, form) };
  return { url, headers, body: new URLSearchParams(form).toString() };
}

/** The hook path (after /api/v1/hooks/twilio/) of the action URL of the TwiML's `verb` (Gather, Dial), as Twilio will call it back. */
export function twilioActionOf(twiml: string, verb: string, publicUrl: string): string {
  const match = new RegExp(`<${verb}[^>]* action="([^"]+)"`).exec(twiml);
  if (!match) throw new Error(`no ${verb} action in ${twiml}`);
  const url = match[1]!.replaceAll('&amp;', '&');
  const hooks = `${publicUrl}/api/v1/hooks/twilio/`;
  if (!url.startsWith(hooks)) throw new Error(`the ${verb} action ${url} is not under ${hooks}`);
  return url.slice(hooks.length);
}
