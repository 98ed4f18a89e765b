/**
 * What the console makes a browser download: the gzip size of the JavaScript the sign-in route
 * loads (the entry, its static imports and the sign-in page's chunk, with the sign-in texts), what
 * each of those chunks holds, the dashboard's and the editor's routes, and the largest route chunk.
 * Targets in `sizes.ts`.
 */
import path from 'node:path';
import { build } from 'vite';
import { chunkParts, type ChunkModules, recordChunkModules } from './contents.ts';
import { consoleSizes, DASHBOARD_TARGET_KB, EDITOR_TARGET_KB, LOGIN_TARGET_KB, manifestFile } from './sizes.ts';

const consoleDir = path.resolve(import.meta.dirname, '../../apps/console');
const repoRoot = path.resolve(consoleDir, '../..');
const distDir = path.join(consoleDir, 'dist');

const modules: ChunkModules = new Map();
await build({ root: consoleDir, configFile: path.join(consoleDir, 'vite.config.ts'), logLevel: 'warn', plugins: [recordChunkModules(modules)] });

const { loginKb, loginChunks, chunkKb, dashboard, editor, largest, allKb } = consoleSizes(distDir);
const verdict = (kb: number, target: number) => `target ≤ ${target} KB   ${kb <= target ? 'PASS' : 'FAIL'}`;

console.log('console bundle (gzip -9)');
console.log(`  sign-in route: ${loginKb.toFixed(1)} KB in ${loginChunks.length} chunks   ${verdict(loginKb, LOGIN_TARGET_KB)}`);
// What the sign-in route drags in, chunk by chunk: the parts of 0.3 KB or more.
for (const key of [...loginChunks].sort((a, b) => chunkKb(b) - chunkKb(a))) {
  const file = manifestFile(distDir, key);
  const parts = chunkParts(modules.get(file) ?? [], repoRoot).filter((part) => part.kb >= 0.3);
  const holds = parts.map((part) => `${part.name} ${part.kb.toFixed(1)}`).join(', ');
  console.log(`    ${chunkKb(key).toFixed(1).padStart(6)} KB  ${key}${holds ? `: ${holds}` : ''}`);
}
console.log(`  dashboard route (where users land): ${dashboard.kb.toFixed(1)} KB in ${dashboard.chunks.length} chunks   ${verdict(dashboard.kb, DASHBOARD_TARGET_KB)}`);
console.log(`  plan editor route: ${editor.kb.toFixed(1)} KB in ${editor.chunks.length} chunks   ${verdict(editor.kb, EDITOR_TARGET_KB)}`);
if (largest) console.log(`  largest route chunk: ${largest.kb.toFixed(1)} KB (${largest.key})`);
console.log(`  all JavaScript: ${allKb.toFixed(1)} KB`);
