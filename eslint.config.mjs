// Lint: ESLint's recommended rules and typescript-eslint's type-aware recommended rules
// (recommendedTypeChecked) over the repository's TypeScript; JavaScript files get the rules that
// need no types. `npm run lint` runs it, `.ci/run` fails on any finding.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

const testFiles = [
  "**/*.test.ts",
  "tests/**",
  "e2e/**",
  "bench/**",
  "server/**/test-*.ts",
  "server/evaluators/stub-server.ts",
];

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      ".next/",
      ".data/",
      "server/generated/",
      "bench/.work/",
      "client/dist/",
      "client/schema.d.ts",
      "scripts/depcruise-fixtures/",
      "next-env.d.ts",
      "test-results/",
      "playwright-report/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // An async function that awaits nothing still turns a throw into a rejection, and several
      // implement async interfaces (isomorphic-git's fs, Auth.js's adapter): keep them async.
      "@typescript-eslint/require-await": "off",
      // Path and name rules (git's verify_path, header values) match control characters on purpose.
      "no-control-regex": "off",
      // A variable a closure reads before its one assignment (a callback set up first) stays `let`.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
    },
  },
  {
    // Tests read JSON answers as `any` on purpose: the assertions are the type check.
    files: testFiles,
    rules: {
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/unbound-method": "off",
      // Test servers take async request listeners; a failure there fails the test through its client.
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: false }],
    },
  },
  {
    files: ["**/*.mjs", "**/*.cjs", "**/*.js"],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { ...globals.node } },
  },
);
