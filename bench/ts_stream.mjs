// The TypeScript partial reader (issue 25): a 10 KB reply fed in 4-character chunks against
// the same reply fed at once, and against re-reading the whole buffer on every chunk (what
// re-parsing partial JSON on each chunk costs). Milliseconds, medians of ROUNDS rounds; the
// ratio is the median of each round's chunked/whole.
//
//   npm ci --prefix tests/node && node bench/ts_stream.mjs
//
// The runtime's TypeScript (src/sigspec/runtime/{runtime,stream}.ts) is compiled by tests/node's
// tsc in a temporary folder, as the generated package's `_runtime.js` and `_stream.js`.

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = new URL("..", import.meta.url).pathname;
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const SIZE = 10_000;
const CHUNK = 4;

async function load() {
  const dir = mkdtempSync(join(tmpdir(), "sigspec-stream-"));
  mkdirSync(join(dir, "ts"));
  for (const [source, target] of [
    ["runtime.ts", "_runtime.ts"],
    ["stream.ts", "_stream.ts"],
  ]) {
    const text = readFileSync(join(ROOT, "src", "sigspec", "runtime", source), "utf8");
    writeFileSync(join(dir, "ts", target), text);
  }
  const options = { target: "es2022", module: "nodenext", strict: true, rootDir: "ts", outDir: "js" };
  const config = { compilerOptions: { ...options, lib: ["es2022"], types: [] }, include: ["ts"] };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(config));
  writeFileSync(join(dir, "package.json"), '{"type": "module"}');
  execFileSync(join(ROOT, "tests", "node", "node_modules", ".bin", "tsc"), ["-p", dir]);
  const module = await import(pathToFileURL(join(dir, "js", "_stream.js")).href);
  rmSync(dir, { recursive: true });
  return module;
}

/** Replies of about SIZE characters, each a shape an answer takes. */
function replies() {
  const fields = {};
  for (let i = 0; fields && JSON.stringify(fields).length < SIZE; i++)
    fields[`field_${i}`] = i % 3 === 0 ? `value number ${i}` : i % 3 === 1 ? i * 1.5 : i % 2 === 0;
  const items = [];
  while (JSON.stringify({ items }).length < SIZE)
    items.push({ name: `item ${items.length}`, price: items.length * 2.5, tags: ["a", "b"] });
  const long = { title: "t", body: "lorem ipsum \\\"dolor\\\" sit amet ".repeat(SIZE / 30) };
  return {
    "many fields": "Here it is:\n```json\n" + JSON.stringify(fields, null, 1) + "\n```",
    "list of objects": JSON.stringify({ items }),
    "one long string": JSON.stringify(long),
    "top-level list": JSON.stringify(items),
  };
}

function chunks(text) {
  const out = [];
  for (let i = 0; i < text.length; i += CHUNK) out.push(text.slice(i, i + CHUNK));
  return out;
}

/** The time of one run of `fn`, over `reps` runs (sub-millisecond runs alone are mostly
 * timer noise). */
function timed(fn, reps = 20) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < reps; i++) fn();
  return Number(process.hrtime.bigint() - start) / 1e6 / reps;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Medians of `whole`, `chunked` and of their ratio, the two timed in turn in each round
 * (so that a busy moment of a shared machine falls on both). */
function paired(whole, chunked) {
  for (let r = 0; r < 3; r++) whole(), chunked(); // warm up the JIT
  const a = [];
  const b = [];
  const ratios = [];
  for (let r = 0; r < ROUNDS; r++) {
    a.push(timed(whole));
    b.push(timed(chunked));
    ratios.push(b[r] / a[r]);
  }
  return [median(a), median(b), median(ratios)];
}

const { PartialReader } = await load();
console.log(`| reply (${SIZE / 1000} KB) | strings | whole | ${CHUNK}-char chunks | ratio | re-read per chunk | ratio |`);
console.log("|---|---|---:|---:|---:|---:|---:|");
for (const [name, text] of Object.entries(replies())) {
  const pieces = chunks(text);
  for (const strings of ["complete", "growing"]) {
    const [whole, chunked, ratio] = paired(
      () => new PartialReader({ strings }).feed(text),
      () => {
        const reader = new PartialReader({ strings });
        for (const piece of pieces) reader.feed(piece);
      },
    );
    const reread = timed(() => {
      let buffer = "";
      for (const piece of pieces) {
        buffer += piece;
        new PartialReader({ strings }).feed(buffer);
      }
    }, 1); // quadratic: one run says enough
    const f = (ms) => ms.toFixed(3);
    console.log(
      `| ${name} | ${strings} | ${f(whole)} | ${f(chunked)} | ${ratio.toFixed(2)} | ${f(reread)} | ${(reread / whole).toFixed(0)} |`,
    );
  }
}
