// Drives the compiled `_providers.js` for tests/test_typescript_http.py: reads one JSON
// command on stdin, prints one JSON result. Usage: node providers_driver.mjs JS_FOLDER
//
// {"table": [{"fn": "openaiPayload", "args": [...]}, ...]} runs payload builders and readers:
//   [{"value": ...} | {"error": "CallbackError"}, ...]
// {"construct": [options, ...]} builds callbacks: [{"error": null | {...}}, ...]
// {"options": {...}, "calls": [{"request": {...}, "stream": false}, ...], "sleeps": "record"}
//   runs an `openAICompatible` callback: each call's reply, chunks or error, the waits asked
//   of `sleep` (recorded, not waited when "record"), the settled form, and the callback as
//   String, util.inspect and JSON show it.
import { readFileSync } from "node:fs";
import { inspect } from "node:util";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const providers = await import(pathToFileURL(join(process.argv[2], "_providers.js")).href);
const command = JSON.parse(readFileSync(0, "utf8"));

function failure(e) {
  return {
    name: e?.name ?? typeof e,
    message: String(e?.message ?? e),
    status: e?.status ?? null,
    attempts: e?.attempts ?? null,
    body: e?.body ?? null,
    inspected: inspect(e),
  };
}

async function table(rows) {
  const out = [];
  for (const { fn, args } of rows) {
    try {
      out.push({ value: providers[fn](...args) });
    } catch (e) {
      out.push({ error: e?.name ?? "Error" });
    }
  }
  return out;
}

async function calls() {
  const waits = [];
  const options = { ...command.options };
  if (command.sleeps === "record")
    options.sleep = async (ms) => {
      waits.push(ms);
    };
  if (typeof command.random === "number") options.random = () => command.random;
  const llm = providers.openAICompatible(options);
  const results = [];
  for (const call of command.calls) {
    const started = Date.now();
    try {
      if (call.stream) {
        const chunks = [];
        try {
          for await (const chunk of llm.stream(call.request)) chunks.push(chunk);
        } catch (e) {
          results.push({ chunks, error: failure(e), ms: Date.now() - started });
          continue;
        }
        results.push({ chunks, ms: Date.now() - started });
      } else {
        results.push({ reply: await llm(call.request), ms: Date.now() - started });
      }
    } catch (e) {
      results.push({ error: failure(e), ms: Date.now() - started });
    }
  }
  return {
    results,
    waits,
    form: llm.form,
    string: String(llm),
    inspected: inspect(llm, { showHidden: true, depth: 5 }),
    json: JSON.stringify(llm),
  };
}

let out;
if (command.table) out = await table(command.table);
else if (command.construct) {
  out = command.construct.map((given) => {
    try {
      providers.openAICompatible(given);
      return { error: null };
    } catch (e) {
      return { error: failure(e) };
    }
  });
} else out = await calls();
process.stdout.write(JSON.stringify(out));
