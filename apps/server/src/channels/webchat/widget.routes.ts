import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../errors.ts';

export const WIDGET_PATH = '/widget.js';

/**
 * The web chat widget's script (apps/webchat, built into WEBCHAT_DIR), for other sites' pages.
 * Read once, when first asked for: a server started before the build still serves it afterwards.
 */
export function registerWidgetRoute(app: FastifyInstance, ctx: Pick<AppContext, 'config'>): void {
  let script: Buffer | undefined;
  app.get(WIDGET_PATH, { schema: { hide: true } }, async (_request, reply) => {
    script ??= await readFile(path.join(ctx.config.webchatDir, 'widget.js')).catch(() => undefined);
    if (!script) throw notFound();
    return (
      reply
        .type('text/javascript; charset=utf-8')
        // Another site's <script> is a no-cors request: the default same-origin policy would block it.
        .header('cross-origin-resource-policy', 'cross-origin')
        // Not versioned by name: a new release reaches pages within minutes.
        .header('cache-control', 'public, max-age=300')
        .send(script)
    );
  });
}
