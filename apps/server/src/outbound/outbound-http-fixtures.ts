/**
 * The local servers, requests, failure reader and resolver shared by the outbound client's tests
 * (outbound-http.test.ts and outbound-http-guard.test.ts).
 */
import http from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { OutboundError, type OutboundFailure, type OutboundRequest } from '@voxplan/engine/ports';
import { afterEach } from 'vitest';
import { createOutboundHttp } from './outbound-http.ts';

interface TestServer {
  /** http://host:port, IPv6 hosts in brackets. */
  base: string;
  port: number;
  /** TCP connections the server accepted. */
  connections: () => number;
}
const servers: http.Server[] = [];

/** Closes, after each test, every server `serve` started in it. */
export function closeServersAfterEach(): void {
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
}

export async function serve(handler: http.RequestListener, host = '127.0.0.1', port = 0): Promise<TestServer> {
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
export const get = (url: string, extra: Partial<OutboundRequest> = {}): OutboundRequest => ({ method: 'GET', url, timeoutMs: 5000, ...extra });
export async function failureOf(promise: Promise<unknown>): Promise<{ failure: OutboundFailure; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OutboundError) return { failure: error.failure, message: error.message };
    throw error;
  }
  throw new Error('the request succeeded');
}

/** A resolver that knows only the names given, as a zone file would. */export function resolverOf(zone: Record<string, string[]>): LookupFunction & { calls: string[] } {
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
export const loopbackAllowed = createOutboundHttp({ allowLoopback: true });
export const strict = createOutboundHttp();
