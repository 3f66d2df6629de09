/**
 * Streaming partial objects (runtime/stream.py is the same in Python): `PartialReader` reads a
 * reply as it arrives, and `streamJson` runs a json signature's turns over a streaming
 * callback, yielding partial answers, with the turns, retries, usage and errors of the plain
 * call (`runJson`; both drive `jsonTurns`). A turn is bounded by the call's `limits`: each of
 * its answer texts (content, arguments, refusal) holds at most `replyChars` code points; past
 * that the turn is read no further (its iterator returned) and the text, cut to one code point
 * past the limit, is the answer the loop rejects as an over-long reply (a refusal stays a
 * refusal). Reasoning is never parsed: past `replyChars` it is cut there, with a note, and the
 * turn is read on, as the loop cuts a plain reply's reasoning (`keptReasoning`). The reader
 * nests at most `depth` levels.
 */

import {
  CallbackError,
  INVALID,
  LIMITS,
  RESPOND_TOOL,
  checkReplyValue,
  jsonTurns,
  limitsOf,
  readReply,
  reasoningNote,
  toolParameters,
  type Descriptor,
  type JsonOptions,
  type Limits,
  type ParseResult,
  type Reply,
  type Request,
  type Spec,
  type Step,
  type Types,
} from "./_runtime.js";

/* ---- the partial reader --------------------------------------------------------------------- */

/** What a shape returns for a value the partial leaves out. */
export const SKIP: unique symbol = Symbol("skip");

/** How the reply's members become the partial's: names, and the values they may hold. */
export interface Shape {
  /** The partial's name for a reply key, or null to leave the member out. */
  name(key: string): string | null;
  /** A complete member's value as the partial holds it, or SKIP. */
  member(key: string, value: unknown): unknown;
  /** A complete item of the list member `key` (null: of the top-level list), or SKIP. */
  item(key: string | null, value: unknown): unknown;
  /** Whether the string member `key` may show while it grows. */
  grows(key: string): boolean;
}

/** Every member as it is, under its own key. */
export const ANY_SHAPE: Shape = {
  name: (key) => key,
  member: (_key, value) => value,
  item: (_key, value) => value,
  grows: () => true,
};

export interface ReaderOptions {
  /** "complete" (the default): a string shows once its closing quote has come; "growing":
   * a member's string shows as it grows. */
  strings?: "complete" | "growing" | undefined;
  shape?: Shape | undefined;
  /** How many levels lists and maps may nest (the call's `limits.depth`): a value opening
   * one more stops the reader, the partial staying as it was. */
  depth?: number | undefined;
}

// What the reader expects next.
const SEEK = 0; // the first `{` or `[`, past prose and a fence
const KEY = 1; // a key, or the end of the object
const KEY_STRING = 2;
const COLON = 3;
const VALUE = 4; // a member's value or a list's item (or the end of the list)
const STRING = 5;
const NESTED = 6;
const SCALAR = 7;
const AFTER = 8; // `,` or the end of the container
const DONE = 9;
const BROKEN = 10;

// Where the reader is: a member of the top-level object, an item of the top-level list, or an
// item of a member's list.
const IN_OBJECT = 0;
const IN_LIST = 1;
const IN_MEMBER_LIST = 2;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ESCAPED: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

const isSpace = (c: number): boolean =>
  c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const ends = (c: number): boolean =>
  c === 0x2c || c === 0x7d || c === 0x5d || isSpace(c);

function put(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key !== "__proto__") {
    o[key] = value; // a plain object's own data property: only __proto__ is an accessor
    return;
  }
  Object.defineProperty(o, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}

function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length)
    if (a.every((item, i) => item === b[i])) return true; // the items shown, as they were
  return JSON.stringify(a) === JSON.stringify(b);
}

function decode(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return SKIP;
  }
}

/**
 * An incremental reader of a JSON reply: `feed(text)` reads the next piece and says whether
 * the partial changed; `value` is the partial: the top-level object's complete members
 * (strings growing if so chosen, a list member growing by its complete items, a nested
 * object once complete) or the top-level list's complete items. Each character is read once;
 * a member's text is decoded once, when it completes. `value` is updated in place (take
 * `snapshot()` to keep one).
 */
export class PartialReader {
  value: Record<string, unknown> | unknown[] | undefined = undefined;
  private mode = SEEK;
  private where = IN_OBJECT;
  private readonly growing: boolean;
  private readonly shape: Shape;
  private captured = ""; // the text so far of the current key, member or item
  private start = -1; // where the capture starts in the current piece (-1: none)
  private key = "";
  private name: string | null = null;
  private depth = 0; // inside a nested value
  private readonly maxDepth: number; // levels at most, the top-level value's the first
  private inString = false;
  private escaped = false;
  private grown: string | null = null; // the growing string, decoded so far
  private hex = -1; // the digits of a \uXXXX escape seen so far (-1: none)
  private hexText = "";
  private high = ""; // a high surrogate not yet shown
  private items: unknown[] = []; // a member list's items as read
  private shown: unknown[] | null = null; // and as the partial holds them
  private changed = false;

  constructor(options: ReaderOptions = {}) {
    this.growing = options.strings === "growing";
    this.shape = options.shape ?? ANY_SHAPE;
    this.maxDepth = options.depth ?? LIMITS.depth;
  }

  /** Whether a container opening `inside` levels into the current member or item would nest
   * past the depth limit (the top-level value is level 1, a member list's items level 3). */
  private tooDeep(inside: number): boolean {
    return (this.where === IN_MEMBER_LIST ? 2 : 1) + inside > this.maxDepth;
  }

  /** Nesting past the limit: the reader stops, nothing more captured. */
  private stop(next: number): number {
    this.mode = BROKEN;
    this.start = -1;
    this.captured = "";
    return next;
  }

  /** Whether the top-level value has ended (the rest of the reply is ignored). */
  get done(): boolean {
    return this.mode === DONE;
  }

  /** A copy of the partial that later pieces leave alone. */
  snapshot(): Record<string, unknown> | unknown[] | undefined {
    const v = this.value;
    if (v === undefined || Array.isArray(v)) return v && [...v];
    const copy: Record<string, unknown> = {};
    const growing = this.shown;
    for (const [k, item] of Object.entries(v))
      put(copy, k, growing !== null && item === growing ? [...growing] : item);
    return copy;
  }

  feed(text: string): boolean {
    this.changed = false;
    if (
      this.mode === STRING &&
      !this.escaped &&
      this.hex < 0 &&
      text.indexOf('"') < 0 &&
      text.indexOf("\\") < 0
    ) {
      // Inside a string that goes on (the commonest piece): taken whole.
      this.captured += text;
      if (this.grown !== null && text !== "") this.grow(text);
      return this.changed;
    }
    let i = 0;
    const n = text.length;
    while (i < n && this.mode < DONE) i = this.step(text, i, n);
    if (this.start >= 0) {
      this.captured += text.slice(this.start);
      this.start = 0;
    }
    return this.changed;
  }

  private step(text: string, i: number, n: number): number {
    switch (this.mode) {
      case SEEK:
        return this.seek(text, i, n);
      case STRING:
      case KEY_STRING:
        return this.string(text, i, n);
      case NESTED:
        return this.nested(text, i, n);
      case SCALAR:
        return this.scalar(text, i, n);
    }
    const c = text.charCodeAt(i);
    if (isSpace(c)) return i + 1;
    switch (this.mode) {
      case KEY:
        return this.keyStart(c, i);
      case COLON:
        if (c === 0x3a) this.mode = VALUE;
        else this.mode = BROKEN;
        return i + 1;
      case VALUE:
        return this.valueStart(c, i);
      default:
        return this.after(c, i);
    }
  }

  private seek(text: string, i: number, n: number): number {
    for (let j = i; j < n; j++) {
      const c = text.charCodeAt(j);
      if (c === 0x7b || c === 0x5b) {
        this.value = c === 0x7b ? {} : [];
        this.where = c === 0x7b ? IN_OBJECT : IN_LIST;
        this.mode = c === 0x7b ? KEY : VALUE;
        this.changed = true; // the answer has begun
        return j + 1;
      }
    }
    return n;
  }

  private keyStart(c: number, i: number): number {
    if (c === QUOTE) {
      this.mode = KEY_STRING;
      this.start = i;
      this.escaped = false;
    } else if (c === 0x7d) this.mode = DONE;
    else if (c !== 0x2c) this.mode = BROKEN; // a stray comma is let pass
    return i + 1;
  }

  private valueStart(c: number, i: number): number {
    if (c === 0x5d && this.where !== IN_OBJECT) {
      this.closeList();
      return i + 1;
    }
    if (c === 0x2c && this.where !== IN_OBJECT) return i + 1; // [1,,2] or [1,]
    if (c === 0x5b && this.where === IN_OBJECT) {
      if (this.tooDeep(1)) return this.stop(i + 1);
      this.where = IN_MEMBER_LIST;
      this.items = [];
      this.shown = null;
      if (this.name !== null) {
        this.shown = []; // a member's list shows from its opening, filling item by item
        this.set(this.value as Record<string, unknown>, this.name, this.shown);
      }
      return i + 1;
    }
    this.start = i;
    if (c === QUOTE) {
      this.mode = STRING;
      this.escaped = false;
      const grows =
        this.growing &&
        this.where === IN_OBJECT &&
        this.name !== null &&
        this.shape.grows(this.key);
      this.grown = grows ? "" : null;
      this.high = "";
      this.hex = -1;
    } else if (c === 0x7b || c === 0x5b) {
      if (this.tooDeep(1)) return this.stop(i + 1);
      this.mode = NESTED;
      this.depth = 1;
      this.inString = false;
    } else if (c === 0x7d || c === 0x5d || c === 0x2c || c === 0x3a) {
      this.mode = BROKEN;
    } else this.mode = SCALAR;
    return i + 1;
  }

  private after(c: number, i: number): number {
    if (c === 0x2c) this.mode = this.where === IN_OBJECT ? KEY : VALUE;
    else if (c === 0x7d && this.where === IN_OBJECT) this.mode = DONE;
    else if (c === 0x5d && this.where !== IN_OBJECT) this.closeList();
    else this.mode = BROKEN;
    return i + 1;
  }

  private string(text: string, i: number, n: number): number {
    const grows = this.grown !== null;
    let run = i; // the start of plain text not yet added to `grown`
    for (let j = i; j < n; j++) {
      const c = text.charCodeAt(j);
      if (this.escaped) {
        this.escaped = false;
        if (grows) {
          if (c === 0x75) {
            this.hex = 0;
            this.hexText = "";
          } else this.grow(ESCAPED[text[j] as string] ?? "");
          run = j + 1;
        }
      } else if (this.hex >= 0) {
        this.hexText += text[j];
        this.hex += 1;
        if (this.hex === 4) {
          this.hex = -1;
          const code = parseInt(this.hexText, 16);
          if (!Number.isNaN(code)) this.grow(String.fromCharCode(code));
        }
        run = j + 1;
      } else if (c === BACKSLASH) {
        if (grows && j > run) this.grow(text.slice(run, j));
        this.escaped = true;
        run = j + 1;
      } else if (c === QUOTE) {
        if (grows && j > run) this.grow(text.slice(run, j));
        this.complete(text, j + 1);
        return j + 1;
      }
    }
    if (grows && n > run) this.grow(text.slice(run, n));
    return n;
  }

  private grow(piece: string): void {
    // Half a surrogate pair waits for its other half (no partial holds a lone one).
    let text = this.high + piece;
    this.high = "";
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.high = text.slice(-1);
      text = text.slice(0, -1);
    }
    if (text === "") return;
    this.grown = (this.grown ?? "") + text;
    if (this.name !== null && this.value && !Array.isArray(this.value)) {
      put(this.value, this.name, this.grown);
      this.changed = true;
    }
  }

  private nested(text: string, i: number, n: number): number {
    for (let j = i; j < n; j++) {
      const c = text.charCodeAt(j);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
      } else if (c === QUOTE) this.inString = true;
      else if (c === 0x7b || c === 0x5b) {
        this.depth += 1;
        if (this.tooDeep(this.depth)) return this.stop(j + 1);
      } else if (c === 0x7d || c === 0x5d) {
        this.depth -= 1;
        if (this.depth === 0) {
          this.complete(text, j + 1);
          return j + 1;
        }
      }
    }
    return n;
  }

  private scalar(text: string, i: number, n: number): number {
    for (let j = i; j < n; j++) {
      if (ends(text.charCodeAt(j))) {
        this.complete(text, j);
        return j; // the delimiter is read again, after the value
      }
    }
    return n;
  }

  /** The captured text ends at `end` of this piece: a key, a member or an item is whole. */
  private complete(text: string, end: number): void {
    // A concatenation (V8 keeps it as a rope, flattened once, by JSON.parse).
    const whole = this.captured + text.slice(this.start, end);
    this.captured = "";
    this.start = -1;
    const wasKey = this.mode === KEY_STRING;
    this.mode = wasKey ? COLON : AFTER;
    const value = decode(whole);
    if (wasKey) {
      this.key = typeof value === "string" ? value : "";
      this.name = typeof value === "string" ? this.shape.name(value) : null;
    } else if (this.where === IN_OBJECT) this.member(value);
    else this.item(value);
  }

  private member(value: unknown): void {
    const had = this.grown !== null;
    this.grown = null;
    if (this.name === null || !this.value || Array.isArray(this.value)) return;
    const kept = value === SKIP ? SKIP : this.shape.member(this.key, value);
    if (kept !== SKIP) this.set(this.value, this.name, kept);
    else if (had || Object.hasOwn(this.value, this.name)) {
      this.changed ||= Object.hasOwn(this.value, this.name);
      delete this.value[this.name];
    }
  }

  /** A member's complete value; a change only if it differs from what the partial showed
   * (a string grown whole, a list whose every item showed). */
  private set(
    object: Record<string, unknown>,
    name: string,
    value: unknown,
  ): void {
    const before = Object.hasOwn(object, name) ? object[name] : SKIP;
    put(object, name, value);
    if (before === SKIP || typeof before !== typeof value) this.changed = true;
    else if (before !== value) this.changed ||= !sameJson(before, value);
  }

  private item(value: unknown): void {
    const inMember = this.where === IN_MEMBER_LIST;
    if (inMember) this.items.push(value);
    if (value === SKIP || (inMember && this.name === null)) return;
    const kept = this.shape.item(inMember ? this.key : null, value);
    if (kept === SKIP) return;
    if (inMember) this.shown?.push(kept);
    else (this.value as unknown[]).push(kept);
    this.changed = true;
  }

  private closeList(): void {
    if (this.where === IN_LIST) {
      this.mode = DONE;
      return;
    }
    this.where = IN_OBJECT;
    this.mode = AFTER;
    const items = this.items.includes(SKIP) ? SKIP : this.items;
    this.items = [];
    this.shown = null;
    if (this.name === null) return;
    const object = this.value as Record<string, unknown>;
    const kept = items === SKIP ? SKIP : this.shape.member(this.key, items);
    if (kept !== SKIP) this.set(object, this.name, kept);
    else {
      delete object[this.name];
      this.changed = true;
    }
  }
}

/* ---- the shape of a signature's output ------------------------------------------------------ */

function resolved(d: Descriptor, types: Types): Descriptor {
  let out = d;
  while (out[0] === "ref" || out[0] === "opt")
    out = (out[0] === "ref" ? types[out[1] as string] : out[1]) as Descriptor;
  return out;
}

function checked(
  d: Descriptor,
  value: unknown,
  types: Types,
  limits: Partial<Limits> | undefined,
): unknown {
  const out = checkReplyValue(d, value, types, limits);
  return out === INVALID ? SKIP : out;
}

/** An output map's members: each checked as its field (constraints, enum, @fallback), under
 * the field's name; an open map's other members as any JSON value. */
function mapShape(
  d: Descriptor,
  types: Types,
  limits: Partial<Limits> | undefined,
): Shape {
  const fields = new Map<string, Descriptor>();
  for (const f of d[1] as Descriptor[]) fields.set(f[1] as string, f);
  const open = Boolean(d[2]);
  const field = (key: string): Descriptor | undefined =>
    fields.get(key.replaceAll("-", "_"));
  return {
    name: (key) => {
      const f = field(key);
      return f ? (f[0] as string) : open ? key : null;
    },
    member: (key, value) => {
      const f = field(key);
      if (f === undefined) return checked(["any"], value, types, limits);
      const one: Descriptor = ["map", [f], false];
      const out = checked(one, { [f[1] as string]: value }, types, limits);
      return out === SKIP
        ? SKIP
        : (out as Record<string, unknown>)[f[0] as string];
    },
    item: (key, value) => {
      const f = key === null ? undefined : field(key);
      if (f === undefined) return checked(["any"], value, types, limits);
      const list = resolved(f[2] as Descriptor, types);
      const of = list[0] === "list" ? (list[1] as Descriptor) : ["any"];
      return checked(of, value, types, limits);
    },
    grows: (key) => {
      const f = field(key);
      return (
        f === undefined || resolved(f[2] as Descriptor, types)[0] === "str"
      );
    },
  };
}

/** The items of a list output, each checked as the list's item. */
function listShape(
  item: Descriptor,
  types: Types,
  limits: Partial<Limits> | undefined,
  wrapper: string | null,
): Shape {
  const list: Descriptor = ["list", item];
  return {
    name: (key) => (key === wrapper ? key : null),
    member: (_key, value) => checked(list, value, types, limits),
    item: (_key, value) => checked(item, value, types, limits),
    grows: () => false,
  };
}

/** The reader and the partial it gives for an output: a map's fields, a list's items, or
 * none for other outputs (`wrapper`: the key a forced tool's arguments hold the answer in). */
function partials(
  output: Descriptor,
  types: Types,
  options: StreamOptions,
  wrapper: string | null,
): [ReaderOptions, (reader: PartialReader) => unknown] | null {
  const d = resolved(output, types);
  const strings = options.strings;
  const depth = limitsOf(options.limits).depth;
  if (d[0] === "map" && wrapper === null)
    return [
      { strings, depth, shape: mapShape(d, types, options.limits) },
      (r) => r.snapshot(),
    ];
  if (d[0] !== "list" || (wrapper !== null && wrapper !== "items")) return null;
  const shape = listShape(d[1] as Descriptor, types, options.limits, wrapper);
  if (wrapper === null)
    return [
      { shape, depth },
      (r) => (Array.isArray(r.value) ? r.snapshot() : undefined),
    ];
  return [
    { shape, depth },
    (r) => {
      const v = r.snapshot();
      return v && !Array.isArray(v) ? v[wrapper] : undefined;
    },
  ];
}

/* ---- the stream driver ------------------------------------------------------------------------ */

/** A piece of a streamed reply: answer text, or any of these pieces and counts. */
export type Chunk =
  | string
  | {
      content?: string | null;
      arguments?: string | null;
      tool?: string | null;
      refusal?: string | null;
      reasoning?: string | null;
      tokens?: Record<string, number> | null;
      notes?: string[] | null;
      [key: string]: unknown;
    };
/** A streaming callback: the request a plain `Llm` gets, the reply as chunks. */
export type StreamLlm = (
  request: Request,
) => AsyncIterable<Chunk> | Iterable<Chunk>;

export interface StreamOptions extends JsonOptions {
  /** "complete" (the default): string fields show once whole; "growing": as they grow. */
  strings?: "complete" | "growing" | undefined;
}

/** A streamed call: iterate it for partial answers (each turn starts a fresh partial), or
 * await `result()` for the step `runJson` gives; both fail as `runJson` does. */
export interface Streaming<P, T> extends AsyncIterable<P> {
  /** The turn the partials come from (1 for the first, 0 before it starts). */
  readonly turn: number;
  result(): Promise<Step<T>>;
}

const PIECES = ["content", "arguments", "refusal", "reasoning"] as const;
type Piece = (typeof PIECES)[number];

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** Where `text`'s first `count` code points from `from` end (a UTF-16 index), or -1 when it
 * has fewer; a lone surrogate is one code point, as the reply parser counts. */
function pointsEnd(text: string, count: number, from: number): number {
  let i = from;
  for (let n = 0; n < count; n++) {
    if (i >= text.length) return -1;
    i += isHigh(text.charCodeAt(i)) && isLow(text.charCodeAt(i + 1)) ? 2 : 1;
  }
  return i;
}

/** The chunks of one turn, joined into the reply a plain callback returns. Each answer text
 * keeps at most `limit + 1` code points: `over` names the first to pass `limit`. The reasoning
 * keeps at most `limit` (`cut` when it had more), and reading goes on. */
class Joined {
  readonly texts: Record<Piece, string[] | null> = {
    content: null,
    arguments: null,
    refusal: null,
    reasoning: null,
  };
  private readonly sizes: Record<Piece, number> = {
    content: 0,
    arguments: 0,
    refusal: 0,
    reasoning: 0,
  };
  over: Piece | null = null;
  cut = false;
  tool: string | null = null;
  tokens: Record<string, number> = {};
  notes: string[] = [];

  constructor(private readonly limit: number) {}

  /** Adds a chunk; returns its piece of the answer text (content, or the tool's arguments),
   * none once a text is past the limit. */
  add(chunk: unknown, structured: string): string {
    if (typeof chunk === "string") {
      const answer = this.piece("content", chunk, structured);
      return this.over === null ? answer : "";
    }
    if (typeof chunk !== "object" || chunk === null || Array.isArray(chunk))
      throw new CallbackError("a stream chunk must be a string or an object");
    const c = chunk as Record<string, unknown>;
    if (typeof c["tool"] === "string") this.tool = c["tool"];
    const tokens = c["tokens"];
    if (typeof tokens === "object" && tokens !== null && !Array.isArray(tokens))
      for (const [k, v] of Object.entries(tokens)) put(this.tokens, k, v);
    const notes = c["notes"] ?? [];
    if (!Array.isArray(notes) || !notes.every((x) => typeof x === "string"))
      throw new CallbackError(
        "a stream chunk's `notes` must be a list of strings",
      );
    this.notes.push(...(notes as string[]));
    let answer = "";
    for (const key of PIECES) {
      const piece = c[key] ?? null;
      if (piece === null) continue;
      if (typeof piece !== "string")
        throw new CallbackError(`a stream chunk's \`${key}\` must be a string`);
      answer += this.piece(key, piece, structured);
    }
    return this.over === null ? answer : "";
  }

  private piece(key: Piece, text: string, structured: string): string {
    if (text === "") return "";
    const kept = (this.texts[key] ??= []);
    // The low half of a pair whose high half ended the last piece adds no code point.
    const last = kept.at(-1) ?? "";
    const joins =
      isHigh(last.charCodeAt(last.length - 1)) && isLow(text.charCodeAt(0));
    // Reasoning is cut at the limit and the turn goes on; an answer text past the limit is
    // kept to one code point past it, and the turn is read no further.
    const reasons = key === "reasoning";
    const most = reasons ? this.limit : this.limit + 1;
    const end = pointsEnd(text, most - this.sizes[key], joins ? 1 : 0);
    const taken = end < 0 ? text : text.slice(0, end);
    if (reasons && end >= 0 && end < text.length) this.cut = true;
    else if (!reasons && end >= 0) this.over ??= key;
    if (taken !== "") kept.push(taken);
    this.sizes[key] = end >= 0 ? most : this.sizes[key] + pointsIn(text, joins);
    const answers = structured === "tool" ? "arguments" : "content";
    return key === answers ? taken : "";
  }

  reply(structured: string): Reply {
    const joined = (key: Piece): string | null =>
      this.texts[key]?.join("") ?? null;
    const texts: Record<Piece, string | null> = {
      content: joined("content"),
      arguments: joined("arguments"),
      refusal: joined("refusal"),
      reasoning: joined("reasoning"),
    };
    const name = this.tool ?? RESPOND_TOOL;
    const over = this.over;
    if (over !== null && over !== "refusal") {
      // The text past the limit is the answer the loop reads, which it rejects as too long.
      const answer =
        structured === "tool" &&
        texts.arguments !== null &&
        name === RESPOND_TOOL
          ? "arguments"
          : "content";
      const text = texts[over];
      texts[over] = null;
      texts[answer] = text;
    }
    const args = texts.arguments;
    return readReply({
      content: texts.content,
      tool_calls: args === null ? [] : [{ id: null, name, arguments: args }],
      refusal: texts.refusal,
      reasoning: texts.reasoning,
      tokens: this.tokens,
      notes: this.cut ? [...this.notes, reasoningNote(this.limit)] : this.notes,
    });
  }
}

/** Code points in a piece, less one when its first unit completes the last piece's pair. */
function pointsIn(text: string, joins: boolean): number {
  let n = 0;
  for (let i = joins ? 1 : 0; i < text.length; n++)
    i += isHigh(text.charCodeAt(i)) && isLow(text.charCodeAt(i + 1)) ? 2 : 1;
  return n;
}

async function* chunksOf(
  stream: AsyncIterable<Chunk> | Iterable<Chunk>,
): AsyncGenerator<Chunk> {
  if (stream !== null && typeof stream === "object") {
    if (Symbol.asyncIterator in stream) return yield* stream;
    if (Symbol.iterator in stream && typeof stream !== "string")
      return yield* stream;
  }
  throw new CallbackError(
    "the streaming llm callback must return an iterable or async iterable of chunks",
  );
}

/** A json signature's call over a streaming callback (the generated `NAMEStream` call it). */
export function streamJson<T>(
  spec: Spec,
  values: unknown,
  llm: StreamLlm,
  parse: (text: string, limits?: Partial<Limits>) => ParseResult<T>,
  output: Descriptor,
  types: Types,
  options: StreamOptions = {},
): Streaming<unknown, T> {
  let turn = 0;
  let outcome: { step: Step<T> } | { error: unknown } | null = null;
  const run = async function* (): AsyncGenerator<unknown> {
    const structured = options.structured ?? "prompt";
    const wrapper =
      structured === "tool" ? toolParameters(spec.schema())[1] : null;
    const view = partials(output, types, options, wrapper);
    const limit = limitsOf(options.limits).replyChars;
    const turns = jsonTurns(spec, values, parse, options);
    let next = turns.next();
    while (!next.done) {
      turn += 1;
      const reader = view ? new PartialReader(view[0]) : null;
      const joined = new Joined(limit);
      for await (const chunk of chunksOf(llm(next.value))) {
        const text = joined.add(chunk, structured);
        if (reader !== null && view !== null && text && reader.feed(text)) {
          const partial = view[1](reader);
          if (partial !== undefined) yield partial;
        }
        if (joined.over !== null) break; // the chunks' iterator is returned (closed)
      }
      next = turns.next(joined.reply(structured));
    }
    return next.value;
  };
  const steps = run();
  const pull = async (): Promise<IteratorResult<unknown>> => {
    if (outcome !== null) {
      if ("error" in outcome) throw outcome.error;
      return { done: true, value: undefined };
    }
    try {
      const next = await steps.next();
      if (next.done) outcome = { step: next.value as Step<T> };
      return next.done ? { done: true, value: undefined } : next;
    } catch (e) {
      outcome = { error: e };
      throw e;
    }
  };
  return {
    get turn() {
      return turn;
    },
    [Symbol.asyncIterator]: () => ({ next: pull }),
    async result() {
      while (!(await pull()).done);
      if (outcome !== null && "step" in outcome) return outcome.step;
      throw (outcome as { error: unknown }).error;
    },
  };
}
