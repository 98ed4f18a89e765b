import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Serves the built console at / and answers every client route with index.html, so a reload on
 * /users works. API paths keep their JSON 404.
 */
export const consolePlugin = fp(async (app: FastifyInstance, opts: { dir: string; apiPrefix: string }) => {
  const index = path.join(opts.dir, 'index.html');
  if (!fs.existsSync(index)) {
    app.log.warn({ dir: opts.dir }, 'console not built: run npm run build');
    return;
  }
  await app.register(fastifyStatic, { root: opts.dir, wildcard: false, index: false, maxAge: '1h', immutable: false });
  const html = fs.readFileSync(index);
  app.get('/', (_request, reply) => reply.type('text/html').header('cache-control', 'no-cache').send(html));
  // Every built file has its own route (registered by @fastify/static); anything else is a client route.
  app.get('/*', (request, reply) => {
    if (request.url.startsWith(opts.apiPrefix)) return reply.callNotFound();
    return reply.type('text/html').header('cache-control', 'no-cache').send(html);
  });
});
