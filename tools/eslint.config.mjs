// ESLint with typescript-eslint's type-aware rules, run from tools/ (where TypeScript 5.9 lives for
// it; the build itself uses TypeScript 7, which typescript-eslint cannot load).
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';

const root = fileURLToPath(new URL('..', import.meta.url));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'tools/**', '.tools/**', 'charts/**', 'test/cluster/k8s/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: root },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      // Control characters are matched on purpose: admission warnings must not carry them.
      'no-control-regex': 'off',
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // One way to write a file (src/source/atomic-write.ts): all or nothing, every byte checked. The rest
    // of the product never writes with node:fs itself; src/cli/process-output.ts writes the process's
    // own stdout descriptor, which is no file of ours.
    files: ['src/**/*.ts', 'rules/**/*.ts'],
    ignores: ['src/source/atomic-write.ts', 'src/cli/process-output.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'node:fs',
              importNames: ['writeFileSync', 'writeFile', 'writeSync', 'write', 'appendFileSync', 'appendFile', 'createWriteStream', 'renameSync', 'rename'],
              message: 'write files through writeFileAtomic (src/source/atomic-write.ts)',
            },
            { name: 'node:fs/promises', message: 'write files through writeFileAtomic (src/source/atomic-write.ts)' },
          ],
        },
      ],
    },
  },
  {
    // Every regular expression of the product runs on text someone else wrote: a repository's files
    // and charts, an object's names and annotations, an API server's answers. None may take more than
    // linear time in it: not by backtracking in one attempt, nor by an attempt from every position.
    // (Expressions built at run time are not seen here: src/source/origin/locate-template.ts matches
    // template names without one.)
    files: ['src/**/*.ts', 'rules/**/*.ts'],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
    },
  },
  {
    // Tests handle JSON from the process under test and the API server, which is `any` by nature of
    // JSON.parse; the product code (src/, rules/) has none.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
