// Lint: recommended rules, no `any`, and the dependency direction of the layout (see README).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

const restrict = (files, patterns) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns }] },
});

const noRouter = { group: ['@koa/router'], message: 'declare routes with route() from http/route-table.ts' };
const httpRules = [
  { group: ['nact', 'nact/*'], message: 'use src/messaging/nact.ts' },
  { group: ['**/actors/*/actor.ts', '**/actors/*/router.ts'], message: 'import the protocol, not the actor' },
  // The stores' one error type (a database that cannot be reached) is what HTTP answers 503 for.
  { group: ['**/src/stores/*', '!**/src/stores/store-unavailable.ts'], message: 'HTTP never touches a store' },
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'bench/**', 'dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  // Stores and actors are asynchronous: a promise nobody awaits loses its errors and its order
  // (type-aware, so TypeScript files only).
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
  // Only src/messaging/nact.ts may import nact, and only http/route-table.ts makes a router (so that no
  // route is registered without its access check).
  restrict(['**/*.ts'], [{ group: ['nact', 'nact/*'], message: 'use src/messaging/nact.ts' }, noRouter]),
  // The composition root (src/composition/) is the one place in src/ that builds on actors and
  // HTTP; the REPL speaks to actors through their protocols; everything else in src/ is below both.
  {
    ...restrict(
      ['src/**/*.ts'],
      [
        { group: ['nact', 'nact/*'], message: 'use src/messaging/nact.ts' },
        noRouter,
        { group: ['**/actors/**', '**/http/**'], message: 'only src/composition/ builds on actors and HTTP' },
      ],
    ),
    ignores: ['src/composition/**', 'src/repl.ts', 'src/repl/**'],
  },
  restrict(
    ['src/repl.ts', 'src/repl/**/*.ts'],
    [
      { group: ['nact', 'nact/*'], message: 'use src/messaging/nact.ts' },
      noRouter,
      {
        group: ['**/actors/*/actor.ts', '**/actors/*/router.ts'],
        message: 'the REPL speaks to actors through their protocols',
      },
      { group: ['**/http/**'], message: 'the REPL does not go through HTTP' },
    ],
  ),
  { files: ['src/messaging/nact.ts'], rules: { 'no-restricted-imports': 'off' } },
  // HTTP speaks to actors through their protocols, never their implementations or the stores.
  restrict(['http/**/*.ts'], [...httpRules, noRouter]),
  restrict(['http/route-table.ts'], httpRules),
  // Actors see store ports, never adapters or HTTP: an allow-list, so a new adapter or helper file
  // is refused until it is meant for actors. Allowed: the actor's own folder, other actors'
  // protocols, the messaging kernel, store ports (*-store.ts), security functions, ids, fields,
  // the configuration's types, zod and node's own modules. An actor's folder may have folders of
  // its own (actors/token/grants): their files see the same, one level further up.
  restrict(
    ['actors/**/*.ts'],
    [
      {
        regex:
          '^(?!\\./([a-z-]+/)?[a-z-]+\\.ts$|\\.\\./[a-z-]+/protocol\\.ts$|\\.\\./\\.\\./src/(messaging/[a-z-]+|stores/[a-z-]+-store|security/[a-z-]+|ids|fields|config)\\.ts$|zod$|node:)',
        message: 'actors import their own folder, protocols, src/messaging, store ports and src/security only',
      },
    ],
  ),
  restrict(
    ['actors/*/*/**/*.ts'],
    [
      {
        regex:
          '^(?!\\./[a-z-]+\\.ts$|\\.\\./[a-z-]+\\.ts$|\\.\\./\\.\\./[a-z-]+/protocol\\.ts$|\\.\\./\\.\\./\\.\\./src/(messaging/[a-z-]+|stores/[a-z-]+-store|security/[a-z-]+|ids|fields|config)\\.ts$|zod$|node:)',
        message: 'actors import their own folder, protocols, src/messaging, store ports and src/security only',
      },
    ],
  ),
  // A protocol is plain typed data: its builders get their message and reply types from RequestOf
  // (src/messaging/ask.ts), never from a cast.
  {
    files: ['actors/*/protocol.ts', 'actors/*/replies.ts'],
    rules: { '@typescript-eslint/consistent-type-assertions': ['error', { assertionStyle: 'never' }] },
  },
  // A focused test (.only) would silently skip every other test of its file.
  {
    files: ['test/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.type='MemberExpression'][callee.property.name='only']",
          message: 'remove .only: it skips every other test of the file',
        },
      ],
    },
  },
  // Security functions take what they check as parameters: the configuration is read, and the
  // registered clients built from it, in the composition root.
  restrict(
    ['src/security/**/*.ts'],
    [
      { group: ['nact', 'nact/*'], message: 'use src/messaging/nact.ts' },
      noRouter,
      { group: ['**/actors/**', '**/http/**'], message: 'only src/composition/ builds on actors and HTTP' },
      {
        group: ['**/config.ts', '**/config/**', '**/composition/**'],
        message: 'src/security takes what it needs as parameters; the composition root reads the configuration',
      },
    ],
  ),
  // Store adapters know neither actors nor HTTP.
  restrict(
    ['src/stores/**/*.ts'],
    [
      { group: ['nact', 'nact/*'], message: 'use src/messaging/nact.ts' },
      { group: ['**/actors/**', '**/http/**'], message: 'adapters point inward only' },
    ],
  ),
  // Formatting is Prettier's (`npm run format`; `npm run lint` checks it): no stylistic lint rules.
  prettier,
);
