import http from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import os from 'node:os';
import zlib from 'node:zlib';
import { OutboundError } from '@voxplan/engine/ports';
import { describe, expect, test } from 'vitest';
import { judgeAddress } from './address-policy.ts';
import { createOutboundHttp, guardLookup, MAX_ANSWER_BYTES } from './outbound-http.ts';
import { closeServersAfterEach, failureOf, get, loopbackAllowed, resolverOf, serve, strict } from './outbound-http-fixtures.ts';

closeServersAfterEach();

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
