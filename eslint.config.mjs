// One lint setup for the whole workspace: typescript-eslint's recommended rules (syntax-level, fast);
// type checking itself is `tsc --noEmit` per package (turbo `lint`), formatting is prettier.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/node_modules/**", "**/dist/**", "**/src/generated/**", ".local/**", "**/coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.jest } },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "@typescript-eslint/no-require-imports": "off",
      "no-console": "off",
    },
  },
  {
    // Tests poke at loosely typed JSON answers; `any` there is a convenience, not a design choice.
    files: ["**/test/**/*.ts", "**/*.test.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // Only env.ts reads process.env (STYLE.md habit 9); tools, tests and benchmarks are exempt.
    files: ["apps/*/src/**/*.ts", "packages/*/src/**/*.ts"],
    ignores: ["**/env.ts", "**/*.test.ts"],
    rules: {
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "read env in env.ts only" },
      ],
    },
  },
);
