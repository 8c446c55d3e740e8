import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '**/*.generated.*', 'coverage/**', '.zoneguard/**', 'docs/api/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // A line the reader takes in at once, comments included (docs/development.md, the code's shape). A line that is
    // one string or template literal (a message, prose; maybe after its key, `return`, `throw new X(` or a ternary's
    // `?`/`:`) is let through: split, it would no longer read as the text it prints. URLs and regular expressions too.
    files: ['src/**/*.ts', 'bench/**/*.mts', 'bench/**/*.ts'],
    rules: {
      'max-len': [
        'error',
        {
          code: 160,
          ignoreUrls: true,
          ignoreRegExpLiterals: true,
          ignorePattern: "^\\s*(?:[\\w$.]+: |return |[?:] |(?:const|let) [\\w$]+ = |throw new \\w+\\(|\\.\\.\\.)?(?:'.*'|\".*\"|`.*`)[\\s,;)\\]}+]*$",
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
    languageOptions: { globals: { module: 'writable', require: 'readonly', process: 'readonly', __dirname: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
