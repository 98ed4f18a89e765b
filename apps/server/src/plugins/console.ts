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
  app.get('/*', (request, reply) => {
    if (request.url.startsWith(opts.apiPrefix)) return reply.callNotFound();
    const file = path.join(opts.dir, decodeURIComponent(request.url.split('?')[0]!));
    if (file.startsWith(opts.dir + path.sep) && fs.existsSync(file) && fs.statSync(file).isFile()) {
      return reply.sendFile(path.relative(opts.dir, file), {
        // Built assets carry a content hash in their names: they never change.
        maxAge: request.url.startsWith('/assets/') ? 31_536_000_000 : 0,
        immutable: request.url.startsWith('/assets/'),
      });
    }
    return reply.type('text/html').header('cache-control', 'no-cache').send(html);
  });
});
