/**
 * The floors of the code, as a check (`npm run check:layers`, part of `npm run check`). Each rule's
 * comment is what a breach prints: docs/architecture.md draws the same floors.
 *
 * The server reads from the top down: the composition root (main.ts, app.ts, bootstrap.ts, cli/) →
 * channels/ → modules/ (with context.ts, the AppContext they are handed) → resources/ → the platform
 * (plugins/, outbound/, platform.ts) → db/ → lib/ (with config.ts and errors.ts). A file imports its
 * own floor or the floors below it, never one above, not even a type.
 *
 * No exceptions: there is no list of known violations, so any circle or upward import fails.
 */
const src = '^apps/server/src/';
const floors = [
  { name: 'composition root', where: 'main.ts, app.ts, bootstrap.ts, cli/', paths: [`${src}(main|app|bootstrap)\\.ts$`, `${src}cli/`] },
  { name: 'channels', where: 'channels/', paths: [`${src}channels/`] },
  { name: 'modules', where: 'modules/, context.ts', paths: [`${src}modules/`, `${src}context\\.ts$`] },
  { name: 'resources', where: 'resources/', paths: [`${src}resources/`] },
  { name: 'platform', where: 'plugins/, outbound/, platform.ts', paths: [`${src}plugins/`, `${src}outbound/`, `${src}platform\\.ts$`] },
  { name: 'db', where: 'db/', paths: [`${src}db/`] },
  { name: 'lib', where: 'lib/, config.ts, errors.ts', paths: [`${src}lib/`, `${src}(config|errors)\\.ts$`] },
];

const floorRules = floors.slice(1).map((floor, index) => {
  const above = floors.slice(0, index + 1);
  return {
    name: `server-${floor.name.replace(/ /g, '-')}-not-upward`,
    comment:
      `The server's floors run one way: a file of the ${floor.name} floor (${floor.where} of apps/server/src) ` +
      `imports its own floor or those below it, never a floor above it (${above.map((f) => f.name).join(', ')}), not even a type. ` +
      'What it needs from above, it declares as a narrow port type on its own floor, and the composition root ' +
      '(app.ts, bootstrap.ts) fills it in (docs/architecture.md).',
    severity: 'error',
    from: { path: floor.paths, pathNot: '\\.test\\.ts$' },
    to: { path: above.flatMap((f) => f.paths) },
  };
});

module.exports = {
  forbidden: [
    ...floorRules,
    {
      name: 'server-file-has-a-floor',
      comment:
        'Every file of apps/server/src sits on one floor of .dependency-cruiser.cjs (docs/architecture.md): ' +
        'a new folder at the root of the server gets its floor there, so the check knows which way it may import.',
      severity: 'error',
      from: { path: src, pathNot: [...floors.flatMap((f) => f.paths), '\\.test\\.ts$'] },
      to: {},
    },
    {
      name: 'no-circular',
      comment:
        'Two files that import each other, even only for types, have no floor between them: a change to either ' +
        'reaches the other. Move what both need into a third file below them, or declare a port where it is used.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'packages-not-apps',
      comment: 'packages/ (contracts, engine, blocks) are shared by the server and the console: they never import an app.',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^apps/' },
    },
    {
      name: 'console-not-server',
      comment:
        'The console talks to the server through its HTTP API and shares only packages/: it never imports apps/server, ' +
        'nor the server-only entry points of the packages (blocks/runtime, engine/lua).',
      severity: 'error',
      from: { path: '^apps/(console|webchat)/src/' },
      to: { path: ['^apps/server/', '^packages/blocks/src/runtime\\.ts$', '^packages/engine/src/lua/'] },
    },
    {
      name: 'webchat-only-contracts',
      comment: 'The web chat widget is embedded on customers\' sites and must stay small: of the packages it takes only contracts.',
      severity: 'error',
      from: { path: '^apps/webchat/src/' },
      to: { path: '^packages/(engine|blocks)/' },
    },
    {
      name: 'server-not-editor',
      comment: 'The server runs no React: it takes the blocks\' definitions and runtime, never their editor side (blocks/editor).',
      severity: 'error',
      from: { path: '^apps/server/' },
      to: { path: '^packages/blocks/src/(editor|editor-registry)\\.ts$' },
    },
  ],
  options: {
    // Type-only imports count: a type is a dependency too (issue 42).
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['node_modules', '(^|/)dist/'] },
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
