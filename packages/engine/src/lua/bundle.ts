/**
 * The worker's code (worker.ts and what it imports) as one JavaScript module, built once per
 * process. Node 20 runs no TypeScript by itself and a worker does not inherit the module hooks
 * tsx installs in the main thread; registering tsx inside every worker costs about half a second
 * and a loader thread per worker, while esbuild (what tsx itself uses) bundles these few files in
 * about 20 ms. wasmoon stays outside the bundle, imported from its installed file, since it finds
 * its .wasm next to itself.
 */
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * The worker bundled ahead of time by the server's production build (apps/server/scripts/build.ts),
 * next to the bundle that holds this module; wasmoon is named by this placeholder, put in at run
 * time for where it is installed.
 */
export const LUA_WORKER_FILE = 'lua-worker.js';
export const WASMOON_PLACEHOLDER = '__voxplan_wasmoon__';

let source: Promise<string> | undefined;

export function workerSource(): Promise<string> {
  source ??= prebuilt().then((built) => built ?? bundle()).catch((error: unknown) => {
    source = undefined;
    throw error;
  });
  return source;
}

/** The production build's worker, when this module runs from that build; undefined under tsx. */
async function prebuilt(): Promise<string | undefined> {
  let text: string;
  try {
    text = await fs.readFile(new URL(`./${LUA_WORKER_FILE}`, import.meta.url), 'utf8');
  } catch {
    return undefined;
  }
  return text.replaceAll(JSON.stringify(WASMOON_PLACEHOLDER), JSON.stringify(import.meta.resolve('wasmoon')));
}

async function bundle(): Promise<string> {
  const esbuild = await import('esbuild');
  const wasmoon = import.meta.resolve('wasmoon');
  try {
    const result = await esbuild.build({
      entryPoints: [fileURLToPath(new URL('./worker.ts', import.meta.url))],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      alias: { wasmoon },
      external: [wasmoon],
      logLevel: 'silent',
    });
    const output = result.outputFiles[0];
    if (!output) throw new Error('esbuild produced no output for the Lua worker');
    return output.text;
  } finally {
    // esbuild keeps a helper process for later builds; nothing else here needs it.
    await esbuild.stop();
  }
}
