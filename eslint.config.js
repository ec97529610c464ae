import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
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
                '**/events/*',
                '!**/events/index.js',
                '**/machines/*',
                '!**/machines/index.js',
              ],
              message: 'Import a folder through its door (index.ts).',
            },
          ],
        },
      ],
    },
  },
);
