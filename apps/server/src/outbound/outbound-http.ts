import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { OutboundError, type OutboundHttp, type OutboundRequest, type OutboundResponse } from '@voxplan/engine/ports';
import { type AddressPolicy, type AddressVerdict, judgeAddress, strictPolicy } from './address-policy.ts';
import { decodeText, flattenHeaders, readBody } from './outbound-body.ts';

/** blocks.md, "Requests leaving the server". */
export const MAX_REDIRECTS = 3;
export const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * What the server's own requests may add to a plan's: a recording or a provider's media is fetched
 * from named hosts only, and may be larger than a plan's answer.
 */
export interface HostRequest extends OutboundRequest {
  /** Every URL the request goes to, redirects included, must pass this; another fails as forbidden_address before any socket opens. */
  allowUrl?: (url: URL) => boolean;
  /** The answer's size limit in bytes, after decompression; MAX_ANSWER_BYTES unless given. */
  maxBytes?: number;
}

/** An answer whose body is kept as the bytes that came (audio), not decoded as text. */
export interface BytesResponse extends Omit<OutboundResponse, 'body'> {
  body: Buffer;
}

/** The OutboundHttp the server uses: the engine's port, plus the server's own media requests. */
export interface HostOutboundHttp extends OutboundHttp {
  request(request: HostRequest): Promise<OutboundResponse>;
  /** The same request, its answer's body as bytes. */
  requestBytes(request: HostRequest): Promise<BytesResponse>;
}

export interface OutboundHttpOptions extends Partial<AddressPolicy> {
  /**
   * Resolves host names; dns.lookup unless given. Whatever it answers is judged before a socket
   * connects to it, so tests can point a name at 127.0.0.1 without touching the system resolver.
   */
  lookup?: LookupFunction;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);
/** Headers that describe one connection or one body framing: Node sets them for the request it sends. */
const hopHeaders = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'upgrade', 'content-length', 'host', 'trailer']);
/** Credentials meant for one origin; a redirect to another origin must not carry them (as fetch does). */
const originCredentials = new Set(['authorization', 'cookie', 'proxy-authorization']);
const tokenPattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

interface Hop {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | undefined;
  maxBytes: number;
}

type HopResult =
  | { kind: 'redirect'; status: number; location: string }
  | { kind: 'answer'; status: number; headers: Record<string, string>; body: Buffer };

/** An OutboundHttp that keeps connections open between requests; `close` drops them. */
export interface PooledOutboundHttp extends HostOutboundHttp {
  close(): void;
}

/**
 * An idle kept connection is closed after this long. Servers commonly close theirs after 5 s
 * (Node's default); closing first keeps a request from being sent on a socket the server is
 * closing at that moment.
 */
const IDLE_CONNECTION_MS = 4_000;

/**
 * The host's side of the engine's OutboundHttp port. Every connection, first request and every
 * redirect hop alike, goes to an address judged by the policy at the moment the socket resolves
 * it: the check lives in the socket's lookup, so a name cannot resolve to one address when checked
 * and another when connected (DNS rebinding).
 *
 * Connections are kept for the next request to the same host and port: opening one costs more
 * than the request (a plan calling its CRM on every call paid a TCP handshake each time). Each
 * instance has its own pool, judged under its own policy, so a pooled connection never serves a
 * request under another policy (createSettingsOutboundHttp keeps one instance per policy); a new
 * DNS answer applies to the next new connection.
 */
export function createOutboundHttp(options: OutboundHttpOptions = {}): PooledOutboundHttp {
  const policy: AddressPolicy = {
    allowLoopback: options.allowLoopback ?? strictPolicy.allowLoopback,
    allowPrivate: options.allowPrivate ?? strictPolicy.allowPrivate,
  };
  const lookup = guardLookup(options.lookup ?? dns.lookup, policy);
  const pool: Pool = {
    http: new http.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
    https: new https.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
    lookup,
    judgeLiteral: keptVerdicts(policy),
  };

  async function requestBytes(request: HostRequest): Promise<BytesResponse> {
    if (!(request.timeoutMs > 0) || !Number.isFinite(request.timeoutMs)) {
      throw new OutboundError('timeout', `the timeout must be a positive number of milliseconds, got ${request.timeoutMs}`);
    }
    const deadline = new Deadline(request.timeoutMs);
    try {
      let hop = firstHop(request);
      for (let redirects = 0; ; redirects++) {
        if (request.allowUrl && !request.allowUrl(hop.url)) {
          throw new OutboundError('forbidden_address', `${hop.url.origin} is not an address this request may reach`);
        }
        const result = await send(hop, pool, deadline);
        if (result.kind === 'answer') return { status: result.status, headers: result.headers, body: result.body, url: hop.url.href };
        if (redirects === MAX_REDIRECTS) {
          throw new OutboundError('too_many_redirects', `more than ${MAX_REDIRECTS} redirects, the last to ${result.location}`);
        }
        hop = nextHop(hop, result.location, result.status);
      }
    } finally {
      deadline.clear();
    }
  }

  return {
    async request(request: HostRequest): Promise<OutboundResponse> {
      const answer = await requestBytes(request);
      return { ...answer, body: decodeText(answer.body, answer.headers['content-type']) };
    },
    requestBytes,
    close() {
      pool.http.destroy();
      pool.https.destroy();
    },
  };
}

/**
 * The time a request has left, over all its hops. When it runs out, the hop in flight is torn down
 * at once. A timer and a callback rather than an AbortSignal: the signal's listeners on the request
 * and its body cost a fifth of a request to a nearby server.
 */
class Deadline {
  expired = false;
  private abortHop: (() => void) | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly timeoutMs: number) {
    // setTimeout takes at most 2^31-1 ms and fires at once beyond it.
    this.timer = setTimeout(() => {
      this.expired = true;
      this.abortHop?.();
    }, Math.min(timeoutMs, 2 ** 31 - 1));
  }

  error(): OutboundError {
    return new OutboundError('timeout', `no complete answer within ${this.timeoutMs} ms`);
  }

  /** What tears down the hop in flight, or undefined once it settled. */
  onExpiry(abort: (() => void) | undefined): void {
    this.abortHop = abort;
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

interface Pool {
  http: http.Agent;
  https: https.Agent;
  /** The guarded lookup every new connection resolves its host with. */
  lookup: LookupFunction;
  /** The policy's verdict on an address written in a URL. */
  judgeLiteral: (address: string) => AddressVerdict;
}

const KEPT_VERDICTS = 256;

/**
 * Verdicts on the addresses URLs name, kept: a plan calling its CRM by IP address asks about the
 * same one on every call, and parsing it and finding its range costs more than the rest of a
 * request's checks. A verdict depends only on the address and the policy, which is the pool's.
 */
function keptVerdicts(policy: AddressPolicy): (address: string) => AddressVerdict {
  const verdicts = new Map<string, AddressVerdict>();
  return (address) => {
    let verdict = verdicts.get(address);
    if (!verdict) {
      verdict = judgeAddress(address, policy);
      if (verdicts.size >= KEPT_VERDICTS) verdicts.delete(verdicts.keys().next().value!);
      verdicts.set(address, verdict);
    }
    return verdict;
  };
}

function parseUrl(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new OutboundError('invalid_url', `'${text}' is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError('invalid_url', `only http and https URLs are allowed, got '${url.protocol}'`);
  }
  return url;
}

function firstHop(request: HostRequest): Hop {
  const method = request.method.toUpperCase();
  // CONNECT turns the socket into a tunnel; no plan request means that.
  if (!tokenPattern.test(method) || method === 'CONNECT') throw new OutboundError('invalid_url', `'${request.method}' is not a usable HTTP method`);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (!tokenPattern.test(name)) throw new OutboundError('invalid_url', `'${name}' is not a valid header name`);
    // Node refuses these characters too, but with a message that names no header.
    if (/[\r\n\0]/.test(value)) throw new OutboundError('invalid_url', `the value of header '${name}' holds a line break or NUL`);
    const lower = name.toLowerCase();
    if (!hopHeaders.has(lower)) headers[lower] = value;
  }
  return { method, url: parseUrl(request.url), headers, body: request.body, maxBytes: request.maxBytes ?? MAX_ANSWER_BYTES };
}

/** What the next request is after a redirect: the rules browsers follow (fetch, "HTTP-redirect fetch"). */
function nextHop(previous: Hop, location: string, status: number): Hop {
  const url = parseUrl(location, previous.url);
  let { method, body } = previous;
  const headers = { ...previous.headers };
  if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
    method = 'GET';
    body = undefined;
    for (const name of Object.keys(headers)) if (name.startsWith('content-')) delete headers[name];
  }
  if (url.origin !== previous.url.origin) for (const name of originCredentials) delete headers[name];
  return { method, url, headers, body, maxBytes: previous.maxBytes };
}

/**
 * The request's headers as `http.request` takes them. A request with none of its own (a plan's
 * GET, mostly) names its Host in a list, which Node writes as it is: given an object, Node sets
 * each header and then the Host through its setter, which checks them one by one again (a tenth
 * of such a request's own cost). The Host is what Node would write: the URL's host, its port only
 * where it is not the scheme's.
 */
function requestHeaders(hop: Hop): { headers: Record<string, string> | string[]; auth?: string } {
  if (hop.url.username) return { headers: hop.headers, auth: `${decodeURIComponent(hop.url.username)}:${decodeURIComponent(hop.url.password)}` };
  for (const _name in hop.headers) return { headers: hop.headers };
  return { headers: ['Host', hop.url.host] };
}

function forbidden(host: string, address: string, range: string): OutboundError {
  const where = host === address ? address : `${host} (${address})`;
  return new OutboundError('forbidden_address', `${where} is a ${range} address, closed to requests leaving the server`);
}

/**
 * Wraps a resolver so that sockets connect only to addresses the policy allows. It always asks for
 * every address, so the answer does not depend on which record the resolver happens to list
 * first, drops the forbidden ones, and fails when none is left.
 */
export function guardLookup(resolve: LookupFunction, policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const found = typeof addresses === 'string' ? [{ address: addresses, family: isIP(addresses) }] : addresses;
      const allowed = found.filter((entry) => judgeAddress(entry.address, policy).allowed);
      const first = allowed[0];
      if (!first) {
        const refused = found[0];
        if (!refused) return callback(new OutboundError('network', `${hostname} has no address`), '');
        return callback(forbidden(hostname, refused.address, judgeAddress(refused.address, policy).range), '');
      }
      if (options.all) callback(null, allowed);
      else callback(null, first.address, first.family);
    });
  };
}

/**
 * One hop. A kept connection the server closed while it sat idle fails at once, before any answer:
 * the hop is sent again, once, on a new connection (what Node's documentation advises for
 * `request.reusedSocket`).
 */
async function send(hop: Hop, pool: Pool, deadline: Deadline): Promise<HopResult> {
  try {
    return await sendOnce(hop, pool, deadline, true);
  } catch (error) {
    if (!(error instanceof StaleConnection)) throw error;
    return sendOnce(hop, pool, deadline, false);
  }
}

/** A kept connection found closed by the server. */
class StaleConnection extends Error {}

/**
 * Methods that may be sent twice (RFC 9110, 9.2.2). Only these use kept connections: a request on
 * one that dies before the answer may or may not have reached the server, and only these may then
 * be sent again. A POST always opens its own connection, so it never needs sending twice.
 */
const idempotentMethods = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']);

function sendOnce(hop: Hop, pool: Pool, deadline: Deadline, mayReuse: boolean): Promise<HopResult> {
  // URL keeps the brackets of an IPv6 literal; sockets want the bare address.
  const host = hop.url.hostname.replace(/^\[(.*)\]$/, '$1');
  // The socket skips the lookup for a literal address, so it is judged here.
  if (isIP(host)) {
    const verdict = pool.judgeLiteral(host);
    if (!verdict.allowed) return Promise.reject(forbidden(host, host, verdict.range));
  }
  if (deadline.expired) return Promise.reject(deadline.error());

  return new Promise<HopResult>((resolve, reject) => {
    let request: http.ClientRequest | undefined;
    let answered = false;
    const succeed = (result: HopResult) => {
      deadline.onExpiry(undefined);
      resolve(result);
    };
    // The first failure decides; what tearing the request down raises after it changes nothing.
    const fail = (error: unknown) => {
      deadline.onExpiry(undefined);
      if (deadline.expired) reject(deadline.error());
      else if (error instanceof OutboundError) reject(error);
      else if (!answered && request?.reusedSocket === true && (error as NodeJS.ErrnoException).code === 'ECONNRESET') reject(new StaleConnection());
      else reject(new OutboundError('network', `${hop.method} ${hop.url.origin}: ${error instanceof Error ? error.message : String(error)}`));
    };
    const isHttps = hop.url.protocol === 'https:';
    const reuses = mayReuse && idempotentMethods.has(hop.method);
    try {
      request = (isHttps ? https : http).request({
        method: hop.method,
        host,
        port: hop.url.port || undefined,
        path: `${hop.url.pathname}${hop.url.search}`,
        ...requestHeaders(hop),
        lookup: pool.lookup,
        // The retry after a stale connection opens a new one rather than trying the next kept one.
        agent: reuses ? (isHttps ? pool.https : pool.http) : false,
      });
    } catch (error) {
      fail(error);
      return;
    }
    const sent = request;
    // Destroying the request closes its socket, and with it the answer's stream and its decoder.
    deadline.onExpiry(() => {
      fail(deadline.error());
      sent.destroy();
    });
    sent.on('error', fail);
    sent.on('response', (response) => {
      answered = true;
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (redirectStatuses.has(status) && location) {
        // The redirect's own body is of no use; closing the socket is cheaper than reading it.
        response.destroy();
        sent.destroy();
        succeed({ kind: 'redirect', status, location });
        return;
      }
      readBody(response, hop.method, hop.maxBytes, (error, body) => {
        if (error) {
          sent.destroy();
          fail(error);
        } else {
          succeed({ kind: 'answer', status, headers: flattenHeaders(response.headers), body: body! });
        }
      });
    });
    sent.end(hop.body);
  });
}
