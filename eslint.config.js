// ESLint's flat config (`npm run lint`): ESLint's recommended rules and typescript-eslint's, fitted to this code.
import Module, { createRequire } from 'node:module';

/*
 * typescript-eslint parses with TypeScript's compiler API, which TypeScript 7
 * (the `typescript` the build uses, a native binary) no longer offers.
 * TypeScript 6 comes beside it as `@typescript/typescript6`, as TypeScript's
 * own notes on running both advise, and typescript-eslint's packages alone
 * are handed it when they ask for `typescript`; `tsc` stays 7.
 * (package.json's `overrides` let their peer range take the 7 at the top.)
 */
const require = createRequire(import.meta.url);
// `@typescript/typescript6` is TypeScript 6 under the name `@typescript/old`, lib/ and all (the project service asks for lib/tsserverlibrary).
const typescript6 = createRequire(require.resolve('@typescript/typescript6'));
const LINTERS = /[\\/]node_modules[\\/](?:@typescript-eslint[\\/][^\\/]+|typescript-eslint|ts-api-utils)[\\/]/;
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  if (/^typescript(?:\/|$)/.test(request) && parent?.filename && LINTERS.test(parent.filename))
    return typescript6.resolve(request.replace(/^typescript/, '@typescript/old'));
  return resolveFilename.call(this, request, parent, ...rest);
};

const { default: js } = await import('@eslint/js');
const { default: tseslint } = await import('typescript-eslint');
const { default: globals } = await import('globals');

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'relay/src/page-runtime/bundle.generated.ts', 'tests/fixtures/**', 'docs/**', 'skills/**', 'host-manifest/**'],
  },
  js.configs.recommended,
  // Without type information: the type-aware set (recommendedTypeChecked) takes minutes on this tree, this one seconds.
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { ...globals.node, ...globals.browser, ...globals.webextensions },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // TypeScript itself says which names do not exist, knowing the globals of each world (Node, the page, the extension).
      'no-undef': 'off',
      // Unused names are errors; a leading underscore says "unused on purpose" (a rest sibling dropped, a handler's unused argument).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // Terminal colour codes, NUL and the control characters a page's strings may hold are matched on purpose (call logs, line-safe text).
      'no-control-regex': 'off',
      // `catch {}` says "nothing to do" where a failure is expected (a page gone, a file not there yet).
      'no-empty': ['error', { allowEmptyCatch: true }],
      // A run of spaces in a regex matches an aligned column of output as it is printed; {2} would hide what is matched.
      'no-regex-spaces': 'off',
    },
  },
  {
    // Tests, benches and evals reach into what they drive (a raw CDP message, a private field): `any` there says so at the spot.
    files: ['tests/**', 'bench/**', 'eval/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
