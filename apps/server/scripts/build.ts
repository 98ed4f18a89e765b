/**
 * The production build of the server (`npm run build -w @voxplan/server`, part of `npm start`):
 * src/main.ts and everything it imports from this repository (the workspace packages too, whose
 * exports are TypeScript) bundled by esbuild into dist/main.js with its source map, so that
 * `node --enable-source-maps dist/main.js` runs it without a TypeScript loader. Dependencies
 * installed from npm stay outside the bundle, imported from node_modules as they are.
 *
 * dist/ sits beside src/ so that paths built from `import.meta.dirname` (the console's and web
 * chat's dist, config.ts) point where they do from src/. The Lua worker's code, which the engine
 * bundles at run time from TypeScript under tsx, is bundled here once into dist/lua-worker.js
 * (packages/engine/src/lua/bundle.ts reads it when it is there).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { LUA_WORKER_FILE, WASMOON_PLACEHOLDER } from '@voxplan/engine/lua';

const serverDir = path.resolve(import.meta.dirname, '..');
const outDir = path.join(serverDir, 'dist');

/** npm packages stay external; the workspace's own (@voxplan/*), its packages' imports (#…) and relative imports are bundled. */
const externalDependencies: esbuild.Plugin = {
  name: 'external-dependencies',
  setup(build) {
    build.onResolve({ filter: /^[^./#]/ }, (args) => (args.path.startsWith('@voxplan/') || args.path.startsWith('node:') ? undefined : { path: args.path, external: true }));
  },
};

const common: esbuild.BuildOptions = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  // The paths in the source map are relative to dist/, so stack traces name the files under src/.
  sourcesContent: false,
  logLevel: 'warning',
};

fs.rmSync(outDir, { recursive: true, force: true });
await esbuild.build({
  ...common,
  entryPoints: [path.join(serverDir, 'src/main.ts')],
  outfile: path.join(outDir, 'main.js'),
  plugins: [externalDependencies],
  // Some dependencies are CommonJS that call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __voxplanCreateRequire } from 'node:module'; const require = __voxplanCreateRequire(import.meta.url);" },
});
await esbuild.build({
  ...common,
  entryPoints: [fileURLToPath(import.meta.resolve('@voxplan/engine/lua').replace(/index\.ts$/, 'worker.ts'))],
  outfile: path.join(outDir, LUA_WORKER_FILE),
  sourcemap: false,
  alias: { wasmoon: WASMOON_PLACEHOLDER },
  external: [WASMOON_PLACEHOLDER],
});
process.stdout.write(`server built into ${path.relative(process.cwd(), outDir) || '.'}\n`);
