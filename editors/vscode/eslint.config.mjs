// ESLint's recommended rules and typescript-eslint's (the setup typescript-eslint documents,
// as tests/node/eslint.config.mjs holds the generated TypeScript to), none disabled.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "out/**", "node_modules/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
);
