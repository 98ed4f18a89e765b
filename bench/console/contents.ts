/**
 * What each chunk of a console build holds: a Vite plugin that records the modules rolldown put in
 * each chunk, and a table of a chunk's largest parts (a package, or a file of ours), each measured
 * as its code minified and gzipped alone (a little more than its share of the chunk, whose gzip
 * also finds words across parts).
 */
import { gzipSync } from 'node:zlib';
import { minifySync } from 'rolldown/utils';
import type { Plugin } from 'vite';

/** Chunk file (`assets/app-….js`) → its modules' ids and rendered code. */
export type ChunkModules = Map<string, { id: string; code: string }[]>;

export function recordChunkModules(into: ChunkModules): Plugin {
  return {
    name: 'bench-chunk-modules',
    generateBundle(_options, bundle) {
      for (const [file, output] of Object.entries(bundle)) {
        if (output.type !== 'chunk') continue;
        into.set(
          file,
          Object.entries(output.modules).map(([id, module]) => ({ id, code: module.code ?? '' })),
        );
      }
    },
  };
}

/** A module's part: its package under node_modules (`@scope/name`), else its path in the repository. */
export function partOf(id: string, root: string): string {
  const clean = id.replace(/^\0/, '').split('?')[0]!;
  const inModules = clean.lastIndexOf('node_modules/');
  if (inModules >= 0) {
    const parts = clean.slice(inModules + 'node_modules/'.length).split('/');
    return parts.slice(0, parts[0]!.startsWith('@') ? 2 : 1).join('/');
  }
  return clean.startsWith(root) ? clean.slice(root.length + 1) : clean;
}

export interface Part {
  name: string;
  /** Gzip (level 9) KB of the part's code minified, alone. */
  kb: number;
}

/** A chunk's parts, largest first. */
export function chunkParts(modules: { id: string; code: string }[], root: string): Part[] {
  const code = new Map<string, string>();
  for (const module of modules) {
    const name = partOf(module.id, root);
    code.set(name, `${code.get(name) ?? ''}${module.code}\n`);
  }
  return [...code]
    .map(([name, text]) => {
      const minified = minifySync('part.js', text, { compress: true, mangle: true }).code;
      return { name, kb: gzipSync(minified, { level: 9 }).length / 1024 };
    })
    .sort((a, b) => b.kb - a.kb);
}
