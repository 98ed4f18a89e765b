/**
 * The floor `bench:editor` measures beside the editor's open, in the same run and browser: React
 * Flow drawing the same plan as plain nodes (`floor/main.ts`), built apart and served by a bare
 * static server on 127.0.0.1.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };

export interface Floor {
  /** The page's address for a view (`x`, `y`, `zoom` of React Flow's viewport), on a canvas of `size` (the whole page without). */
  url(view: { x: number; y: number; zoom: number }, size?: { width: number; height: number }): string;
  close(): Promise<void>;
}

/** Builds the floor page with the plan's document beside it and serves it. */
export async function startFloor(plan: object): Promise<Floor> {
  const root = path.resolve(import.meta.dirname, 'floor');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-bench-floor-'));
  execFileSync(process.execPath, [path.resolve(root, '../../../node_modules/vite/bin/vite.js'), 'build', root, '--logLevel', 'warn', '--outDir', dir, '--emptyOutDir', '--base', './'], {
    cwd: root,
    stdio: 'inherit',
  });
  fs.writeFileSync(path.join(dir, 'plan.json'), JSON.stringify(plan));
  const server = http.createServer((request, response) => {
    const file = path.join(dir, path.normalize(new URL(request.url ?? '/', 'http://floor').pathname).replace(/^\/+/, '') || 'index.html');
    if (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (view, size) => `http://127.0.0.1:${port}/index.html?x=${view.x}&y=${view.y}&zoom=${view.zoom}${size ? `&width=${Math.round(size.width)}&height=${Math.round(size.height)}` : ''}`,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
