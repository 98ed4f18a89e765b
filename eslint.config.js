import js from '@eslint/js';
import i18next from 'eslint-plugin-i18next';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The web chat widget runs in other sites' pages.
    files: ['apps/webchat/src/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // The console, and the blocks' editor forms it renders.
    files: ['apps/console/src/**/*.{ts,tsx}', 'packages/blocks/src/**/*.tsx'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
    },
  },
  {
    // Every string a user reads goes through i18n: text written straight into JSX is an error.
    files: ['apps/console/src/**/*.tsx', 'packages/blocks/src/**/*.tsx'],
    ...i18next.configs['flat/recommended'],
  },
  {
    // The plugin reads JSX text only; what a screen reader says or a field shows is read too.
    files: ['apps/console/src/**/*.tsx', 'packages/blocks/src/**/*.tsx'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'JSXAttribute[name.name=/^(aria-label|aria-description|title|placeholder|label|description|alt)$/] > Literal[value=/[A-Za-z]{2}/]',
          message: 'Text a person reads or hears goes through t(), not a literal attribute.',
        },
      ],
    },
  },
);
