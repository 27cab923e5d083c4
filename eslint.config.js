/** ESLint flat config for the whole monorepo: typescript-eslint everywhere, Svelte rules for the web app. */
import js from '@eslint/js'
import { defineConfig, globalIgnores } from 'eslint/config'
import svelte from 'eslint-plugin-svelte'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default defineConfig(
  globalIgnores([
    '**/dist/',
    '**/dist-bench/',
    '**/dist-sea/',
    '**/build/',
    '**/coverage/',
    '**/.turbo/',
    '**/node_modules/',
    'data/',
  ]),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // An underscore marks a parameter that a signature requires but the body does not use.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },
  {
    files: ['apps/web/**'],
    languageOptions: { globals: globals.browser },
  },
  {
    files: ['apps/web/**/*.svelte', 'apps/web/**/*.svelte.ts', 'apps/web/**/*.svelte.js'],
    extends: [svelte.configs.recommended],
    languageOptions: {
      parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] },
    },
  },
)
