// ESLint checks what the code means; Prettier (.prettierrc.json) owns its layout, and
// eslint-config-prettier, last below, turns off every rule the two would fight over.
// `npm run lint` runs both.
import js from '@eslint/js'
import prettier from 'eslint-config-prettier'
import { defineConfig, globalIgnores } from 'eslint/config'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default defineConfig(
  globalIgnores([
    'dist/',
    // The partner client's build (packages/connect-client: `npm run build` there).
    'packages/*/dist/',
    '.declarations/',
    '.api-report/',
    'docs/',
    'coverage/',
    '.runtimes/',
    '.data/',
    'bench/node_modules/',
    'bench/_*.ts',
    // Generated from src/dashboard/client/ by `npm run dashboard:assets`.
    'src/http/dashboard/assets.ts',
    // Generated from docs/*openapi.json by `npm run openapi` (openapi-typescript).
    'test/docs/openapi-types/',
  ]),
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      // One program for every TypeScript file: tsconfig.json includes src/, test/,
      // bench/, examples/, scripts/ and the *.config.ts files.
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    rules: {
      // With noUncheckedIndexedAccess, `!` after an index the code has just checked is
      // how it says "present"; the type checker already refuses the unchecked cases.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Numbers in messages and keys (`acc_${i}`) read as what they are.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // `(x) => set.add(x)` callbacks and `return next()` in a function that returns
      // nothing are the code's idiom (and the frameworks'); a block body adds nothing.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true, ignoreVoidReturningFunctions: true }],
      // `this: void` says a reader's or a scope's methods may be taken off the object.
      '@typescript-eslint/no-invalid-void-type': ['error', { allowAsThisParameter: true }],
      // A Nest module is a class its decorator describes (`@Module({ … }) class AppModule {}`).
      '@typescript-eslint/no-extraneous-class': ['error', { allowWithDecorator: true }],
      // Express types its request through `declare global { namespace Express }`.
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
      // Header and name rules refuse control characters by matching them, on purpose.
      'no-control-regex': 'off',
      // An abort rejects with its signal's `reason` (`any`), which the code sets to its own errors.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // `import x = require()` is how a declaration file imports an `export =` module.
      '@typescript-eslint/no-require-imports': ['error', { allowAsImport: true }],
      // `.catch(() => {})` and `() => {}` stubs say "ignore this" on purpose; empty
      // functions and methods are still reported.
      '@typescript-eslint/no-empty-function': ['error', { allow: ['arrowFunctions'] }],
      // An `async` implementation of a promise-returning interface turns a throw into a
      // rejection, which is what its callers handle, whether or not it awaits anything.
      '@typescript-eslint/require-await': 'off',
      // A leading underscore marks what is unused on purpose (a parameter a signature
      // needs, a property taken out of a rest copy).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // Fixtures hand out closures ({ store, close }) that tests and benchmarks
      // destructure, and expect(object.method) looks at a method without calling it.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests read JSON bodies and documents (`any`) and check them with expect(), which
      // is the type check there; typing every body first would add nothing.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Tests split ASCII alphabets with [...text] and spread an error to see its own
      // enumerable properties, on purpose.
      '@typescript-eslint/no-misused-spread': 'off',
      // afterAll closes what beforeAll may not have opened (`let app: App`, then
      // `await app?.close()`): a guard the types cannot see the need for.
      '@typescript-eslint/no-unnecessary-condition': 'off',
    },
  },
  {
    // Reading the umask takes process.umask() with no argument (DEP0139 is
    // documentation-only; Node has no other way to read it).
    files: ['test/helpers/umask-unchanged.ts', 'test/cli/cli-process.ts'],
    rules: { '@typescript-eslint/no-deprecated': 'off' },
  },
  {
    // Koa types `next()` and a middleware's result as `any`; the examples and the
    // benchmarks' hosts are the middleware a host writes, without casts.
    files: ['examples/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-unsafe-return': 'off' },
  },
  {
    // CheckFailure (src/client/check-result.ts) maps each ConnectError code to its
    // class; check() builds an entry from an error with that one cast.
    files: ['src/client/create-connect-client.ts'],
    rules: { '@typescript-eslint/no-unsafe-class-instance-assignment': 'off' },
  },
  {
    // Nest declares options objects as classes (NestApplicationContextOptions), which
    // every caller of NestFactory.create fills with an object literal.
    files: ['test/nestjs/**/*.ts', 'examples/nestjs/**/*.ts'],
    rules: { '@typescript-eslint/no-unsafe-class-instance-assignment': 'off' },
  },
  {
    // Type tests: values exist to be type-checked (`void principal.userId`), not used.
    files: ['test/types/**/*.ts'],
    rules: {
      '@typescript-eslint/no-meaningless-void-operator': 'off',
      '@typescript-eslint/no-unused-vars': 'off',
    },
  },
  {
    // Plain JavaScript is outside tsconfig.json, so no rule that needs types.
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // The dashboard's browser script: no build step, loaded as a module.
    files: ['src/dashboard/client/**/*.js'],
    languageOptions: { globals: globals.browser },
  },
  {
    // The dashboard reads form values, attributes and names, where '' means "not given" as
    // much as undefined does: `a || b` is its idiom, meant for both.
    files: ['src/dashboard/client/**'],
    rules: { '@typescript-eslint/prefer-nullish-coalescing': 'off' },
  },
  prettier,
)
