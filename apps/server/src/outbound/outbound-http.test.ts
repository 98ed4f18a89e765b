import http from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import os from 'node:os';
import zlib from 'node:zlib';
import { OutboundError, type OutboundFailure, type OutboundRequest } from '@voxplan/engine/ports';
import { afterEach, describe, expect, test } from 'vitest';
import { judgeAddress } from './address-policy.ts';
import { createOutboundHttp, guardLookup, MAX_ANSWER_BYTES } from './outbound-http.ts';

interface TestServer {
  /** http://host:port, IPv6 hosts in brackets. */
  base: string;
  port: number;
  /** TCP connections the server accepted. */
  connections: () => number;
}

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: http.RequestListener, host = '127.0.0.1', port = 0): Promise<TestServer> {
  const server = http.createServer(handler);
  let connections = 0;
  server.on('connection', () => connections++);
  servers.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const bound = (server.address() as AddressInfo).port;
  return { base: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`, port: bound, connections: () => connections };
}

const get = (url: string, extra: Partial<OutboundRequest> = {}): OutboundRequest => ({ method: 'GET', url, timeoutMs: 5000, ...extra });

async function failureOf(promise: Promise<unknown>): Promise<{ failure: OutboundFailure; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OutboundError) return { failure: error.failure, message: error.message };
    throw error;
  }
  throw new Error('the request succeeded');
}

/** A resolver that knows only the names given, as a zone file would. */
function resolverOf(zone: Record<string, string[]>): LookupFunction & { calls: string[] } {
  const calls: string[] = [];
  const lookup: LookupFunction = (hostname, options, callback) => {
    calls.push(hostname);
    const addresses = (zone[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    if (addresses.length === 0) {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '');
    } else if (options.all) {
      callback(null, addresses);
    } else {
      callback(null, addresses[0]!.address, addresses[0]!.family);
    }
  };
  return Object.assign(lookup, { calls });
}

const loopbackAllowed = createOutboundHttp({ allowLoopback: true });
const strict = createOutboundHttp();

describe('a request that succeeds', () => {
  test('sends method, headers and body, and answers status, headers and body', async () => {
    const server = await serve((request, response) => {
      let received = '';
      request.on('data', (chunk: Buffer) => (received += chunk.toString()));
      request.on('end', () => {
        response.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'abc-1' });
        response.end(JSON.stringify({ method: request.method, path: request.url, token: request.headers['x-token'], received }));
      });
    });
    const answer = await loopbackAllowed.request({
      method: 'post',
      url: `${server.base}/orders?status=open`,
      headers: { 'X-Token': 'secret-1', 'Content-Type': 'application/json' },
      body: '{"item":42}',
      timeoutMs: 5000,
    });
    expect(answer.status).toBe(201);
    expect(answer.headers['x-request-id']).toBe('abc-1');
    expect(answer.headers['content-type']).toBe('application/json');
    expect(JSON.parse(answer.body)).toEqual({ method: 'POST', path: '/orders?status=open', token: 'secret-1', received: '{"item":42}' });
    expect(answer.url).toBe(`${server.base}/orders?status=open`);
  });

  test('an error status is an answer, not a failure', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('no such order');
    });
    const answer = await loopbackAllowed.request(get(`${server.base}/orders/9`));
    expect(answer).toMatchObject({ status: 404, body: 'no such order' });
  });

  test('decodes the charset the answer names, and gzip', async () => {
    const server = await serve((request, response) => {
      if (request.url === '/latin1') {
        response.writeHead(200, { 'content-type': 'text/plain; charset=ISO-8859-1' });
        response.end(Buffer.from([0x53, 0xe3, 0x6f, 0x20, 0x50, 0x61, 0x75, 0x6c, 0x6f]));
      } else {
        response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        response.end(zlib.gzipSync('{"cidade":"São Paulo"}'));
      }
    });
    expect((await loopbackAllowed.request(get(`${server.base}/latin1`))).body).toBe('São Paulo');
    expect(JSON.parse((await loopbackAllowed.request(get(`${server.base}/gzip`))).body)).toEqual({ cidade: 'São Paulo' });
  });

  test('a UTF-8 byte order mark is not part of the body', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"ok":true}')]));
    });
    expect(JSON.parse((await loopbackAllowed.request(get(server.base))).body)).toEqual({ ok: true });
  });

  test('user and password in the URL become basic authentication', async () => {
    const server = await serve((request, response) => response.end(request.headers.authorization ?? 'none'));
    const answer = await loopbackAllowed.request(get(`http://ana:p%40ss@127.0.0.1:${server.port}/`));
    expect(answer.body).toBe(`Basic ${Buffer.from('ana:p@ss').toString('base64')}`);
  });
});

describe('kept connections', () => {
  test('requests to one server share a connection, except a POST, which opens its own', async () => {
    const server = await serve((request, response) => response.end(`${request.method} ${request.url}`));
    const client = createOutboundHttp({ allowLoopback: true });
    try {
      expect((await client.request(get(`${server.base}/a`))).body).toBe('GET /a');
      expect((await client.request(get(`${server.base}/b`))).body).toBe('GET /b');
      expect(server.connections()).toBe(1);
      expect((await client.request(get(`${server.base}/c`, { method: 'POST', body: 'x' }))).body).toBe('POST /c');
      expect(server.connections()).toBe(2);
    } finally {
      client.close();
    }
  });

  test('a kept connection that dies before the answer is replaced, and the request answered', async () => {
    const served = new WeakSet<object>();
    const server = await serve((request, response) => {
      // The second request on a connection finds it closing, as when the server's idle timer fires.
      if (served.has(request.socket)) {
        request.socket.destroy();
        return;
      }
      served.add(request.socket);
      response.end(`answered ${request.url}`);
    });
    const client = createOutboundHttp({ allowLoopback: true });
    try {
      expect((await client.request(get(`${server.base}/first`))).body).toBe('answered /first');
      expect((await client.request(get(`${server.base}/second`))).body).toBe('answered /second');
      expect(server.connections()).toBe(2);
    } finally {
      client.close();
    }
  });

  test('close drops the kept connections', async () => {
    let closed = 0;
    const server = await serve((request, response) => {
      request.socket.once('close', () => closed++);
      response.end('ok');
    });
    const client = createOutboundHttp({ allowLoopback: true });
    await client.request(get(server.base));
    client.close();
    await expect.poll(() => closed).toBe(1);
  });
});

describe('the timeout covers the whole request', () => {
  test('a server that never answers', async () => {
    const server = await serve(() => {});
    expect((await failureOf(loopbackAllowed.request(get(server.base, { timeoutMs: 300 })))).failure).toBe('timeout');
  });

  test('a server that trickles its body', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const drip = setInterval(() => response.write('.'), 50);
      response.on('close', () => clearInterval(drip));
    });
    expect((await failureOf(loopbackAllowed.request(get(server.base, { timeoutMs: 400 })))).failure).toBe('timeout');
  });

  test('a redirect chain whose hops each answer in time but not all together', async () => {
    const server = await serve((request, response) => {
      const hop = Number(request.url?.slice(1));
      setTimeout(() => {
        response.writeHead(302, { location: `/${hop + 1}` });
        response.end();
      }, 150);
    });
    expect((await failureOf(loopbackAllowed.request(get(`${server.base}/0`, { timeoutMs: 400 })))).failure).toBe('timeout');
  });

  test('a name that never resolves', async () => {
    const silent: LookupFunction = () => {};
    const client = createOutboundHttp({ lookup: silent });
    expect((await failureOf(client.request(get('http://slow.voxplan.test/', { timeoutMs: 200 })))).failure).toBe('timeout');
  });

  test('a timeout that is no positive number is refused', async () => {
    expect((await failureOf(loopbackAllowed.request(get('http://127.0.0.1/', { timeoutMs: 0 })))).failure).toBe('timeout');
  });
});

describe('redirects', () => {
  /** /n redirects to /n-1 until /0, which answers where the chain ended. */
  const chain = () =>
    serve((request, response) => {
      const left = Number(request.url?.slice(1));
      if (left > 0) {
        response.writeHead(302, { location: `/${left - 1}` });
        response.end();
      } else {
        response.end(`arrived after ${request.url}`);
      }
    });

  test('three are followed', async () => {
    const server = await chain();
    const answer = await loopbackAllowed.request(get(`${server.base}/3`));
    expect(answer).toMatchObject({ status: 200, body: 'arrived after /0', url: `${server.base}/0` });
  });

  test('a fourth is refused', async () => {
    const server = await chain();
    expect((await failureOf(loopbackAllowed.request(get(`${server.base}/4`)))).failure).toBe('too_many_redirects');
  });

  test('303 turns a POST into a GET without body; 307 repeats the POST with its body', async () => {
    const server = await serve((request, response) => {
      if (request.url === '/see-other' || request.url === '/temporary') {
        response.writeHead(request.url === '/see-other' ? 303 : 307, { location: '/echo' });
        response.end();
        return;
      }
      let received = '';
      request.on('data', (chunk: Buffer) => (received += chunk.toString()));
      request.on('end', () => response.end(`${request.method} ${received}`));
    });
    const post = (path: string) => loopbackAllowed.request({ method: 'POST', url: `${server.base}${path}`, body: 'payload', timeoutMs: 5000 });
    expect((await post('/see-other')).body).toBe('GET ');
    expect((await post('/temporary')).body).toBe('POST payload');
  });

  test('credentials are not carried to another origin', async () => {
    const target = await serve((request, response) => response.end(`${request.headers.authorization ?? 'none'} ${request.headers['x-trace'] ?? ''}`));
    const origin = await serve((request, response) => {
      response.writeHead(302, { location: request.url === '/away' ? `${target.base}/` : '/here' });
      response.end(request.url === '/here' ? request.headers.authorization : undefined);
    });
    const headers = { Authorization: 'Bearer tenant-secret', 'X-Trace': 't-1' };
    const away = await loopbackAllowed.request(get(`${origin.base}/away`, { headers }));
    expect(away.body).toBe('none t-1');
  });

  test('a redirect to a private address is refused before connecting', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(301, { location: 'http://10.0.0.7/admin' });
      response.end();
    });
    const result = await failureOf(loopbackAllowed.request(get(server.base)));
    expect(result.failure).toBe('forbidden_address');
    expect(result.message).toContain('10.0.0.7');
  });

  test('a redirect to a name that resolves to a link-local address is refused', async () => {
    const lookup = resolverOf({ 'metadata.voxplan.test': ['169.254.169.254'] });
    const client = createOutboundHttp({ allowLoopback: true, allowPrivate: true, lookup });
    const server = await serve((_request, response) => {
      response.writeHead(302, { location: 'http://metadata.voxplan.test/latest/meta-data/' });
      response.end();
    });
    expect((await failureOf(client.request(get(server.base)))).failure).toBe('forbidden_address');
    expect(lookup.calls).toEqual(['metadata.voxplan.test']);
  });

  test('a redirect to another scheme is refused', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(302, { location: 'file:///etc/passwd' });
      response.end();
    });
    expect((await failureOf(loopbackAllowed.request(get(server.base)))).failure).toBe('invalid_url');
  });
});

describe('the answer is at most 1 MiB', () => {
  const sized = (bytes: number, declareLength: boolean) =>
    serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain', ...(declareLength && { 'content-length': String(bytes) }) });
      // Written in pieces, so that an answer without Content-Length is sent chunked.
      const piece = 'x'.repeat(64 * 1024);
      let left = bytes;
      while (left > 0) {
        response.write(piece.slice(0, Math.min(left, piece.length)));
        left -= piece.length;
      }
      response.end();
    });

  test.each([true, false])('exactly 1 MiB is read whole (Content-Length sent: %s)', async (declareLength) => {
    const server = await sized(MAX_ANSWER_BYTES, declareLength);
    expect((await loopbackAllowed.request(get(server.base))).body).toHaveLength(MAX_ANSWER_BYTES);
  });

  test.each([true, false])('one byte more is refused (Content-Length sent: %s)', async (declareLength) => {
    const server = await sized(MAX_ANSWER_BYTES + 1, declareLength);
    expect((await failureOf(loopbackAllowed.request(get(server.base)))).failure).toBe('too_large');
  });

  test('a small gzip answer that inflates past the cap is refused', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(4 * MAX_ANSWER_BYTES));
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(bomb.length) });
      response.end(bomb);
    });
    expect(bomb.length).toBeLessThan(MAX_ANSWER_BYTES);
    expect((await failureOf(loopbackAllowed.request(get(server.base)))).failure).toBe('too_large');
  });
});

describe('the guarded lookup', () => {
  const ask = (lookup: LookupFunction, all: boolean) =>
    new Promise<{ error: unknown; address: unknown; family: unknown }>((resolve) =>
      lookup('mixed.voxplan.test', { all }, (error, address, family) => resolve({ error, address, family })),
    );

  test('hands the socket only the allowed addresses of a name, whichever record comes first', async () => {
    const zone = resolverOf({ 'mixed.voxplan.test': ['169.254.169.254', '10.0.0.3', '127.0.0.1', '::1'] });
    const guarded = guardLookup(zone, { allowLoopback: true, allowPrivate: false });
    expect(await ask(guarded, true)).toEqual({
      error: null,
      address: [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ],
      family: undefined,
    });
    expect(await ask(guarded, false)).toEqual({ error: null, address: '127.0.0.1', family: 4 });
  });

  test('fails with forbidden_address when no record is allowed', async () => {
    const zone = resolverOf({ 'mixed.voxplan.test': ['169.254.169.254', '10.0.0.3'] });
    const { error } = await ask(guardLookup(zone, { allowLoopback: true, allowPrivate: false }), false);
    expect(error).toBeInstanceOf(OutboundError);
    expect(error).toMatchObject({ failure: 'forbidden_address', message: expect.stringContaining('mixed.voxplan.test (169.254.169.254) is a linkLocal address') });
  });
});

describe('loopback and private targets', () => {
  test('127.0.0.1 is refused unless allowed, without the server seeing a connection', async () => {
    const server = await serve((_request, response) => response.end('inside'));
    const refused = await failureOf(strict.request(get(server.base)));
    expect(refused.failure).toBe('forbidden_address');
    expect(refused.message).toContain('loopback');
    expect(server.connections()).toBe(0);
    expect((await loopbackAllowed.request(get(server.base))).body).toBe('inside');
  });

  test('a name resolving to 127.0.0.1 is refused unless allowed, and is reached at that address when allowed', async () => {
    const server = await serve((request, response) => response.end(`host ${request.headers.host}`));
    const lookup = resolverOf({ 'api.voxplan.test': ['127.0.0.1'] });
    const url = `http://api.voxplan.test:${server.port}/`;
    const refused = await failureOf(createOutboundHttp({ lookup }).request(get(url)));
    expect(refused).toMatchObject({ failure: 'forbidden_address', message: expect.stringContaining('api.voxplan.test (127.0.0.1)') });
    expect(server.connections()).toBe(0);
    expect((await createOutboundHttp({ lookup, allowLoopback: true }).request(get(url))).body).toBe(`host api.voxplan.test:${server.port}`);
  });

  test('localhost, through the system resolver, is refused by default', async () => {
    const server = await serve((_request, response) => response.end('inside'));
    expect((await failureOf(strict.request(get(`http://localhost:${server.port}/`)))).failure).toBe('forbidden_address');
    expect(server.connections()).toBe(0);
  });

  test('https goes through the same check', async () => {
    const server = await serve((_request, response) => response.end('plain http'));
    const lookup = resolverOf({ 'secure.voxplan.test': ['127.0.0.1'] });
    expect((await failureOf(createOutboundHttp({ lookup }).request(get(`https://secure.voxplan.test:${server.port}/`)))).failure).toBe('forbidden_address');
    expect(server.connections()).toBe(0);
    // Allowed, the socket does connect, and the TLS handshake with a plain-HTTP server fails.
    expect((await failureOf(createOutboundHttp({ lookup, allowLoopback: true }).request(get(`https://secure.voxplan.test:${server.port}/`)))).failure).toBe('network');
    expect(server.connections()).toBe(1);
  });

  test('IPv6 loopback is refused unless allowed', async () => {
    const server = await serve((_request, response) => response.end('inside over IPv6'), '::1');
    expect((await failureOf(strict.request(get(server.base)))).failure).toBe('forbidden_address');
    expect(server.connections()).toBe(0);
    expect((await loopbackAllowed.request(get(server.base))).body).toBe('inside over IPv6');
  });

  test('loopback written as IPv4-mapped IPv6, or as 0.0.0.0, is refused', async () => {
    const server = await serve((_request, response) => response.end('inside'));
    expect((await failureOf(strict.request(get(`http://[::ffff:127.0.0.1]:${server.port}/`)))).failure).toBe('forbidden_address');
    // 0.0.0.0 reaches this host, but is no loopback address that the setting opens.
    expect((await failureOf(loopbackAllowed.request(get(`http://0.0.0.0:${server.port}/`)))).failure).toBe('forbidden_address');
    expect(server.connections()).toBe(0);
  });

  // Needs an interface with a private or unique-local address (containers usually have one).
  const privateAddress = Object.values(os.networkInterfaces())
    .flat()
    .find((entry) => entry && !entry.internal && !entry.address.startsWith('fe80') && judgeAddress(entry.address, { allowLoopback: false, allowPrivate: true }).allowed && !judgeAddress(entry.address, { allowLoopback: false, allowPrivate: false }).allowed)?.address;

  test.skipIf(!privateAddress)('a private address is reached only when allowed, and its redirect to loopback is refused', async () => {
    const loop = await serve((_request, response) => response.end('inside'));
    const server = await serve((request, response) => {
      if (request.url === '/to-loopback') {
        response.writeHead(302, { location: `${loop.base}/` });
        response.end();
      } else {
        response.end('intranet');
      }
    }, privateAddress);
    expect((await failureOf(strict.request(get(`${server.base}/`)))).failure).toBe('forbidden_address');
    const privateAllowed = createOutboundHttp({ allowPrivate: true });
    expect((await privateAllowed.request(get(`${server.base}/`))).body).toBe('intranet');
    expect((await failureOf(privateAllowed.request(get(`${server.base}/to-loopback`)))).failure).toBe('forbidden_address');
    expect(loop.connections()).toBe(0);
  });

  test.skipIf(!privateAddress)('of a name with a private and a loopback record, only the allowed one is connected to', async () => {
    const intranet = await serve((_request, response) => response.end('intranet'), privateAddress);
    // The same port on both hosts, so that the URL fits either record.
    const loop = await serve((_request, response) => response.end('loopback'), '127.0.0.1', intranet.port);
    const lookup = resolverOf({ 'mixed.voxplan.test': [privateAddress!, '127.0.0.1'] });
    const answer = await createOutboundHttp({ lookup, allowLoopback: true }).request(get(`http://mixed.voxplan.test:${loop.port}/`));
    expect(answer.body).toBe('loopback');
    expect(intranet.connections()).toBe(0);
  });
});

describe('requests that cannot be sent', () => {
  test.each(['ftp://example.com/file', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url', ''])('%s is an invalid URL', async (url) => {
    expect((await failureOf(strict.request(get(url)))).failure).toBe('invalid_url');
  });

  test('a bad method or header is refused with its name', async () => {
    expect(await failureOf(strict.request(get('http://example.com/', { method: 'GE T' })))).toMatchObject({ failure: 'invalid_url', message: expect.stringContaining('GE T') });
    expect(await failureOf(strict.request(get('http://example.com/', { headers: { 'X-Bad': 'a\r\nInjected: yes' } })))).toMatchObject({
      failure: 'invalid_url',
      message: expect.stringContaining('X-Bad'),
    });
  });

  test('a refused connection and an unknown name are network failures', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    expect((await failureOf(loopbackAllowed.request(get(`http://127.0.0.1:${port}/`)))).failure).toBe('network');
    const lookup = resolverOf({});
    expect((await failureOf(createOutboundHttp({ lookup }).request(get('http://nowhere.voxplan.test/')))).failure).toBe('network');
  });

  test.each([false, true])('an answer cut off before its end is a network failure, not a shorter body (gzip: %s)', async (gzip) => {
    const whole = gzip ? zlib.gzipSync('{"customer":"Ana"}'.repeat(200)) : Buffer.from('{"customer":"Ana"}'.repeat(200));
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-length': String(whole.length), ...(gzip && { 'content-encoding': 'gzip' }) });
      response.write(whole.subarray(0, whole.length / 2), () => response.socket?.destroy());
    });
    expect((await failureOf(loopbackAllowed.request(get(server.base)))).failure).toBe('network');
  });
});

describe("the server's own requests (a provider's recording)", () => {
  test('requestBytes answers the bytes as they came, not decoded as text', async () => {
    const audio = Buffer.from([0x49, 0x44, 0x33, 0xff, 0xfe, 0x00, 0x80]);
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'audio/mpeg' });
      response.end(audio);
    });
    const answer = await loopbackAllowed.requestBytes(get(server.base));
    expect(answer.body.equals(audio)).toBe(true);
    expect(answer.headers['content-type']).toBe('audio/mpeg');
  });

  test('allowUrl is asked about every hop: a redirect off the allowed origin is refused before connecting to it', async () => {
    const target = await serve((_request, response) => response.end('secret'));
    const origin = await serve((_request, response) => {
      response.writeHead(302, { location: `${target.base}/inside` });
      response.end();
    });
    const allowUrl = (url: URL) => url.origin === origin.base;
    const refused = await failureOf(loopbackAllowed.requestBytes({ ...get(`${origin.base}/recording`), allowUrl }));
    expect(refused).toEqual({ failure: 'forbidden_address', message: `${target.base} is not an address this request may reach` });
    expect(target.connections()).toBe(0);
    expect(origin.connections()).toBe(1);
  });

  test('maxBytes takes the place of the 1 MiB cap', async () => {
    const server = await serve((_request, response) => response.end(Buffer.alloc(MAX_ANSWER_BYTES + 10)));
    expect((await loopbackAllowed.requestBytes({ ...get(server.base), maxBytes: 2 * MAX_ANSWER_BYTES })).body).toHaveLength(MAX_ANSWER_BYTES + 10);
    expect(await failureOf(loopbackAllowed.requestBytes({ ...get(server.base), maxBytes: 16 }))).toMatchObject({ failure: 'too_large' });
  });
});
