/**
 * The worker's code (worker.ts and what it imports) as one JavaScript module, built once per
 * process. Node 20 runs no TypeScript by itself and a worker does not inherit the module hooks
 * tsx installs in the main thread; registering tsx inside every worker costs about half a second
 * and a loader thread per worker, while esbuild (what tsx itself uses) bundles these few files in
 * about 20 ms. wasmoon stays outside the bundle, imported from its installed file, since it finds
 * its .wasm next to itself.
 */
import { fileURLToPath } from 'node:url';

let source: Promise<string> | undefined;

export function workerSource(): Promise<string> {
  source ??= bundle().catch((error: unknown) => {
    source = undefined;
    throw error;
  });
  return source;
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
