export { default } from "typescript-eslint";
