import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * The Content-Security-Policy of every answer: the console (Vite's build has no inline script),
 * the API's JSON and the API's documentation page (Swagger UI, whose scripts are files too).
 * Mantine writes <style> tags and style attributes, hence 'unsafe-inline' for styles only; an
 * audio is played from a blob: URL (fetched with the token); the simulator's WebSocket is 'self'.
 * Nobody may frame the console: a signed-in page inside another site could be clicked through.
 */
export const contentSecurityDirectives = {
  'default-src': ["'self'"],
  'base-uri': ["'self'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'media-src': ["'self'", 'blob:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/**
 * The headers helmet sets with `options`, found once by running its middleware on a response that
 * only records them: they depend on nothing in the request. @fastify/helmet 13 builds helmet's
 * middleware again on every request (helmet(options) per request, the policy's text included):
 * measured +26 µs of CPU a request, against +6.5 µs for these same headers set from a record.
 */
export function helmetHeaders(options: Readonly<HelmetOptions>): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string) {
      headers[name.toLowerCase()] = value;
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  // Only setHeader and removeHeader are called with a policy that holds no function.
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return Object.freeze(headers);
}

/**
 * Helmet's security headers on every answer. HSTS only when the public address is https: a
 * plain-HTTP install on a LAN address must keep loading, and so must its assets, hence no
 * upgrade-insecure-requests either.
 */
export const securityHeadersPlugin = fp(async (app: FastifyInstance, opts: { publicUrl: string }) => {
  const headers = helmetHeaders({
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityDirectives },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: opts.publicUrl.startsWith('https://') ? { maxAge: 180 * 24 * 3600, includeSubDomains: false } : false,
  });
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
});
