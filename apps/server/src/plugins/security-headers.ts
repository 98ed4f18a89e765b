import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

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

/** The policy as a header value, for plugins that set their own (Swagger UI's staticCSP). */
export const contentSecurityPolicy = Object.entries(contentSecurityDirectives)
  .map(([name, values]) => `${name} ${values.join(' ')}`)
  .join('; ');

/**
 * Security headers on every answer through @fastify/helmet. HSTS only when the public address is
 * https: a plain-HTTP install on a LAN address must keep loading, and so must its assets, hence no
 * upgrade-insecure-requests either.
 */
export const securityHeadersPlugin = fp(async (app: FastifyInstance, opts: { publicUrl: string }) => {
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityDirectives },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: opts.publicUrl.startsWith('https://') ? { maxAge: 180 * 24 * 3600, includeSubDomains: false } : false,
  });
});
