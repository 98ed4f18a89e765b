/**
 * A local server speaking Twilio's REST API for calls, as its documentation states, for the tests
 * (and bench:campaigns) to point TWILIO_API_URL at:
 * - Create a Call: https://www.twilio.com/docs/voice/api/call-resource#create-a-call-resource
 *   `POST /2010-04-01/Accounts/{AccountSid}/Calls.json`, a form (To, From, Url, StatusCallback,
 *   StatusCallbackEvent repeated, Timeout, MachineDetection, AsyncAmd, AsyncAmdStatusCallback),
 *   HTTP basic authentication with the account SID and auth token; answers 201 with the call
 *   resource in JSON, its `status` `queued`.
 * - Answering machine detection: https://www.twilio.com/docs/voice/answering-machine-detection
 *   (MachineDetection `Enable` or `DetectMessageEnd`; AsyncAmd `true` or `false`).
 * - Errors: https://www.twilio.com/docs/api/errors — JSON `{ code, message, more_info, status }`:
 *   20003 (401, authentication), 21211 (400, an invalid `To`), 20429 (429, too many requests).
 * It records what the library sent, so that a test asserts the form fields.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CreatedCall {
  sid: string;
  account: string;
  form: URLSearchParams;
}

export interface TwilioRest {
  /** The base URL to give TWILIO_API_URL. */
  url: string;
  /** Calls created, in order. */
  calls: CreatedCall[];
  /** Every request, answered or refused. */
  requests: Array<{ method: string; path: string; status: number }>;
  /** The next `count` creates answer 429, as Twilio does past an account's limit. */
  refuseTooMany(count: number): void;
  /** A `To` Twilio refuses with 21211 although it is a possible number (unallocated, say). */
  refuseTo(number: string): void;
  close(): Promise<void>;
}

const CALLS_PATH = /\/2010-04-01\/Accounts\/(AC[0-9a-zA-Z]{32})\/Calls\.json$/;
const E164 = /^\+[1-9]\d{1,14}$/;
const MACHINE_DETECTION = new Set(['Enable', 'DetectMessageEnd']);
const STATUS_EVENTS = new Set(['initiated', 'ringing', 'answered', 'completed']);

const errorBody = (code: number, status: number, message: string) => ({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

/** `accounts`: account SID → auth token of the accounts this server knows. */
export async function startTwilioRest(accounts: Record<string, string>): Promise<TwilioRest> {
  const calls: CreatedCall[] = [];
  const requests: TwilioRest['requests'] = [];
  const refusedTo = new Set<string>();
  let tooMany = 0;

  function answer(path: string, method: string, authorization: string | undefined, body: string): { status: number; json: unknown } {
    const match = CALLS_PATH.exec(path);
    if (!match || method !== 'POST') return { status: 404, json: errorBody(20404, 404, 'The requested resource was not found') };
    const account = match[1]!;
    const [scheme, encoded] = (authorization ?? '').split(' ');
    const [user, password] = scheme === 'Basic' && encoded ? Buffer.from(encoded, 'base64').toString().split(':') : [];
    if (user !== account || accounts[account] === undefined || accounts[account] !== password) return { status: 401, json: errorBody(20003, 401, 'Authenticate') };
    if (tooMany > 0) {
      tooMany--;
      return { status: 429, json: errorBody(20429, 429, 'Too Many Requests') };
    }
    const form = new URLSearchParams(body);
    const to = form.get('To') ?? '';
    const from = form.get('From') ?? '';
    if (!to) return { status: 400, json: errorBody(21201, 400, "No 'To' number is specified") };
    if (!from) return { status: 400, json: errorBody(21213, 400, "No 'From' number is specified") };
    if (!E164.test(to) || refusedTo.has(to)) return { status: 400, json: errorBody(21211, 400, `The 'To' number ${to} is not a valid phone number.`) };
    if (!form.get('Url') && !form.get('Twiml') && !form.get('ApplicationSid')) return { status: 400, json: errorBody(21205, 400, 'Url parameter is required.') };
    const timeout = form.get('Timeout');
    if (timeout !== null && !(Number.isInteger(Number(timeout)) && Number(timeout) >= 1 && Number(timeout) <= 600)) {
      return { status: 400, json: errorBody(21216, 400, 'Timeout must be an integer between 1 and 600') };
    }
    const detection = form.get('MachineDetection');
    if (detection !== null && !MACHINE_DETECTION.has(detection)) return { status: 400, json: errorBody(21626, 400, 'Invalid MachineDetection value') };
    const asyncAmd = form.get('AsyncAmd');
    if (asyncAmd !== null && asyncAmd !== 'true' && asyncAmd !== 'false') return { status: 400, json: errorBody(21626, 400, 'Invalid AsyncAmd value') };
    if (form.getAll('StatusCallbackEvent').some((event) => !STATUS_EVENTS.has(event))) return { status: 400, json: errorBody(21626, 400, 'Invalid StatusCallbackEvent') };
    const sid = `CA${randomBytes(16).toString('hex')}`;
    calls.push({ sid, account, form });
    const now = new Date().toUTCString().replace('GMT', '+0000');
    return {
      status: 201,
      json: {
        sid,
        account_sid: account,
        to,
        to_formatted: to,
        from,
        from_formatted: from,
        status: 'queued',
        direction: 'outbound-api',
        date_created: now,
        date_updated: now,
        start_time: null,
        end_time: null,
        duration: null,
        price: null,
        api_version: '2010-04-01',
        uri: `/2010-04-01/Accounts/${account}/Calls/${sid}.json`,
      },
    };
  }

  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const path = new URL(request.url ?? '/', 'http://twilio.local').pathname;
      const { status, json } = answer(path, request.method ?? 'GET', request.headers.authorization, body);
      requests.push({ method: request.method ?? 'GET', path, status });
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/twilio-api`,
    calls,
    requests,
    refuseTooMany: (count) => void (tooMany = count),
    refuseTo: (number) => void refusedTo.add(number),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
