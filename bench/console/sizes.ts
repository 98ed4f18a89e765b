/**
 * What a built console makes a browser download, read from Vite's manifest: shared by
 * `npm run bench:console` and the e2e test that holds the sign-in route to its budget.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/** The sign-in route's JavaScript, gzip, at most. */
export const LOGIN_TARGET_KB = 170;

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}

export interface ConsoleSizes {
  /** Gzip (level 9) KB of what the sign-in route fetches before it shows. */
  loginKb: number;
  /** Manifest keys of those chunks. */
  loginChunks: string[];
  /** The largest chunk of a screen (under `features/`). */
  largest?: { key: string; kb: number };
  allKb: number;
}

export function consoleSizes(distDir: string): ConsoleSizes {
  const manifest = JSON.parse(fs.readFileSync(path.join(distDir, '.vite/manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  const gzipKb = (file: string) => gzipSync(fs.readFileSync(path.join(distDir, file)), { level: 9 }).length / 1024;

  /** A chunk and everything it imports statically: what the browser must fetch before it runs. */
  function staticClosure(key: string, seen = new Set<string>()): Set<string> {
    if (seen.has(key)) return seen;
    seen.add(key);
    for (const imported of manifest[key]?.imports ?? []) staticClosure(imported, seen);
    return seen;
  }

  const entryKey = Object.keys(manifest).find((key) => manifest[key]!.isEntry);
  if (!entryKey) throw new Error('no entry chunk in the manifest');
  const loginKey = Object.keys(manifest).find((key) => key.endsWith('features/login/LoginPage.tsx'));
  if (!loginKey) throw new Error('login page chunk not found in the manifest');
  // The first screen also fetches its language's catalogue before it renders (English here).
  const catalogueKeys = Object.keys(manifest).filter((key) => /(^|\/)(en\.json|errors\.en\.json)$/.test(key));
  const loginChunks = [...new Set([...staticClosure(entryKey), ...staticClosure(loginKey), ...catalogueKeys])];
  const loginKb = loginChunks.reduce((sum, key) => sum + gzipKb(manifest[key]!.file), 0);

  const largest = Object.entries(manifest)
    .filter(([key, chunk]) => !chunk.isEntry && chunk.file.endsWith('.js') && key.includes('/features/'))
    .map(([key, chunk]) => ({ key, kb: gzipKb(chunk.file) }))
    .sort((a, b) => b.kb - a.kb)[0];
  const assets = path.join(distDir, 'assets');
  const allKb = fs
    .readdirSync(assets)
    .filter((file) => file.endsWith('.js'))
    .reduce((sum, file) => sum + gzipKb(`assets/${file}`), 0);
  return { loginKb, loginChunks, largest, allKb };
}
