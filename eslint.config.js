// @ts-check
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/** Import arrows of DESIGN.md: src -> workers -> protocol, server -> protocol, agent -> protocol. */
const folders = ['protocol', 'workers', 'src', 'server', 'agent', 'bench', 'tests'];
const forbidFolders = (...names) => ({
  regex: `^(\\.\\./)+(${names.join('|')})(/|$)`,
  message: `Import arrows (DESIGN.md): this folder may not import from ${names.join(', ')}.`,
});
const others = (...allowed) => folders.filter((f) => !allowed.includes(f));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'error',
    },
  },
  {
    files: ['protocol/**/*.ts'],
    ignores: ['protocol/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            // protocol/ imports nothing of ours and no package but rxjs, msgpackr, mitt and the contract's schema
            // library, typebox (docs/DECISIONS.md, "REST contracts"); .dependency-cruiser.mjs says the same.
            { regex: '^(?!rxjs$|msgpackr$|mitt$|typebox$|\\.{1,2}/)', message: 'protocol/ may import only rxjs, msgpackr, mitt and typebox (DESIGN.md).' },
            forbidFolders(...others('protocol')),
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'WebSocket', 'window', 'document', 'self', 'process', 'Buffer', 'require'].map((name) => ({
          name,
          message: 'protocol/ is host-free: inject a Clock or Transport instead (DESIGN.md).',
        })),
      ],
    },
  },
  {
    files: ['workers/**/*.ts'],
    ignores: ['workers/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(react|react-dom|node:.*)$', message: 'workers/ runs in a browser worker.' }, forbidFolders(...others('protocol', 'workers'))] }],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': ['error', { patterns: [{ regex: '^node:', message: 'src/ runs in the browser.' }, forbidFolders('server', 'agent', 'bench', 'tests')] }],
    },
  },
  {
    files: ['server/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [forbidFolders(...others('protocol', 'server'))] }] },
  },
  {
    files: ['agent/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [forbidFolders(...others('protocol', 'agent'))] }] },
  },
);
