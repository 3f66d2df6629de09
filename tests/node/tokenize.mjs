// Tokenize files with a TextMate grammar exactly as VS Code does (vscode-textmate on
// oniguruma) and print, per file, every token as [line, text, scopes] in JSON.
// Usage: node tokenize.mjs GRAMMAR.json FILE...
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import oniguruma from "vscode-oniguruma";
import textmate from "vscode-textmate";

const require = createRequire(import.meta.url);
const [grammarPath, ...files] = process.argv.slice(2);
const wasm = readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm"));
await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));

const grammarText = readFileSync(grammarPath, "utf8");
const registry = new textmate.Registry({
  onigLib: Promise.resolve({
    createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
    createOnigString: (text) => new oniguruma.OnigString(text),
  }),
  loadGrammar: async () => textmate.parseRawGrammar(grammarText, grammarPath),
});
const grammar = await registry.loadGrammar("source.sigspec");

const result = {};
for (const file of files) {
  const tokens = [];
  let stack = textmate.INITIAL;
  readFileSync(file, "utf8").split("\n").forEach((line, index) => {
    const found = grammar.tokenizeLine(line, stack);
    for (const token of found.tokens) {
      const text = line.slice(token.startIndex, token.endIndex);
      tokens.push([index + 1, text, token.scopes]);
    }
    stack = found.ruleStack;
  });
  result[file] = tokens;
}
process.stdout.write(JSON.stringify(result));
