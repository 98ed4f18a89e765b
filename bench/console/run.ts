/**
 * What the console makes a browser download: the gzip size of the JavaScript the login route
 * loads (the entry, its static imports and the login page's chunk), and of the largest route chunk.
 * Target: the login route at most 170 KB gzip.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { consoleSizes, DASHBOARD_TARGET_KB, LOGIN_TARGET_KB } from './sizes.ts';

const consoleDir = path.resolve(import.meta.dirname, '../../apps/console');

execFileSync(process.execPath, [path.resolve(consoleDir, '../../node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd: consoleDir, stdio: 'inherit' });

const { loginKb, loginChunks, dashboard, largest, allKb } = consoleSizes(path.join(consoleDir, 'dist'));

console.log('console bundle (gzip -9)');
console.log(`  login route: ${loginKb.toFixed(1)} KB in ${loginChunks.length} chunks   target ≤ ${LOGIN_TARGET_KB} KB   ${loginKb <= LOGIN_TARGET_KB ? 'PASS' : 'FAIL'}`);
console.log(
  `  dashboard route (where users land): ${dashboard.kb.toFixed(1)} KB in ${dashboard.chunks.length} chunks   target ≤ ${DASHBOARD_TARGET_KB} KB   ${dashboard.kb <= DASHBOARD_TARGET_KB ? 'PASS' : 'FAIL'}`,
);
if (largest) console.log(`  largest route chunk: ${largest.kb.toFixed(1)} KB (${largest.key})`);
console.log(`  all JavaScript: ${allKb.toFixed(1)} KB`);
