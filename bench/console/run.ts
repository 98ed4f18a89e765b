/**
 * What the console makes a browser download: the gzip size of the JavaScript the login route
 * loads (the entry, its static imports and the login page's chunk), and of the largest route chunk.
 * Target: the login route at most 170 KB gzip.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}

const consoleDir = path.resolve(import.meta.dirname, '../../apps/console');
const distDir = path.join(consoleDir, 'dist');
const LOGIN_TARGET_KB = 170;

execFileSync(process.execPath, [path.resolve(consoleDir, '../../node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd: consoleDir, stdio: 'inherit' });

const manifest = JSON.parse(fs.readFileSync(path.join(distDir, '.vite/manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
const gzipKb = (file: string) => gzipSync(fs.readFileSync(path.join(distDir, file)), { level: 9 }).length / 1024;

/** A chunk and everything it imports statically: what the browser must fetch before it runs. */
function staticClosure(key: string, seen = new Set<string>()): Set<string> {
  if (seen.has(key)) return seen;
  seen.add(key);
  for (const imported of manifest[key]?.imports ?? []) staticClosure(imported, seen);
  return seen;
}

const entryKey = Object.keys(manifest).find((key) => manifest[key]!.isEntry)!;
const loginKey = Object.keys(manifest).find((key) => key.endsWith('features/login/LoginPage.tsx'));
if (!loginKey) throw new Error('login page chunk not found in the manifest');
// The first screen also fetches its language's catalogue before it renders (English here).
const catalogueKeys = Object.keys(manifest).filter((key) => /(^|\/)(en\.json|errors\.en\.json)$/.test(key));
const loginChunks = new Set([...staticClosure(entryKey), ...staticClosure(loginKey), ...catalogueKeys]);
const loginKb = [...loginChunks].reduce((sum, key) => sum + gzipKb(manifest[key]!.file), 0);

const routeChunks = Object.entries(manifest)
  .filter(([key, chunk]) => !chunk.isEntry && chunk.file.endsWith('.js') && key.includes('/features/'))
  .map(([key, chunk]) => ({ key, kb: gzipKb(chunk.file) }))
  .sort((a, b) => b.kb - a.kb);
const largest = routeChunks[0];

console.log('console bundle (gzip -9)');
console.log(`  login route: ${loginKb.toFixed(1)} KB in ${loginChunks.size} chunks   target ≤ ${LOGIN_TARGET_KB} KB   ${loginKb <= LOGIN_TARGET_KB ? 'PASS' : 'FAIL'}`);
if (largest) console.log(`  largest route chunk: ${largest.kb.toFixed(1)} KB (${largest.key})`);
console.log(`  all JavaScript: ${fs.readdirSync(path.join(distDir, 'assets')).filter((f) => f.endsWith('.js')).reduce((sum, f) => sum + gzipKb(`assets/${f}`), 0).toFixed(1)} KB`);
