// The lint the generated TypeScript and sigspec's TypeScript runtime must pass: ESLint's
// recommended rules and typescript-eslint's (the setup typescript-eslint documents), none
// disabled.
import js from "@eslint/js";
import tseslint from "sigspec-eslint-typescript";

export default [js.configs.recommended, ...tseslint.configs.recommended];
