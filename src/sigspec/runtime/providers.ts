// sigspec's provider helpers for TypeScript, copied into every generated TypeScript folder as
// `_providers.ts` beside `_runtime.ts`. They mirror the Python runtime's (runtime/client.py:
// the payload builders and reply readers; runtime/transport.py: `OpenAICompatible`), so that
// one table of requests and responses gives the same JSON in both.
//
// - `openaiPayload`, `anthropicPayload`, `geminiPayload`, `ollamaPayload`: a provider's request
//   body from the request the client loop hands its `llm` callback;
// - `readOpenAI`, `readAnthropic`, `readGemini`, `readOllama`: what the callback returns
//   ({content, tool_calls, tokens, refusal, reasoning}) from a provider's response body;
// - `openAICompatible({ baseUrl, model, ... })`: an `Llm` callback for any Chat Completions
//   endpoint over Node's global `fetch` (Node 18 and later; no dependency), with transport
//   retries, a total deadline, a bound on the response's size, same-server redirects only and
//   structured-output negotiation; its `.stream(request)` reads the server-sent events.
//
// Nothing a server sends is evaluated; the API key and the headers given stay in a closure,
// out of errors, `toString`, `util.inspect` and JSON.

import {
  CallbackError,
  toolParameters,
  type Request,
  type ToolCall,
} from "./_runtime.js";

/* ---- the platform (Node's globals, declared here: the project may not load DOM types) ---- */

interface FetchHeaders {
  get(name: string): string | null;
}
interface FetchReader {
  read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>;
  cancel(reason?: unknown): Promise<void>;
}
interface FetchResponse {
  readonly status: number;
  readonly headers: FetchHeaders;
  readonly body: { getReader(): FetchReader } | null;
}
interface AbortSignalLike {
  readonly aborted: boolean;
}
declare const fetch: (
  url: string,
  init: {
    method: string;
    headers: Record<string, string>;
    body: string;
    redirect: "manual";
    signal: AbortSignalLike;
  },
) => Promise<FetchResponse>;
declare class AbortController {
  readonly signal: AbortSignalLike;
  abort(reason?: unknown): void;
}
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean });
  decode(input?: Uint8Array, options?: { stream?: boolean }): string;
}
declare class URL {
  constructor(url: string, base?: string);
  readonly protocol: string;
  readonly hostname: string;
  readonly port: string;
  readonly pathname: string;
  readonly href: string;
}
declare function setTimeout(callback: () => void, ms: number): unknown;
declare function clearTimeout(handle: unknown): void;

/* ---- JSON as servers send it ------------------------------------------------------------- */

type JsonObject = Record<string, unknown>;

/** A request as the payload builders take it: the client loop's, which carries the compiled
 * provider fragments (`{openai: {request, tool_request}, ...}`) of a json signature. */
export type ProviderRequest = Request;

/** What the readers return and `openAICompatible` answers: the `Llm` callback's reply, with
 * `notes` on what the transport did (retries, a structured-output fallback). */
export interface ProviderReply {
  content: string | null;
  tool_calls: ToolCall[];
  tokens: Record<string, number>;
  refusal: string | null;
  reasoning: string | null;
  notes?: string[];
}

/** One piece of a streamed answer (the streaming contract): text, or an object with any of
 * `content`, `arguments` (the forced tool's JSON arguments), `tool` (its name), `refusal`,
 * `reasoning`, `tokens` (a later count for a key replaces the earlier) and `notes`. */
export type Chunk =
  | string
  | {
      content?: string;
      arguments?: string;
      tool?: string;
      refusal?: string;
      reasoning?: string;
      tokens?: Record<string, number>;
      notes?: string[];
    };

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` as a JSON object, or an empty one: a reader takes what it understands. */
function asObject(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A deep copy of JSON data (compiled fragments serve every call). */
function copied<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function own(o: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(o, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}

/** The integer counts of a usage object (others dropped, as Python keeps only ints). */
function tokensOf(value: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, count] of Object.entries(asObject(value))) {
    if (typeof count === "number" && Number.isInteger(count))
      own(out, key, count);
  }
  return out;
}

/** A string, or null. */
function word(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** The first of `names` present and not null (camelCase or snake_case dumps). */
function either(fields: JsonObject, ...names: string[]): unknown {
  for (const name of names) {
    const value = fields[name];
    if (value !== null && value !== undefined) return value;
  }
  return null;
}

/** Token counts added up (those given), so that `input` and `output` mean the same
 * tokens for every provider; null when none is given. */
function sum(...counts: unknown[]): number | null {
  const given = counts.filter(
    (n): n is number => typeof n === "number" && Number.isInteger(n),
  );
  return given.length > 0 ? given.reduce((a, b) => a + b, 0) : null;
}

function joined(texts: string[]): string | null {
  return texts.length > 0 ? texts.join("") : null;
}

/* ---- provider payloads (runtime/client.py) ------------------------------------------------ */

function fragment(
  request: ProviderRequest,
  provider: string,
  kind: string,
): JsonObject | null {
  const found = asObject(asObject(request.fragments)[provider])[kind];
  return isObject(found) ? copied(found) : null;
}

/** A compiled tool request with its one tool renamed to what the request asks for. */
function renamedTools(compiled: JsonObject, name: string): JsonObject {
  for (const tool of asArray(compiled["tools"])) {
    const target = asObject(tool);
    asObject("function" in target ? target["function"] : target)["name"] = name;
  }
  const choice = compiled["tool_choice"];
  if (isObject(choice))
    asObject("function" in choice ? choice["function"] : choice)["name"] = name;
  return compiled;
}

function forcedTool(request: ProviderRequest): string | null {
  const tool = asObject(request.tool_choice)["tool"];
  return typeof tool === "string" ? tool : null;
}

function chatMessages(request: ProviderRequest): JsonObject[] {
  const head = request.system
    ? [{ role: "system", content: request.system }]
    : [];
  return [...head, ...request.messages.map((m) => ({ ...m }))];
}

/** A Chat Completions body (OpenAI, vLLM, llama.cpp, Ollama's /v1) from a request. */
export function openaiPayload(
  request: ProviderRequest,
  model: string,
): JsonObject {
  const payload: JsonObject = {
    model,
    messages: chatMessages(request),
    stream: false,
  };
  const tool = forcedTool(request);
  const compiledTool = tool
    ? fragment(request, "openai", "tool_request")
    : null;
  if (tool && compiledTool) {
    Object.assign(payload, renamedTools(compiledTool, tool));
  } else if (tool) {
    payload["tools"] = (request.tools ?? []).map((t) => ({
      type: "function",
      function: {
        name: t.name,
        description: t.description,
        parameters: t.parameters,
      },
    }));
    payload["tool_choice"] = { type: "function", function: { name: tool } };
  } else if (request.output === "json") {
    const compiled = fragment(request, "openai", "request");
    Object.assign(
      payload,
      compiled ?? { response_format: { type: "json_object" } },
    );
  }
  return payload;
}

/** A Messages API body from a request. */
export function anthropicPayload(
  request: ProviderRequest,
  model: string,
  maxTokens = 4096,
): JsonObject {
  const payload: JsonObject = {
    model,
    max_tokens: maxTokens,
    messages: request.messages.map((m) => ({ ...m })),
  };
  if (request.system) payload["system"] = request.system;
  const tool = forcedTool(request);
  const compiledTool = tool
    ? fragment(request, "anthropic", "tool_request")
    : null;
  if (tool && compiledTool) {
    Object.assign(payload, renamedTools(compiledTool, tool));
  } else if (tool) {
    payload["tools"] = (request.tools ?? []).map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.parameters,
    }));
    payload["tool_choice"] = { type: "tool", name: tool };
  } else if (request.output === "json") {
    Object.assign(payload, fragment(request, "anthropic", "request") ?? {});
  }
  return payload;
}

/** A generateContent body from a request (the model goes in Gemini's URL). A request forcing
 * a tool gets it as a function declaration, called in mode `ANY` and allowed alone, in place
 * of the response schema. */
export function geminiPayload(request: ProviderRequest): JsonObject {
  const payload: JsonObject = {
    contents: request.messages.map((m) => ({
      role: m.role === "assistant" ? "model" : "user",
      parts: [{ text: m.content }],
    })),
  };
  if (request.system)
    payload["systemInstruction"] = { parts: [{ text: request.system }] };
  const tool = forcedTool(request);
  if (tool) {
    Object.assign(payload, geminiTool(request, tool));
  } else if (request.output === "json") {
    Object.assign(payload, fragment(request, "gemini", "request") ?? {});
  }
  return payload;
}

/** `tools` and `toolConfig` forcing a call of the function `name`: its parameters are the
 * compiled `responseJsonSchema` as every forced tool's are (`toolParameters`), or without
 * one, the request's own tool's. */
function geminiTool(request: ProviderRequest, name: string): JsonObject {
  const config = asObject(
    asObject(fragment(request, "gemini", "request"))["generationConfig"],
  );
  const asked = asObject(
    asArray(request.tools).find((t) => asObject(t)["name"] === name),
  );
  const compiled = config["responseJsonSchema"];
  const parameters = isObject(compiled)
    ? toolParameters(compiled)[0]
    : copied(
        "parameters" in asked
          ? (asked["parameters"] ?? null)
          : { type: "object" },
      );
  const description = asked["description"];
  const fn = {
    name,
    description: description ? description : "Return your response",
    parametersJsonSchema: parameters,
  };
  return {
    tools: [{ functionDeclarations: [fn] }],
    toolConfig: {
      functionCallingConfig: { mode: "ANY", allowedFunctionNames: [name] },
    },
  };
}

/** An Ollama /api/chat body from a request. Ollama cannot force a tool, so a request forcing
 * one is sent in the schema form: the compiled `format` constrains the reply's text. */
export function ollamaPayload(
  request: ProviderRequest,
  model: string,
): JsonObject {
  const payload: JsonObject = {
    model,
    messages: chatMessages(request),
    stream: false,
  };
  if (request.output === "json")
    Object.assign(
      payload,
      fragment(request, "ollama", "request") ?? { format: "json" },
    );
  return payload;
}

/* ---- reply readers (runtime/client.py) ---------------------------------------------------- */

function decodedArguments(raw: unknown): unknown {
  if (typeof raw !== "string") return raw ?? null;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** A tool call as the client loop reads it; `name` is the server's (null when it sent none). */
function toolCall(id: unknown, name: unknown, args: unknown): ToolCall {
  const call: ToolCall = { id: id ?? null, arguments: args ?? null };
  own(call, "name", name ?? null);
  return call;
}

/** Tool calls of the OpenAI and Ollama shapes: {id, function: {name, arguments}}. */
function calls(items: unknown): ToolCall[] {
  const out: ToolCall[] = [];
  for (const call of asArray(items).map(asObject)) {
    const fn = asObject(call["function"]);
    if (Object.keys(fn).length > 0)
      out.push(
        toolCall(call["id"], fn["name"], decodedArguments(fn["arguments"])),
      );
  }
  return out;
}

/** A message's content: text as it is; a list of parts as its text parts joined. */
function text(content: unknown): string | null {
  if (content === null || content === undefined) return null;
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((part) => asObject(part)["text"])
      .filter((t): t is string => typeof t === "string")
      .join("");
  throw new CallbackError(
    "the response's `content` is neither text nor a list of parts",
  );
}

function reply(
  content: string | null,
  toolCalls: ToolCall[],
  tokens: Record<string, unknown>,
  refusal: string | null = null,
  reasoning: string | null = null,
): ProviderReply {
  return {
    content,
    tool_calls: toolCalls,
    tokens: tokensOf(tokens),
    refusal,
    reasoning,
  };
}

/** {content, tool_calls, tokens, refusal, reasoning} from a Chat Completions response body:
 * `refusal` is `message.refusal` (or a reply stopped by the content filter), `reasoning` the
 * thoughts some compatible servers return apart (`reasoning_content`, `reasoning`). */
export function readOpenAI(response: unknown): ProviderReply {
  const body = asObject(response);
  const choice = asObject(asArray(body["choices"])[0]);
  const message = asObject(choice["message"]);
  const usage = asObject(body["usage"]);
  const content = text(message["content"]);
  const toolCalls = calls(message["tool_calls"]);
  const refused = asArray(message["content"])
    .map(asObject)
    .filter((p) => p["type"] === "refusal")
    .map((p) => p["refusal"])
    .filter((r): r is string => typeof r === "string" && r !== "");
  let refusal = word(message["refusal"]) || joined(refused);
  const stop = word(choice["finish_reason"]);
  if (refusal === null && stop === "content_filter" && !content) {
    if (toolCalls.length === 0)
      refusal =
        'the content filter stopped the reply (finish_reason "content_filter")';
  }
  const reasoning = word(either(message, "reasoning_content", "reasoning"));
  const tokens = {
    input: usage["prompt_tokens"],
    output: usage["completion_tokens"],
  };
  return reply(content, toolCalls, tokens, refusal, reasoning || null);
}

/** The same from a Messages API response: text blocks joined, `tool_use` blocks as calls,
 * `thinking` blocks as reasoning, `stop_reason: "refusal"` as a refusal. */
export function readAnthropic(response: unknown): ProviderReply {
  const body = asObject(response);
  const texts: string[] = [];
  const thoughts: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of asArray(body["content"]).map(asObject)) {
    const kind = block["type"];
    if (kind === "text") texts.push(word(block["text"]) ?? "");
    else if (kind === "thinking") thoughts.push(word(block["thinking"]) ?? "");
    else if (kind === "tool_use")
      toolCalls.push(toolCall(block["id"], block["name"], block["input"]));
  }
  const usage = asObject(body["usage"]);
  // input_tokens leaves out the tokens read from and written to the cache
  const tokens = {
    input: sum(
      usage["input_tokens"],
      usage["cache_creation_input_tokens"],
      usage["cache_read_input_tokens"],
    ),
    output: usage["output_tokens"],
  };
  let refusal: string | null = null;
  if (word(body["stop_reason"]) === "refusal") {
    const said = texts.join("").trim();
    refusal = 'stop_reason "refusal"' + (said ? `: ${said}` : "");
  }
  return reply(joined(texts), toolCalls, tokens, refusal, joined(thoughts));
}

// Gemini's reasons for a candidate with no answer: blocked, not a mere stop.
const GEMINI_BLOCKED = new Set([
  "SAFETY",
  "PROHIBITED_CONTENT",
  "BLOCKLIST",
  "SPII",
  "IMAGE_SAFETY",
]);

/** The same from a generateContent response (camelCase or snake_case): thought parts are the
 * reasoning, a blocked prompt or a candidate stopped for safety a refusal. */
export function readGemini(response: unknown): ProviderReply {
  const body = asObject(response);
  const candidate = asObject(asArray(body["candidates"])[0]);
  const parts = asArray(asObject(candidate["content"])["parts"]).map(asObject);
  const texts = parts.filter((p) => typeof p["text"] === "string");
  const answer = texts
    .filter((p) => p["thought"] !== true)
    .map((p) => String(p["text"]));
  const reasoning = texts
    .filter((p) => p["thought"] === true)
    .map((p) => String(p["text"]));
  const toolCalls = parts
    .map((p) => asObject(either(p, "functionCall", "function_call")))
    .filter((call) => Object.keys(call).length > 0)
    .map((call) => toolCall(call["id"], call["name"], call["args"]));
  const usage = asObject(either(body, "usageMetadata", "usage_metadata"));
  // the candidates' count leaves out the thinking tokens, billed as output
  const tokens = {
    input: either(usage, "promptTokenCount", "prompt_token_count"),
    output: sum(
      either(usage, "candidatesTokenCount", "candidates_token_count"),
      either(usage, "thoughtsTokenCount", "thoughts_token_count"),
    ),
  };
  const answered = answer.some((t) => t !== "") || toolCalls.length > 0;
  return reply(
    joined(answer),
    toolCalls,
    tokens,
    geminiRefusal(body, candidate, answered),
    joined(reasoning),
  );
}

function geminiRefusal(
  body: JsonObject,
  candidate: JsonObject,
  answered: boolean,
): string | null {
  const feedback = asObject(either(body, "promptFeedback", "prompt_feedback"));
  const blocked = word(either(feedback, "blockReason", "block_reason"));
  if (blocked) {
    const said = word(
      either(feedback, "blockReasonMessage", "block_reason_message"),
    );
    return (
      `the prompt was blocked (blockReason "${blocked}")` +
      (said ? `: ${said}` : "")
    );
  }
  const stop = word(either(candidate, "finishReason", "finish_reason"));
  if (stop !== null && GEMINI_BLOCKED.has(stop) && !answered)
    return `the reply was blocked (finishReason "${stop}")`;
  return null;
}

/** The same from an Ollama /api/chat response; `message.thinking` is the reasoning. */
export function readOllama(response: unknown): ProviderReply {
  const body = asObject(response);
  const message = asObject(body["message"]);
  const tokens = {
    input: body["prompt_eval_count"],
    output: body["eval_count"],
  };
  const toolCalls = calls(message["tool_calls"]).map((c) => ({
    ...c,
    id: null,
  }));
  // Ollama sends "" beside tool calls, where the other APIs send no content.
  const content = text(message["content"]);
  const reasoning = word(message["thinking"]) || null;
  return reply(
    content === "" ? null : content,
    toolCalls,
    tokens,
    null,
    reasoning,
  );
}

/* ---- transport decisions (runtime/transport.py) ------------------------------------------- */

/** Statuses retried: a timeout, a rate limit, the server's own failures (not 501). */
export function retried(status: number): boolean {
  return (
    status === 408 ||
    status === 429 ||
    (status >= 500 && status < 600 && status !== 501)
  );
}

export type ResponseForm = "json_schema" | "json_object" | "prompt";
/** The forms of asking for JSON, from the most to the least enforced. */
export const RESPONSE_FORMS: readonly ResponseForm[] = Object.freeze([
  "json_schema",
  "json_object",
  "prompt",
]);
const NAMES_THE_FORM = /response_format|json_schema|json_object/i;
const ERROR_BODY_LIMIT = 4096; // bytes of an error response read: enough to name the problem
const REDIRECTS = 5; // same-server redirects followed for one request
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** When a failed request is sent again: up to `attempts` requests in all, waiting a random
 * time up to `baseMs` * 2**n (full jitter, at most `capMs`) or as long as the server's
 * `Retry-After` asks (more than `capMs`: the call fails at once). */
export interface RetryOptions {
  attempts?: number;
  baseMs?: number;
  capMs?: number;
}

/** Milliseconds to wait after `failed` failed attempts: the server's `askedMs`, or full
 * jitter with `draw` in [0, 1); null when the server asks for longer than `capMs`. */
export function retryWait(
  retry: Required<RetryOptions>,
  failed: number,
  askedMs: number | null,
  draw: number,
): number | null {
  if (askedMs !== null)
    return askedMs <= retry.capMs ? Math.max(askedMs, 0) : null;
  return draw * Math.min(retry.capMs, retry.baseMs * 2 ** (failed - 1));
}

/** The wait a response asks for, in milliseconds: `retry-after-ms`, `Retry-After` as seconds
 * or as an HTTP date (against `nowMs`, a Unix time); null when it asks nothing readable. */
export function retryAfter(
  headers: Record<string, string>,
  nowMs: number,
): number | null {
  const fields = new Map(
    Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v.trim()]),
  );
  const ms = headerNumber(fields.get("retry-after-ms"));
  if (ms !== null) return ms;
  const given = fields.get("retry-after");
  if (given === undefined || given === "") return null;
  const seconds = headerNumber(given);
  if (seconds !== null) return seconds * 1000;
  if (DECIMAL.test(given)) return null; // a negative or infinite number: no date either
  const when = Date.parse(given);
  return Number.isNaN(when) ? null : Math.max(when - nowMs, 0);
}

/** A non-negative finite decimal number of a header (as Python's `_number`), or null. */
function headerNumber(text: string | undefined): number | null {
  if (text === undefined || !DECIMAL.test(text)) return null;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? value : null;
}

/** Whether an error response rejects the structured-output `form` a request was sent in: a
 * form not yet `answered`, with HTTP 400 or 422, or 500 whose body names the form's field. */
export function rejectsForm(
  form: ResponseForm,
  status: number | null,
  body: string,
  answered: boolean,
): boolean {
  if (form === "prompt" || answered || status === null) return false;
  return (
    status === 400 ||
    status === 422 ||
    (status === 500 && NAMES_THE_FORM.test(body))
  );
}

/** The forms a Chat Completions payload can be sent in, in the order they are tried: none
 * when it asks for no JSON through `response_format`; the one `pinned` form, unless "auto". */
export function payloadForms(
  payload: JsonObject,
  pinned: ResponseForm | "auto",
): ResponseForm[] {
  const given = asObject(payload["response_format"])["type"];
  if (given !== "json_schema" && given !== "json_object") return [];
  if (pinned !== "auto") return [pinned];
  return RESPONSE_FORMS.slice(RESPONSE_FORMS.indexOf(given));
}

/** `payload` asking for JSON in `form`: the compiled `json_schema` fragment as it is,
 * `{type: "json_object", schema}` with the same schema, or no `response_format`. */
export function inForm(payload: JsonObject, form: ResponseForm): JsonObject {
  const out: JsonObject = { ...payload };
  const compiled = asObject(payload["response_format"]);
  const schema = asObject(compiled["json_schema"])["schema"];
  if (form === "prompt") {
    delete out["response_format"];
  } else if (form === "json_object") {
    out["response_format"] = isObject(schema)
      ? { type: "json_object", schema }
      : { type: "json_object" };
  } else if (compiled["type"] !== "json_schema") {
    throw new RangeError(
      'responseFormat "json_schema" needs the compiled openai fragment, which this' +
        " request does not carry",
    );
  }
  return out;
}

/** `url` as errors show it: without user info, query and fragment (each may carry a key). */
function publicUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.hostname}${u.port ? `:${u.port}` : ""}${u.pathname}`;
  } catch {
    return "(an invalid URL)";
  }
}

function origin(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.hostname}:${u.port}`;
}

/** Where a redirect is followed to: a 307 or 308 (which keep the method and the body) to the
 * same scheme, host and port, so that the API key goes to no other server; else null. */
function followed(
  url: string,
  status: number,
  location: string | null,
): string | null {
  if ((status !== 307 && status !== 308) || !location) return null;
  let target: string;
  try {
    target = new URL(location, url).href;
  } catch {
    return null;
  }
  return origin(target) === origin(url) ? target : null;
}

/* ---- the HTTP callback (runtime/transport.py) --------------------------------------------- */

/** The endpoint failed: HTTP error status, unreachable, timed out, redirected elsewhere, too
 * large, or not JSON. `status` is the HTTP status when there was one, `attempts` how many
 * requests were sent, `body` the error response's start. No message holds the API key or
 * the headers given. */
export class LlmHttpError extends Error {
  readonly status: number | null;
  readonly body: string;
  readonly attempts: number;
  constructor(
    message: string,
    options: { status?: number | null; body?: string; attempts?: number } = {},
  ) {
    super(message);
    this.name = "LlmHttpError";
    this.status = options.status ?? null;
    this.body = options.body ?? "";
    this.attempts = options.attempts ?? 1;
  }
}

/** A failure worth another attempt: the error to raise if none is left, and the wait the
 * response asked for. */
class Transient extends Error {
  readonly error: LlmHttpError;
  readonly askedMs: number | null;
  constructor(error: LlmHttpError, askedMs: number | null = null) {
    super(error.message);
    this.error = error;
    this.askedMs = askedMs;
  }
}

export interface OpenAICompatibleOptions {
  /** The API's base URL, e.g. "https://api.openai.com/v1" (`/chat/completions` is added). */
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  headers?: Record<string, string> | undefined;
  retry?: RetryOptions | undefined;
  /** Milliseconds per attempt (for a stream: without a byte read), within the deadline. */
  timeoutMs?: number | undefined;
  /** Milliseconds for one call, every attempt and wait included (a stream: until its first
   * chunk); null: no bound but `retry.attempts`. */
  deadlineMs?: number | null | undefined;
  maxResponseBytes?: number | undefined;
  /** "auto": a JSON request carrying the compiled openai fragment (`fragments`) goes as its
   * `json_schema` and, when the server rejects that, once for this client as `json_object`
   * with the schema, then with the prompt alone; one without it (the generated TypeScript
   * clients' requests carry none) as `json_object`, then the prompt alone. A form pins one. */
  responseFormat?: ResponseForm | "auto" | undefined;
  /** For tests: how to wait, and the jitter's random draw in [0, 1). */
  sleep?: ((ms: number) => Promise<void>) | undefined;
  random?: (() => number) | undefined;
}

/** The callback `openAICompatible` returns: an `Llm`, its streaming form, and the
 * structured-output form it settled on (null before any JSON call). */
export interface OpenAICompatibleLlm {
  (request: ProviderRequest): Promise<ProviderReply>;
  stream(request: ProviderRequest): AsyncIterable<Chunk>;
  readonly form: ResponseForm | null;
}

interface Settings {
  url: string;
  shownUrl: string;
  model: string;
  retry: Required<RetryOptions>;
  timeoutMs: number;
  deadlineMs: number | null;
  maxResponseBytes: number;
  responseFormat: ResponseForm | "auto";
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

function settings(options: OpenAICompatibleOptions): Settings {
  const retry = {
    attempts: options.retry?.attempts ?? 4,
    baseMs: options.retry?.baseMs ?? 500,
    capMs: options.retry?.capMs ?? 30_000,
  };
  if (!(retry.attempts >= 1))
    throw new RangeError("retry.attempts must be at least 1");
  if (!(retry.baseMs >= 0 && retry.capMs >= 0))
    throw new RangeError("retry.baseMs and retry.capMs must not be negative");
  const deadlineMs =
    options.deadlineMs === undefined ? 600_000 : options.deadlineMs;
  if (deadlineMs !== null && !(deadlineMs > 0))
    throw new RangeError("deadlineMs must be positive (or null)");
  const maxResponseBytes = options.maxResponseBytes ?? 16 * 1024 * 1024;
  if (!(maxResponseBytes >= 1))
    throw new RangeError("maxResponseBytes must be positive");
  const responseFormat = options.responseFormat ?? "auto";
  if (responseFormat !== "auto" && !RESPONSE_FORMS.includes(responseFormat))
    throw new RangeError(
      'responseFormat must be "auto", "json_schema", "json_object" or "prompt"',
    );
  const url = options.baseUrl.replace(/\/+$/, "") + "/chat/completions";
  const protocol = new URL(url).protocol;
  if (protocol !== "http:" && protocol !== "https:")
    throw new RangeError("baseUrl must be an http: or https: URL");
  return {
    url,
    shownUrl: publicUrl(url),
    model: options.model,
    retry,
    timeoutMs: options.timeoutMs ?? 120_000,
    deadlineMs,
    maxResponseBytes,
    responseFormat,
    sleep:
      options.sleep ?? ((ms) => new Promise((done) => setTimeout(done, ms))),
    random: options.random ?? Math.random,
  };
}

/** The code of a network failure (undici puts it on the error's `cause`). */
function failureCode(e: unknown): string {
  for (let at: unknown = e, depth = 0; isObject(at) && depth < 4; depth++) {
    const code = at["code"];
    if (typeof code === "string") return code;
    at = at["cause"];
  }
  return "";
}

// A connection refused, reset or cut short, or a timeout: worth another attempt (not a name
// that does not resolve, nor a certificate refused).
const TRANSIENT_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_RES_CONTENT_LENGTH_MISMATCH", // a body cut short
]);

/** One client's state and secrets, held in the closure `openAICompatible` returns. */
class Transport {
  readonly #s: Settings;
  readonly #headers: Record<string, string>;
  readonly #secrets: string[];
  readonly answered = new Set<ResponseForm>();
  form: ResponseForm | null = null;

  constructor(s: Settings, options: OpenAICompatibleOptions) {
    this.#s = s;
    const given = options.headers ?? {};
    this.#headers = { "Content-Type": "application/json", ...given };
    if (options.apiKey)
      this.#headers["Authorization"] = `Bearer ${options.apiKey}`;
    // A short header value is no secret to hunt for.
    this.#secrets = [options.apiKey ?? "", ...Object.values(given)].filter(
      (secret) => secret.length >= 8,
    );
  }

  /** The forms to try for `payload`, from the one this client settled on. */
  forms(payload: JsonObject): ResponseForm[] {
    const forms = payloadForms(payload, this.#s.responseFormat);
    const start = this.form;
    if (this.#s.responseFormat === "auto" && start && forms.includes(start))
      return forms.slice(forms.indexOf(start));
    return forms;
  }

  rejected(form: ResponseForm, error: LlmHttpError): boolean {
    if (this.#s.responseFormat !== "auto") return false;
    return rejectsForm(form, error.status, error.body, this.answered.has(form));
  }

  /** Remember `form` as answered; a fallback is kept for this client's later calls. */
  settle(form: ResponseForm, first: ResponseForm, notes: string[]): void {
    this.answered.add(form);
    if (form !== first)
      notes.push(`response_format ${form} from now on for this client`);
    if (form !== first || this.form === null) this.form = form;
  }

  /** Send `payload` in each form to try, falling back when the server rejects one; `open`
   * sends one form (with retries) and its result is returned. */
  async negotiated<T>(
    payload: JsonObject,
    notes: string[],
    open: (body: JsonObject, form: ResponseForm | null) => Promise<T>,
  ): Promise<T> {
    const forms = this.forms(payload);
    if (forms.length === 0) return open(payload, null);
    for (const [index, form] of forms.entries()) {
      const then = forms[index + 1];
      try {
        const out = await open(inForm(payload, form), form);
        this.settle(form, forms[0] ?? form, notes);
        return out;
      } catch (e) {
        if (!(e instanceof LlmHttpError) || !then || !this.rejected(form, e))
          throw e;
        const again =
          then === "prompt" ? "with the prompt alone" : `as ${then}`;
        notes.push(
          `the server rejected response_format ${form} (HTTP ${e.status}): sent again ${again}`,
        );
      }
    }
    throw new Error("unreachable: the last form answers or throws");
  }

  /** One request, sent again on a transient failure as `retry` says. */
  async withRetries<T>(
    payload: JsonObject,
    form: ResponseForm | null,
    started: number,
    notes: string[],
    send: (body: string, timeoutMs: number) => Promise<T>,
  ): Promise<T> {
    const body = JSON.stringify(payload);
    for (let failed = 1; ; failed++) {
      const left = this.#left(started);
      try {
        return await send(body, Math.min(this.#s.timeoutMs, left));
      } catch (e) {
        if (!(e instanceof Transient)) throw e;
        // A rejected form is sent again at once in the next, not retried.
        if (form !== null && this.rejected(form, e.error)) throw e.error;
        const wait = this.#wait(failed, e, started);
        notes.push(
          `attempt ${failed} failed (${e.error.message.slice(0, 200)}); sent again after ${(wait / 1000).toFixed(2)} s`,
        );
        await this.#s.sleep(wait);
      }
    }
  }

  #left(started: number): number {
    const deadline = this.#s.deadlineMs;
    if (deadline === null) return Infinity;
    return Math.max(started + deadline - Date.now(), 1);
  }

  /** How long to wait before the next attempt, or the error that ends the call. */
  #wait(failed: number, e: Transient, started: number): number {
    if (failed >= this.#s.retry.attempts) throw gaveUp(e.error, failed, "");
    const wait = retryWait(this.#s.retry, failed, e.askedMs, this.#s.random());
    if (wait === null) {
      const asked = ((e.askedMs ?? 0) / 1000).toString();
      throw gaveUp(
        e.error,
        failed,
        `the server asks to wait ${asked} s, more than retry.capMs`,
      );
    }
    const deadline = this.#s.deadlineMs;
    if (deadline !== null && Date.now() + wait >= started + deadline) {
      const late = `the next would start past the deadline of ${deadline} ms`;
      throw gaveUp(e.error, failed, late);
    }
    return wait;
  }

  /** One HTTP exchange up to a response with a 2xx status, the following of same-server
   * redirects included; `Transient` for a failure worth another attempt. The caller reads
   * the body within `controller`'s time. */
  async exchange(
    body: string,
    controller: AbortController,
  ): Promise<FetchResponse> {
    let url = this.#s.url;
    for (let hop = 0; hop <= REDIRECTS; hop++) {
      let response: FetchResponse;
      try {
        response = await fetch(url, {
          method: "POST",
          headers: { ...this.#headers },
          body,
          redirect: "manual",
          signal: controller.signal,
        });
      } catch (e) {
        throw this.failure(e, controller);
      }
      const status = response.status;
      if (status >= 200 && status < 300) return response;
      const location = response.headers.get("location");
      const moved = followed(url, status, location);
      if (moved === null) throw await this.#httpError(response, url, location);
      await response.body?.getReader().cancel();
      url = moved;
    }
    throw new LlmHttpError(
      `${this.#s.shownUrl}: more than ${REDIRECTS} redirects`,
    );
  }

  /** A network failure or a timeout as the error to throw: `Transient` when worth another
   * attempt. */
  failure(e: unknown, controller: AbortController): Error {
    if (e instanceof LlmHttpError || e instanceof Transient) return e;
    if (controller.signal.aborted)
      return new Transient(new LlmHttpError(`${this.#s.shownUrl}: timed out`));
    const code = failureCode(e);
    const said = e instanceof Error ? e.message : String(e);
    const reason = this.redacted(code ? `${said} (${code})` : said);
    const error = new LlmHttpError(`${this.#s.shownUrl}: ${reason}`);
    return TRANSIENT_CODES.has(code) ? new Transient(error) : error;
  }

  async #httpError(
    response: FetchResponse,
    url: string,
    location: string | null,
  ): Promise<Error> {
    const status = response.status;
    const shown = this.#s.shownUrl;
    if (status >= 300 && status < 400) {
      await response.body?.getReader().cancel();
      let target = "(no location)";
      try {
        target = publicUrl(new URL(location ?? "", url).href);
      } catch {
        // an unreadable Location names no target
      }
      return new LlmHttpError(
        `${shown}: HTTP ${status} redirect to ${target} not followed (only a 307 or 308 to` +
          " the same scheme, host and port is, so that the API key goes to no other" +
          " server): use the new address as baseUrl",
        { status },
      );
    }
    let detail = "";
    try {
      const raw = await readBounded(response, ERROR_BODY_LIMIT, false);
      const cut = (raw?.length ?? 0) >= ERROR_BODY_LIMIT;
      detail = this.redacted(new TextDecoder().decode(raw ?? undefined), cut);
    } catch {
      // a body cut short still leaves the status to report
    }
    const error = new LlmHttpError(
      `${shown}: HTTP ${status}: ${detail.slice(0, 500)}`,
      { status, body: detail },
    );
    if (!retried(status)) return error;
    const asked: Record<string, string> = {};
    for (const name of ["retry-after", "retry-after-ms"]) {
      const value = response.headers.get(name);
      if (value !== null) asked[name] = value;
    }
    return new Transient(error, retryAfter(asked, Date.now()));
  }

  /** `text` (a server's error body, which may echo the request) without the secrets;
   * when `cut` (the body's read stopped at its limit), without the start of a secret it
   * ends with either. */
  redacted(text: string, cut = false): string {
    for (const secret of this.#secrets) {
      text = text.split(secret).join("[redacted]");
      if (cut) text = withoutStart(text, secret);
    }
    return text;
  }

  /** A response body as JSON, within `maxResponseBytes`. */
  async json(response: FetchResponse): Promise<JsonObject> {
    const shown = this.#s.shownUrl;
    const limit = this.#s.maxResponseBytes;
    const tooLarge = `${shown}: the response is larger than maxResponseBytes (${limit})`;
    const length = response.headers.get("content-length") ?? "";
    if (/^\d+$/.test(length) && Number(length) > limit) {
      await response.body?.getReader().cancel();
      throw new LlmHttpError(`${tooLarge}: Content-Length ${length}`);
    }
    const data = await readBounded(response, limit, true);
    if (data === null) throw new LlmHttpError(tooLarge);
    let decoded: unknown;
    try {
      decoded = JSON.parse(
        new TextDecoder("utf-8", { fatal: true }).decode(data),
      );
    } catch {
      throw new LlmHttpError(`${shown}: the response is not JSON`);
    }
    if (!isObject(decoded))
      throw new LlmHttpError(`${shown}: the response is not a JSON object`);
    return decoded;
  }

  get shownUrl(): string {
    return this.#s.shownUrl;
  }

  get settings(): Settings {
    return this.#s;
  }

  describe(): string {
    const s = this.#s;
    return (
      `openAICompatible { baseUrl: ${JSON.stringify(publicUrl(s.url.slice(0, -"/chat/completions".length)))},` +
      ` model: ${JSON.stringify(s.model)}, timeoutMs: ${s.timeoutMs},` +
      ` deadlineMs: ${s.deadlineMs}, responseFormat: ${JSON.stringify(s.responseFormat)},` +
      ` maxResponseBytes: ${s.maxResponseBytes} }`
    );
  }
}

/** At most `limit` bytes of a body: null past it when `refuse`, else the first `limit`. */
/** `text` without the start of `secret` it ends with (4 characters or more), as a body cut
 * at its limit in the middle of an echoed secret ends. */
function withoutStart(text: string, secret: string): string {
  for (let size = secret.length - 1; size > 3; size--)
    if (text.endsWith(secret.slice(0, size)))
      return text.slice(0, -size) + "[redacted]";
  return text;
}

async function readBounded(
  response: FetchResponse,
  limit: number,
  refuse: boolean,
): Promise<Uint8Array | null> {
  const reader = response.body?.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  while (reader) {
    const { done, value } = await reader.read();
    if (done || !value) break;
    parts.push(value);
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      if (refuse) return null;
      break;
    }
  }
  const out = new Uint8Array(Math.min(size, limit));
  let at = 0;
  for (const part of parts) {
    const piece = part.subarray(0, out.length - at);
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/** The last attempt's error, saying why no other follows. */
function gaveUp(
  error: LlmHttpError,
  attempts: number,
  why: string,
): LlmHttpError {
  if (attempts === 1 && !why) return error;
  const plural = attempts !== 1 ? "s" : "";
  return new LlmHttpError(
    `${error.message} (gave up after ${attempts} attempt${plural}${why ? `: ${why}` : ""})`,
    { status: error.status, body: error.body, attempts },
  );
}

/** Runs `work` with an abort controller that fires after `timeoutMs`. */
async function timed<T>(
  timeoutMs: number,
  work: (controller: AbortController) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    return await work(controller);
  } finally {
    clearTimeout(timer);
  }
}

/* ---- server-sent events ------------------------------------------------------------------- */

/** The `data` of server-sent events, fed text as it arrives: lines end in LF, CRLF or CR (a CR
 * at the end of a piece waits for the next), an event ends at a blank line. */
class Events {
  #buffer = "";
  #data: string[] = [];

  feed(text: string, last = false): string[] {
    const buffer = this.#buffer + text;
    const out: string[] = [];
    const breaks = /\r\n|\r|\n/g;
    let at = 0;
    for (;;) {
      breaks.lastIndex = at;
      const found = breaks.exec(buffer);
      if (found === null) break;
      // A CR ending this piece may be the first half of a CRLF: wait for the next.
      if (found[0] === "\r" && found.index === buffer.length - 1 && !last)
        break;
      this.#line(buffer.slice(at, found.index), out);
      at = found.index + found[0].length;
    }
    this.#buffer = buffer.slice(at);
    if (last) {
      if (this.#buffer) this.#line(this.#buffer, out);
      this.#buffer = "";
      this.#line("", out);
    }
    return out;
  }

  #line(line: string, out: string[]): void {
    if (line === "") {
      if (this.#data.length > 0) out.push(this.#data.join("\n"));
      this.#data = [];
      return;
    }
    if (line.startsWith(":")) return; // a comment (a keep-alive)
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (name === "data") this.#data.push(value);
  }
}

/** What one Chat Completions stream event adds: the chunk (null when nothing), and whether the
 * choice stopped on the content filter. Of the tool calls, only the first one's index is
 * followed (`follow` remembers it across the events), as Python's reader does. */
function eventChunk(
  event: JsonObject,
  follow: { index?: unknown },
): [Chunk | null, boolean] {
  const chunk: Exclude<Chunk, string> = {};
  const choice = asObject(asArray(event["choices"])[0]);
  const delta = asObject(choice["delta"]);
  const content = piece(delta["content"]);
  if (content) chunk.content = content;
  let args = "";
  for (const given of asArray(delta["tool_calls"])) {
    const call = asObject(given);
    const index = call["index"] ?? 0;
    if (!("index" in follow)) follow.index = index;
    if (index !== follow.index) continue;
    const fn = asObject(call["function"]);
    const name = fn["name"];
    if (typeof name === "string" && name) chunk.tool = name;
    args += piece(fn["arguments"]) ?? "";
  }
  if (args) chunk.arguments = args;
  const refusal = piece(delta["refusal"]);
  if (refusal) chunk.refusal = refusal;
  const reasoning = piece(delta["reasoning_content"] || delta["reasoning"]);
  if (reasoning) chunk.reasoning = reasoning;
  if (isObject(event["usage"])) {
    const usage = event["usage"];
    const tokens = tokensOf({
      input: usage["prompt_tokens"],
      output: usage["completion_tokens"],
    });
    if (Object.keys(tokens).length > 0) chunk.tokens = tokens;
  }
  const filtered = choice["finish_reason"] === "content_filter";
  return [Object.keys(chunk).length > 0 ? chunk : null, filtered];
}

/** A delta's text: a string, or the text parts of a list (as some servers send); null for
 * none (Python's `_piece`). */
function piece(value: unknown): string | null {
  if (Array.isArray(value)) {
    const parts = value.map((part) => asObject(part)["text"]);
    return parts.filter((p) => typeof p === "string").join("") || null;
  }
  return typeof value === "string" && value ? value : null;
}

/** An open stream: the reader, the events read ahead (up to the first), the parser state. */
interface OpenStream {
  reader: FetchReader;
  pending: string[];
  events: Events;
  decoder: TextDecoder;
  read: number;
  controller: AbortController;
  /** `data: [DONE]` came. */
  done?: boolean;
}

/* ---- openAICompatible --------------------------------------------------------------------- */

const INSPECT = Symbol.for("nodejs.util.inspect.custom");

/** A callback for any Chat Completions endpoint: OpenAI, vLLM, llama.cpp's server,
 * llama-cpp-python, Ollama's /v1, LM Studio, a LiteLLM proxy. Transport failures (HTTP 408,
 * 429, 5xx but 501, a refused or reset connection, a timeout) are retried with exponential
 * backoff and full jitter or as `Retry-After` asks, within `deadlineMs`; only a 307 or 308 to
 * the same server is followed; a body past `maxResponseBytes` is refused. What the transport
 * did is in the reply's `notes`. */
export function openAICompatible(
  options: OpenAICompatibleOptions,
): OpenAICompatibleLlm {
  const transport = new Transport(settings(options), options);
  const call = (request: ProviderRequest): Promise<ProviderReply> =>
    complete(transport, request);
  const stream = (request: ProviderRequest): AsyncIterable<Chunk> =>
    streamed(transport, request);
  const llm = Object.assign(call, {
    stream,
    toString: () => transport.describe(),
    toJSON: () => transport.describe(),
    [INSPECT]: () => transport.describe(),
  });
  Object.defineProperty(llm, "form", {
    get: (): ResponseForm | null =>
      transport.settings.responseFormat === "auto"
        ? transport.form
        : transport.settings.responseFormat,
    enumerable: true,
  });
  return llm as typeof llm & { readonly form: ResponseForm | null };
}

async function complete(
  transport: Transport,
  request: ProviderRequest,
): Promise<ProviderReply> {
  const s = transport.settings;
  const payload = openaiPayload(request, s.model);
  const notes: string[] = [];
  const started = Date.now();
  const data = await transport.negotiated(payload, notes, (body, form) =>
    transport.withRetries(body, form, started, notes, (text, timeoutMs) =>
      timed(timeoutMs, async (controller) => {
        try {
          return await transport.json(
            await transport.exchange(text, controller),
          );
        } catch (e) {
          throw transport.failure(e, controller);
        }
      }),
    ),
  );
  const answer = readOpenAI(data);
  if (notes.length > 0) answer.notes = [...notes];
  return answer;
}

async function* streamed(
  transport: Transport,
  request: ProviderRequest,
): AsyncGenerator<Chunk> {
  const s = transport.settings;
  const payload: JsonObject = {
    ...openaiPayload(request, s.model),
    stream: true,
    stream_options: { include_usage: true },
  };
  const notes: string[] = [];
  const started = Date.now();
  // Retried, and negotiated, only up to the first event: nothing has been given out yet.
  const open = await transport.negotiated(payload, notes, (body, form) =>
    transport.withRetries(body, form, started, notes, (text, timeoutMs) =>
      openStream(transport, text, timeoutMs),
    ),
  );
  if (notes.length > 0) yield { notes: [...notes] };
  yield* readStream(transport, open);
}

/** Idle time without a byte read, within which a stream's next read must come. */
async function readSome(
  transport: Transport,
  open: OpenStream,
): Promise<Uint8Array | null> {
  const timer = setTimeout(
    () => open.controller.abort(),
    transport.settings.timeoutMs,
  );
  try {
    const { done, value } = await open.reader.read();
    if (done || !value) return null;
    open.read += value.length;
    if (open.read > transport.settings.maxResponseBytes) {
      await open.reader.cancel();
      throw new LlmHttpError(
        `${transport.shownUrl}: the response is larger than maxResponseBytes (${transport.settings.maxResponseBytes})`,
      );
    }
    return value;
  } catch (e) {
    throw transport.failure(e, open.controller);
  } finally {
    clearTimeout(timer);
  }
}

/** POST a streaming request and read up to its first event (so that a failure before it is
 * retried like any other). */
async function openStream(
  transport: Transport,
  body: string,
  timeoutMs: number,
): Promise<OpenStream> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let response: FetchResponse;
  try {
    response = await transport.exchange(body, controller);
  } catch (e) {
    throw transport.failure(e, controller);
  } finally {
    clearTimeout(timer);
  }
  const reader = response.body?.getReader();
  if (!reader)
    throw new LlmHttpError(`${transport.shownUrl}: the response has no body`);
  const open: OpenStream = {
    reader,
    pending: [],
    events: new Events(),
    decoder: new TextDecoder(),
    read: 0,
    controller,
  };
  while (open.pending.length === 0) {
    const value = await readSome(transport, open);
    const text = value
      ? open.decoder.decode(value, { stream: true })
      : open.decoder.decode();
    open.pending.push(...open.events.feed(text, value === null));
    if (value === null) break;
  }
  return open;
}

/** The stream's events as JSON objects, up to `[DONE]` or the end of the body; the reader is
 * let go however the caller stops. */
async function* streamEvents(
  transport: Transport,
  open: OpenStream,
): AsyncGenerator<JsonObject> {
  try {
    for (;;) {
      for (const data of open.pending) {
        if (data.trim() === "[DONE]") {
          open.done = true;
          return;
        }
        yield streamEvent(transport, data);
      }
      open.pending = [];
      let value: Uint8Array | null;
      try {
        value = await readSome(transport, open);
      } catch (e) {
        // Past the first chunk nothing is sent again: the error ends the stream.
        throw e instanceof Transient ? e.error : e;
      }
      const text = value
        ? open.decoder.decode(value, { stream: true })
        : open.decoder.decode();
      open.pending = open.events.feed(text, value === null);
      if (value === null && open.pending.length === 0) return;
    }
  } finally {
    await open.reader.cancel().catch(() => undefined);
  }
}

/** One event's data as a JSON object; an error event (`{"error": ...}`) ends the stream. */
function streamEvent(transport: Transport, data: string): JsonObject {
  let event: unknown;
  try {
    event = JSON.parse(data);
  } catch {
    throw new LlmHttpError(`${transport.shownUrl}: a stream event is not JSON`);
  }
  const error = asObject(event)["error"];
  if (error !== undefined && error !== null) {
    const said = transport.redacted(JSON.stringify(error)).slice(0, 500);
    throw new LlmHttpError(`${transport.shownUrl}: the stream failed: ${said}`);
  }
  return asObject(event);
}

async function* readStream(
  transport: Transport,
  open: OpenStream,
): AsyncGenerator<Chunk> {
  let answered = false;
  let filtered = false;
  let finished = false;
  const follow: { index?: unknown } = {};
  for await (const event of streamEvents(transport, open)) {
    const [chunk, stopped] = eventChunk(event, follow);
    filtered ||= stopped;
    const choice = asObject(asArray(event["choices"])[0]);
    finished ||= typeof choice["finish_reason"] === "string";
    if (chunk === null) continue;
    if (typeof chunk !== "string" && (chunk.content || chunk.arguments))
      answered = true;
    yield chunk;
  }
  if (!open.done && !finished)
    throw new LlmHttpError(
      `${transport.shownUrl}: the stream ended before its end (no [DONE], no` +
        " finish_reason): the reply may be cut short",
    );
  if (filtered && !answered)
    yield {
      refusal:
        'the content filter stopped the reply (finish_reason "content_filter")',
    };
}
