import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { expect, test } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const readJson = (file: string): unknown => JSON.parse(readFileSync(path.join(root, file), 'utf8'));

interface LockEntry {
  engines?: { node?: string } | string[];
  dev?: boolean;
  optional?: boolean;
}

/** Packages whose declared Node range leaves out the oldest Node our own `engines` promises. */
export function packagesNeedingNewerNode(promised: string, packages: Record<string, LockEntry>): string[] {
  return Object.entries(packages).flatMap(([location, entry]) => {
    // An engines list (an old npm form) names no version range.
    const wanted = entry.engines && !Array.isArray(entry.engines) ? entry.engines.node : undefined;
    if (!location || !wanted || !semver.validRange(wanted)) return [];
    return semver.subset(promised, wanted, { includePrerelease: true }) ? [] : [`${location} wants node ${wanted}`];
  });
}

test('every installed package runs on the Node versions package.json promises (npm install warns otherwise)', () => {
  const { engines } = readJson('package.json') as { engines: { node: string } };
  const lock = readJson('package-lock.json') as { packages: Record<string, LockEntry> };
  expect(packagesNeedingNewerNode(engines.node, lock.packages)).toEqual([]);
});

test('a package that wants a newer Node than promised is named', () => {
  expect(
    packagesNeedingNewerNode('>=20.19', {
      '': {},
      'node_modules/old': { engines: { node: '>=18' } },
      'node_modules/new': { engines: { node: '>=22' } },
      'node_modules/listed': { engines: ['node'] },
    }),
  ).toEqual(['node_modules/new wants node >=22']);
});
