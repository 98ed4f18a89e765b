/**
 * The sign-in route's floor (floor/main.ts): a Mantine sign-in form alone, built for production
 * with Vite as the console is, and the gzip size (level 9) of the JavaScript it loads.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

/** Gzip KB of every JavaScript file of the floor's build. */
export async function signInFloorKb(): Promise<number> {
  const root = path.resolve(import.meta.dirname, 'floor');
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-bench-signin-floor-'));
  try {
    // 'error': Mantine's modules each warn that their "use client" directive is dropped, which means nothing in a browser bundle.
    await build({ root, configFile: false, logLevel: 'error', base: './', build: { outDir, emptyOutDir: true } });
    const assets = path.join(outDir, 'assets');
    return fs
      .readdirSync(assets)
      .filter((file) => file.endsWith('.js'))
      .reduce((sum, file) => sum + gzipSync(fs.readFileSync(path.join(assets, file)), { level: 9 }).length / 1024, 0);
  } finally {
    fs.rmSync(outDir, { recursive: true, force: true });
  }
}
