// Runs the shared case table (JSON on stdin) against a compiled TypeScript module (argv[2]) and
// prints one result per case, in the shape tests/test_shared_cases.py compares.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const modulePath = process.argv[2];
const mod = await import(pathToFileURL(modulePath).href);
const rt = await import(pathToFileURL(join(dirname(modulePath), "_runtime.js")).href);
// {cases, names}: names maps each signature to its exported functions (the emitter decides).
const { cases, names } = JSON.parse(readFileSync(0, "utf-8"));

function turns(list) {
  return list.map((t) => ({
    request: {
      system: t.request.system,
      messages: t.request.messages,
      tools: t.request.tools,
      tool_choice: t.request.tool_choice,
    },
    errors: t.errors,
    repairs: t.repairs,
  }));
}

async function client(c) {
  const replies = [...c.replies];
  const options = {};
  if ("max_turns" in c) options.maxTurns = c.max_turns;
  if ("structured" in c) options.structured = c.structured;
  try {
    const step = await mod[names[c.signature].client](c.input, () => replies.shift(), options);
    return { value: step.return, turns: turns(step.turns), usage: step.usage };
  } catch (e) {
    if (!(e instanceof rt.JsonEnforcementError)) throw e;
    return { error: "JsonEnforcementError", message: e.message, turns: turns(e.step.turns) };
  }
}

async function run(c) {
  try {
    const fn = names[c.signature];
    if (c.kind === "parse") {
      const parsed = mod[fn.parse](c.input);
      return { value: parsed.value, repairs: parsed.repairs };
    }
    if (c.kind === "validate") return { value: mod[fn.validate](c.input) };
    if (c.kind === "validate_input") return { value: mod[fn.validate_input](c.input) };
  } catch (e) {
    if (e instanceof rt.ReplyError) return { error: "ReplyError", reason: e.reason, errors: e.errors };
    if (e instanceof rt.ValidationError) return { error: "ValidationError", errors: e.errors };
    throw e;
  }
  return client(c);
}

const results = [];
for (const c of cases) results.push(await run(c));
// Own properties such as `__proto__` are written as keys, as JSON.stringify does for plain data.
process.stdout.write(JSON.stringify(results));
