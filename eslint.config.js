import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Code outside a folder imports it only through its door (index.ts). A door
 * costs the bundle nothing it does not use: package.json's `sideEffects`
 * names the few modules that do something when loaded, so esbuild drops the
 * rest of a folder a call does not reach.
 */
const doors = {
  group: [
    '../**/core/*',
    '!../**/core/index.js',
    '../**/log/*',
    '!../**/log/index.js',
    '../**/render/*',
    '!../**/render/index.js',
    './core/*',
    '!./core/index.js',
    './log/*',
    '!./log/index.js',
    './render/*',
    '!./render/index.js',
    '../**/policies/*',
    '!../**/policies/index.js',
    './policies/*',
    '!./policies/index.js',
    '**/events/*',
    '!**/events/index.js',
    // zod/mini's English messages (what the refusals are worded from): imported by every module that builds a schema.
    '!**/events/zod-locale.js',
    '**/machines/*',
    '!**/machines/index.js',
    '**/src/cli/*',
    '!**/src/cli/index.js',
    '../**/fleet/*',
    '!../**/fleet/index.js',
    './fleet/*',
    '!./fleet/index.js',
    '../**/listen/*',
    '!../**/listen/index.js',
    './listen/*',
    '!./listen/index.js',
  ],
  message: 'Import a folder through its door (index.ts).',
};

/** `import { z } from 'zod/mini'` pulls the whole namespace, every locale included, into the CLI bundle (454 KB against 85 KB). */
const zodNamespace = {
  selector: "ImportDeclaration[source.value=/^zod/] > ImportSpecifier[imported.name='z']",
  message: "Write `import * as z from 'zod/mini'`: the z object keeps all of zod (every locale) in the CLI bundle.",
};

/**
 * Classic zod (`zod`, `zod/v4`, `zod/v4/classic`, `zod/v3`) in the code (issue 30): every one-shot CLI process would pay
 * to load it (~12-14 ms, and it is not tree-shakable) before building a single schema; zod/mini loads in ~5 ms.
 */
const zodClassic = {
  selector: 'ImportDeclaration[source.value=/^zod(.v4(.classic)?|.v3)?$/]',
  message:
    "Import zod/mini (`import * as z from 'zod/mini'`), not classic zod: classic zod costs every CLI process ~12-14 ms to load and is not tree-shakable, which start-up cannot afford (issue 30).",
};

const effects = ['fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'child_process', 'node:child_process', 'node:crypto'];

/**
 * Node's builtins at the edge come from `process.getBuiltinModule`, not an `import`: an ES module import of a builtin makes
 * every export it has first (node:crypto's webcrypto and ciphers, node:fs's promises and streams, node:child_process's
 * sockets), which cost each CLI call milliseconds (docs/architecture.md#node-builtins). Types are imported as ever.
 */
const builtinImport = {
  selector: "ImportDeclaration[importKind='value'][source.value=/^node:/]",
  message: "Take a builtin with `const { x } = process.getBuiltinModule('node:…')`: an import makes every export of it first.",
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': ['error', { patterns: [doors] }],
      'no-restricted-syntax': ['error', zodNamespace],
    },
  },
  {
    files: ['src/**/*.ts', 'events/**/*.ts', 'machines/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', zodNamespace, zodClassic] },
  },
  {
    // The edge, where the process, files and sockets are (the core imports no builtin that acts).
    files: ['src/*.ts', 'src/api/**/*.ts', 'src/cli/**/*.ts', 'src/fleet/**/*.ts', 'src/listen/**/*.ts', 'src/log/**/*.ts', 'src/session/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', zodNamespace, zodClassic, builtinImport] },
  },
  {
    // The pure core: events in, state out. Files live in src/log, the process in src/cli.
    files: ['events/**/*.ts', 'machines/**/*.ts', 'src/core/**/*.ts', 'src/policies/**/*.ts', 'src/render/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: effects.map((name) => ({ name, message: 'The pure core does no I/O and makes no ids: do it at the edge.' })),
          patterns: [doors, { group: ['**/log/**', '**/cli/**', '**/session.js'], message: 'The core does not reach out to the edge.' }],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'Only src/cli touches process.' },
        { name: 'Date', message: 'The core never reads a clock: timestamps come in events.' },
      ],
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'No randomness in the core.' }],
    },
  },
);
