import type { LookupFunction } from 'node:net';
import zlib from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { createOutboundHttp, MAX_ANSWER_BYTES } from './outbound-http.ts';
import { closeServersAfterEach, failureOf, get, loopbackAllowed, resolverOf, serve } from './outbound-http-fixtures.ts';

closeServersAfterEach();

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
