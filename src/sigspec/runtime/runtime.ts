// sigspec's TypeScript runtime, copied into every generated TypeScript folder as `_runtime.ts`.
//
// It mirrors the Python runtime line for line, so that one table of cases holds for both:
// validation against type descriptors (runtime/validate.py) and the string formats
// (runtime/formats.py), the reply parser (runtime/reply.py), the Mustache renderer
// (mustache.py) and the call-validate-retry loop (runtime/client.py). No dependencies; nothing taken from a
// descriptor, a template or a reply is ever evaluated, and keys such as `__proto__` become
// plain own properties.
//
// Messages read the same in both runtimes, and each writes them with its own means (the
// notation is described in runtime/validate.py's header; see `shown` below): a value quoted in
// a message is in JSON notation, `JSON.stringify` for strings (non-ASCII kept), booleans and
// null; numbers as `String` writes them (`1`, `1e-7`, `1e+21`, `NaN`, `Infinity`), which the
// Python runtime reproduces; maps and lists by their kind. Python tells a float 1.0 from an
// int 1 and this runtime tells them apart too where validity depends on it (the `Float`
// wrapper below), but both write the number `1`.
//
// Known edges where JavaScript cannot follow Python exactly (no test case reaches them): objects
// list integer-like keys first (error order for such keys may differ); `str.casefold` is
// approximated by upper- then lower-casing; Python's Unicode `\w` and `\s` by Unicode classes;
// the parser's work budget counts UTF-16 units; integers beyond 2**53 lose precision (a
// compile warning says so for the ones a .sig file holds), so past 2**53 messages may show
// other digits than Python's and from 1e21 on an exponent where Python writes every digit; a
// number a prompt shows is written as JavaScript writes it (`0.00001` where Python's
// `json.dumps` writes `1e-05`). Like Python, a whole reply that is strict JSON reads 1e400 as
// infinity; every other path rejects it.

/* ---- values ------------------------------------------------------------------------------ */

/** A JSON number written with a fraction or an exponent whose value is whole (`1.0`). Python
 * reads it as a float, which matters to the int rules, so the reader keeps that fact; it never
 * leaves the runtime (results hold plain numbers). */
class Float {
  constructor(readonly value: number) {}
}

export type Issue = [string, string];
/** A type as the runtime reads it (generated code holds them as JSON text): a kind, then
 * what that kind needs (`["list", item]`, `["map", fields, open]`, ...). */
export type Descriptor = readonly unknown[];
/** A map's field: name, alias, type, required, has a default, the default, @fallback, its
 * constraints (`[keyword, bound]` pairs). */
type Field = readonly [
  string,
  string,
  Descriptor,
  boolean,
  boolean,
  unknown,
  boolean,
  Descriptor,
];
export type Types = { readonly [name: string]: Descriptor };

/** Whether `text` holds a control character (below U+0020), which strict JSON refuses. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++)
    if (text.charCodeAt(i) < 0x20) return true;
  return false;
}

const hasOwn = (o: object, key: string): boolean =>
  Object.prototype.hasOwnProperty.call(o, key);

/** Sets an own property, even `__proto__`, without touching any prototype: a key the object
 * inherits (`__proto__`'s setter above all) is defined, any other assigned (5x faster). */
function put(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key in o && !hasOwn(o, key)) {
    Object.defineProperty(o, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else o[key] = value;
}

function isMap(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

const isInt = (v: unknown): v is number =>
  typeof v === "number" && Number.isInteger(v);
const isFloat = (v: unknown): boolean =>
  v instanceof Float || (typeof v === "number" && !Number.isInteger(v));
const isNumber = (v: unknown): boolean =>
  typeof v === "number" || v instanceof Float;
const num = (v: unknown): number =>
  v instanceof Float ? v.value : (v as number);

/** A value as plain JSON data: floats unwrapped, containers copied. */
function plain(v: unknown): unknown {
  if (v instanceof Float) return v.value;
  if (Array.isArray(v)) return v.map(plain);
  if (isMap(v)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v)) put(out, key, plain(v[key]));
    return out;
  }
  return v;
}

/** Python's `==` on JSON data: numbers by value (`1 == 1.0 == True`), containers deeply. */
function pyEqual(a: unknown, b: unknown): boolean {
  const numeric = (x: unknown): boolean =>
    isNumber(x) || typeof x === "boolean";
  if (numeric(a) && numeric(b)) return Number(num(a)) === Number(num(b));
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => pyEqual(x, b[i]));
  }
  if (isMap(a) && isMap(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((k) => hasOwn(b, k) && pyEqual(a[k], b[k]))
    );
  }
  return a === b;
}

/** Two JSON values are the same: `pyEqual`, except that a boolean equals only a boolean (as
 * JSON, not Python, has it: `true` is no `1`; `1` and `1.0` are one number). */
function sameValue(a: unknown, b: unknown): boolean {
  if (!pyEqual(a, b)) return false;
  const pairs: [unknown, unknown][] = [[a, b]]; // equal, so of one shape: only booleans differ
  for (let pair = pairs.pop(); pair !== undefined; pair = pairs.pop()) {
    const [x, y] = pair;
    if ((typeof x === "boolean") !== (typeof y === "boolean")) return false;
    if (Array.isArray(x) && Array.isArray(y))
      x.forEach((item, i) => pairs.push([item, y[i]]));
    else if (isMap(x) && isMap(y))
      for (const key of Object.keys(x)) pairs.push([x[key], y[key]]);
  }
  return true;
}

/* ---- the message notation (runtime/common.py's `shown`) --------------------------------- */

/** A value as messages quote it: strings, booleans and null in JSON notation, numbers as
 * `String` writes them (`NaN` and `Infinity` too, which JSON cannot write), maps and lists by
 * their kind. */
function shown(v: unknown): string {
  if (isNumber(v)) return String(num(v));
  if (typeof v === "string" || typeof v === "boolean") return JSON.stringify(v);
  return v === null || v === undefined ? "null" : kindOf(v);
}

/** `1 character`, `2 characters`: a count as messages write it (bounds are numbers). */
function counted(count: unknown, thing: string): string {
  return `${shown(count)} ${thing}${num(count) === 1 ? "" : "s"}`;
}

/* ---- JSON text with Python's `json.dumps` spacing (prompts, tool arguments) -------------- */

const ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

function dumpString(s: string, ascii: boolean): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s.charAt(i);
    const code = s.charCodeAt(i);
    const escaped = hasOwn(ESCAPES, ch) ? ESCAPES[ch] : undefined;
    if (escaped !== undefined) out += escaped;
    else if (code < 0x20 || (ascii && code > 0x7e))
      out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return out + '"';
}

/** `json.dumps(value, ensure_ascii=ascii)`'s spacing (`, ` and `: `); numbers as JavaScript
 * writes them. */
function dumps(v: unknown, ascii = false): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "string") return dumpString(v, ascii);
  if (isNumber(v)) return String(num(v));
  if (Array.isArray(v)) return `[${v.map((x) => dumps(x, ascii)).join(", ")}]`;
  if (isMap(v)) {
    return `{${Object.keys(v)
      .map((k) => `${dumpString(k, ascii)}: ${dumps(v[k], ascii)}`)
      .join(", ")}}`;
  }
  return "null";
}

/** Equal for two answers exactly when Python's `json.dumps(answer, sort_keys=True)` texts
 * are: a whole float (`2.0`, and `-0.0`) is not the int 2 (or 0). */
function answerKey(v: unknown): string {
  if (v instanceof Float)
    return `${Object.is(v.value, -0) ? "-0" : String(v.value)}.0`;
  if (typeof v === "number") return String(v);
  if (Array.isArray(v)) return `[${v.map(answerKey).join(",")}]`;
  if (isMap(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${answerKey(v[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

/** Python's `str.strip()` whitespace (which, unlike `trim`, keeps U+FEFF). */
const PY_SPACE =
  "\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";

function lstrip(s: string, chars: string): string {
  let start = 0;
  while (start < s.length && chars.includes(s.charAt(start))) start++;
  return s.slice(start);
}

function strip(s: string, chars = PY_SPACE): string {
  let start = 0;
  let end = s.length;
  while (start < end && chars.includes(s.charAt(start))) start++;
  while (end > start && chars.includes(s.charAt(end - 1))) end--;
  return s.slice(start, end);
}

const codePoints = (s: string): number => {
  let n = 0;
  const points = s[Symbol.iterator]();
  while (!points.next().done) n++;
  return n;
};

/* ---- limits (runtime/common.py's `Limits`) ---------------------------------------------- */

/** What the reply parser and the validator accept at most; past a limit a reply is rejected
 * with a message naming it. `replyChars`: characters (code points) in a reply; `depth`: how
 * deep lists and maps nest in a value; `tags`: XML-like tags in a reply that must be searched.
 * The defaults and their reasons are runtime/common.py's. */
export interface Limits {
  readonly replyChars: number;
  readonly depth: number;
  readonly tags: number;
}

/** The deepest `depth` a limit may set: past it the Python validators run out of stack. */
export const MAX_DEPTH = 256;

export const LIMITS: Limits = Object.freeze({
  replyChars: 1024 * 1024,
  depth: 128,
  tags: 10_000,
});

/** The limits with `given` over the defaults; a limit that is no positive integer throws. */
export function limitsOf(given: Partial<Limits> | undefined): Limits {
  if (given === undefined || given === LIMITS) return LIMITS;
  const out = { ...LIMITS, ...given };
  const names: Record<keyof Limits, string> = {
    replyChars: "reply_chars",
    depth: "depth",
    tags: "tags",
  };
  for (const key of ["replyChars", "depth", "tags"] as const) {
    if (!Number.isInteger(out[key]) || out[key] < 1)
      throw new RangeError(
        `the limit ${names[key]} must be a positive integer`,
      );
  }
  // The same bound as the Python runtime's, so one configuration means the same in both.
  if (out.depth > MAX_DEPTH)
    throw new RangeError(
      `the limit depth can be at most ${MAX_DEPTH}, not ${out.depth}`,
    );
  return Object.freeze(out);
}

/** Do lists and maps nest in `value` more than `depth` levels (a scalar is level 0)? An
 * explicit stack, not recursion: the value may nest past the engine's own stack. */
export function tooDeep(value: unknown, depth: number): boolean {
  if (!Array.isArray(value) && !isMap(value)) return false;
  const stack: [unknown, number][] = [[value, 1]];
  for (;;) {
    const top = stack.pop();
    if (top === undefined) return false;
    const [container, level] = top;
    if (level > depth) return true;
    const items = Array.isArray(container)
      ? container
      : Object.values(container as Record<string, unknown>);
    for (const item of items)
      if (Array.isArray(item) || isMap(item)) stack.push([item, level + 1]);
  }
}

const depthMessage = (depth: number): string =>
  `nested more than ${depth} levels deep (the nesting-depth limit)`;

/* ---- formats (runtime/formats.py) -------------------------------------------------------- */

// The string formats of JSON Schema 2020-12, each checked as runtime/formats.py checks it:
// its patterns, its comparisons and its messages, so that a string has a format in both
// runtimes or in neither. The patterns are linear (no nested quantifiers that could match the
// same text two ways) and take no `u` flag: with it, `i` would let `ſ` stand for `s` and the
// Kelvin sign for `k`, where Python's ASCII flag folds ASCII letters only.

// Fields in range by the pattern alone; the day of the month (past 28) and the year 0000
// are then checked in code, only when they occur. No leap second and no year 0: Python's
// datetime, the generated models' type, holds neither.
const TIME =
  String.raw`(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?` +
  "(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])";
const DATE = "([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])";
const DUR_TIME =
  "T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)";
const DUR_DATE =
  "(?:[0-9]+D|[0-9]+M(?:[0-9]+D)?|[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?)";
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
// RFC 5321 Quoted-string: printable ASCII but `"` and `\`, which come as quoted pairs.
const QUOTED = String.raw`"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"`;
const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
const PCT = "%[0-9A-Fa-f]{2}";
// RFC 3986 unreserved and sub-delims, as the body of a character class
const SUB = String.raw`A-Za-z0-9\-._~!$&'()*+,;=`;
const POINTER = "(?:/(?:[^~/]|~[01])*)*";

/** A pattern the whole string must match (`fullmatch`); `.` matches any character, as with
 * Python's DOTALL; `i` folds ASCII letters only (no `u` flag). */
const whole = (source: string, flags = ""): RegExp =>
  new RegExp(`^(?:${source})$`, `s${flags}`);

const DATE_FORMAT = whole(DATE);
const TIME_FORMAT = whole(TIME);
const DATE_TIME_FORMAT = whole(`${DATE}[Tt]${TIME}`);
const DURATION_FORMAT = whole(
  `P(?:${DUR_DATE}(?:${DUR_TIME})?|${DUR_TIME}|[0-9]+W)`,
  "i",
);
const LOCAL_PART = whole(
  String.raw`(?:${ATEXT}+(?:\.${ATEXT}+)*|${QUOTED})@(.*)`,
);
const HOSTNAME_FORMAT = whole(String.raw`${LABEL}(?:\.${LABEL})*`);
const IPV4_FORMAT = whole(String.raw`${OCTET}(?:\.${OCTET}){3}`);
const UUID_FORMAT = whole(
  "[0-9A-Fa-f]{8}-(?:[0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12}",
);
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const URI_USERINFO = whole(`(?:[${SUB}:]|${PCT})*`);
const URI_REG_NAME = whole(`(?:[${SUB}]|${PCT})*`);
const URI_IPVFUTURE = whole(String.raw`v[0-9A-Fa-f]+\.[${SUB}:]+`, "i");
const URI_PORT = whole("[0-9]*");
const URI_PATH = whole(`(?:[${SUB}:@/]|${PCT})*`);
const URI_QUERY = whole(`(?:[${SUB}:@/?]|${PCT})*`);
const JSON_POINTER_FORMAT = whole(POINTER);
const RELATIVE_POINTER_FORMAT = whole(`(?:0|[1-9][0-9]*)(?:#|${POINTER})`);
const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;
const LONG_MONTHS = ["01", "03", "05", "07", "08", "10", "12"];

/** Python's `str.partition`: the text before the first `sep`, `sep` ("" when absent), the
 * rest. */
function partition(text: string, sep: string): [string, string, string] {
  const i = text.indexOf(sep);
  return i < 0
    ? [text, "", ""]
    : [text.slice(0, i), sep, text.slice(i + sep.length)];
}

/** Python's `str.rpartition`: as `partition`, at the last `sep` ("", "", text without). */
function rpartition(text: string, sep: string): [string, string, string] {
  const i = text.lastIndexOf(sep);
  return i < 0
    ? ["", "", text]
    : [text.slice(0, i), sep, text.slice(i + sep.length)];
}

/** A year from 0001 whose month has the day (past the 28th, which every month has). */
function dayOk(year: string, month: string, day: string): boolean {
  if (year === "0000") return false;
  if (day <= "28") return true;
  if (month === "02") {
    const y = Number(year);
    return day === "29" && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  }
  return day <= "30" || LONG_MONTHS.includes(month);
}

/** RFC 3339 full-date: YYYY-MM-DD, a day the month has. */
export function isDate(value: string): boolean {
  const found = DATE_FORMAT.exec(value);
  if (found === null) return false;
  const [, year = "", month = "", day = ""] = found;
  return dayOk(year, month, day);
}

/** RFC 3339 full-time: hh:mm:ss, an optional fraction and a required offset. */
export function isTime(value: string): boolean {
  return TIME_FORMAT.test(value);
}

/** RFC 3339 date-time: a full-date, `T` (or `t`), a full-time. */
export function isDatetime(value: string): boolean {
  const found = DATE_TIME_FORMAT.exec(value);
  if (found === null) return false;
  const [, year = "", month = "", day = ""] = found;
  return dayOk(year, month, day);
}

/** RFC 3339 appendix A duration: `P1Y2M3DT4H5M6S`, `PT36H`, `P2W`, ... */
export function isDuration(value: string): boolean {
  return DURATION_FORMAT.test(value);
}

/** RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens, each of
 * 1-63 characters, 253 characters in all. */
export function isHostname(value: string): boolean {
  return value.length <= 253 && HOSTNAME_FORMAT.test(value);
}

/** A dotted quad of decimal octets 0-255, without leading zeros. */
export function isIpv4(value: string): boolean {
  return IPV4_FORMAT.test(value);
}

/** RFC 4291 section 2.2: eight groups of 1-4 hex digits, one `::` for a run of zero groups,
 * the last two groups possibly written as an IPv4 address; no zone id. */
export function isIpv6(value: string): boolean {
  if (value.length > 45) return false; // ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255
  let text = value;
  let size = 8;
  if (value.includes(".")) {
    const [head, colon, tail] = rpartition(value, ":");
    if (!colon || !isIpv4(tail)) return false;
    text = head.endsWith(":") ? `${head}:` : head;
    size = 6;
  }
  const halves = text.split("::");
  if (halves.length > 2) return false;
  let groups: string[];
  if (halves.length === 2) {
    groups = halves.filter((half) => half).flatMap((half) => half.split(":"));
    if (groups.length >= size) return false;
  } else {
    groups = text.split(":");
    if (groups.length !== size) return false;
  }
  return groups.every((group) => HEX_GROUP.test(group));
}

/** RFC 5321 Mailbox: Local-part `@` (Domain / address-literal); a local part of at most 64
 * characters, a domain of at most 255. */
export function isEmail(value: string): boolean {
  const found = LOCAL_PART.exec(value);
  if (found === null) return false;
  const domain = found[1] ?? "";
  if (value.length - domain.length - 1 > 64 || domain.length > 255)
    return false;
  if (domain.startsWith("[") && domain.endsWith("]")) {
    const literal = domain.slice(1, -1);
    if (literal.slice(0, 5).toLowerCase() === "ipv6:")
      return isIpv6(literal.slice(5));
    return isIpv4(literal);
  }
  return isHostname(domain);
}

function isAuthority(text: string): boolean {
  const [userinfo, at, host] = rpartition(text, "@");
  if (at && !URI_USERINFO.test(userinfo)) return false;
  if (host.startsWith("[")) {
    const [literal, bracket, port] = partition(host.slice(1), "]");
    if (!bracket || !(isIpv6(literal) || URI_IPVFUTURE.test(literal)))
      return false;
    if (port) return port.startsWith(":") && URI_PORT.test(port.slice(1));
    return true;
  }
  const [name, , port] = partition(host, ":");
  return URI_REG_NAME.test(name) && URI_PORT.test(port);
}

function isUriOf(value: string, absolute: boolean): boolean {
  const [beforeHash, hash, fragment] = partition(value, "#");
  if (hash && !URI_QUERY.test(fragment)) return false;
  const [beforeQuery, mark, query] = partition(beforeHash, "?");
  if (mark && !URI_QUERY.test(query)) return false;
  let rest = beforeQuery;
  const scheme = URI_SCHEME.exec(rest);
  if (scheme !== null) rest = rest.slice(scheme[0].length);
  // Without a scheme, a relative path's first segment has no colon (path-noscheme).
  else if (absolute || partition(rest, "/")[0].includes(":")) return false;
  if (rest.startsWith("//")) {
    const [authority, slash, path] = partition(rest.slice(2), "/");
    if (!isAuthority(authority)) return false;
    rest = slash + path;
  }
  return URI_PATH.test(rest);
}

/** RFC 3986 URI: a scheme, then hier-part, query and fragment; ASCII only. */
export function isUri(value: string): boolean {
  return isUriOf(value, true);
}

/** RFC 3986 URI-reference: a URI or a relative one (`//h/p`, `/p`, `p`, `#f`). */
export function isUriReference(value: string): boolean {
  return isUriOf(value, false);
}

/** RFC 4122 text form: 8-4-4-4-12 hex digits, either case, any version. */
export function isUuid(value: string): boolean {
  return UUID_FORMAT.test(value);
}

/** RFC 6901: empty, or `/`-prefixed reference tokens, `~` only as `~0` or `~1`. */
export function isJsonPointer(value: string): boolean {
  return JSON_POINTER_FORMAT.test(value);
}

/** A non-negative integer without leading zeros, then `#` or a JSON pointer. */
export function isRelativeJsonPointer(value: string): boolean {
  return RELATIVE_POINTER_FORMAT.test(value);
}

/** Each format the runtime checks: its test, and what a message says was expected. */
const FORMATS = new Map<string, readonly [(value: string) => boolean, string]>([
  [
    "date-time",
    [
      isDatetime,
      "an RFC 3339 date-time with an offset (year 0001 or later, no leap second)",
    ],
  ],
  ["date", [isDate, "an RFC 3339 date (year 0001 or later)"]],
  ["time", [isTime, "an RFC 3339 time with an offset (no leap second)"]],
  ["duration", [isDuration, "an RFC 3339 duration"]],
  ["email", [isEmail, "an email address"]],
  ["hostname", [isHostname, "a host name"]],
  ["ipv4", [isIpv4, "an IPv4 address"]],
  ["ipv6", [isIpv6, "an IPv6 address"]],
  ["uri", [isUri, "an absolute URI"]],
  ["uri-reference", [isUriReference, "a URI reference"]],
  ["uuid", [isUuid, "a UUID"]],
  ["json-pointer", [isJsonPointer, "a JSON pointer"]],
  ["relative-json-pointer", [isRelativeJsonPointer, "a relative JSON pointer"]],
]);

/** The formats the runtime checks (runtime/formats.py's `CHECKS`); any other passes. */
export const CHECKED_FORMATS: readonly string[] = Object.freeze([
  ...FORMATS.keys(),
]);

/** The message for a string that does not have the format, null when it does (or the format
 * is not one the runtime checks). */
export function formatError(name: string, value: string): string | null {
  const entry = FORMATS.get(name);
  if (entry === undefined || entry[0](value)) return null;
  return `expected ${entry[1]}`;
}

/* ---- validation (runtime/validate.py) ---------------------------------------------------- */

/** What a check returns for a value that does not fit (never a value itself). */
export const INVALID: unique symbol = Symbol("invalid");

/** The value does not fit the type; `.errors` lists every problem as [path, message]. */
export class ValidationError extends Error {
  readonly errors: Issue[];
  constructor(errors: Issue[]) {
    const shown = errors
      .slice(0, 5)
      .map(([p, m]) => `${p}: ${m}`)
      .join("; ");
    const more = errors.length > 5 ? ` (and ${errors.length - 5} more)` : "";
    super(shown + more);
    this.name = "ValidationError";
    this.errors = errors;
  }
}

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** The word used in messages: `expected int, got string`. */
function kindOf(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "boolean") return "bool";
  if (isNumber(v)) return isFloat(v) ? "float" : "int";
  if (typeof v === "string") return "string";
  if (Array.isArray(v)) return "list";
  if (isMap(v)) return "map";
  return typeof v;
}

function copy(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(copy);
  if (isMap(v)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v)) put(out, key, copy(v[key]));
    return out;
  }
  return v;
}

const at = (path: string, key: string | number): string =>
  path ? `${path}.${key}` : String(key);
const where = (path: string): string => path || "root";

/** A value the reply gave, as messages show it (`shown`), cut at 40 characters. */
function short(v: unknown): string {
  const text = shown(v);
  const chars = Array.from(text);
  return chars.length <= 40 ? text : `${chars.slice(0, 37).join("")}...`;
}

function casefold(s: string): string {
  return s.toUpperCase().toLowerCase();
}

class Checker {
  readonly errors: Issue[] = [];
  readonly repairs: Issue[] = [];

  constructor(
    readonly types: Types,
    readonly lenient: boolean,
    readonly depth: number = LIMITS.depth, // how deep a JSON document held in a string may nest
  ) {}

  fail(path: string, message: string): typeof INVALID {
    this.errors.push([where(path), message]);
    return INVALID;
  }

  repair(path: string, message: string): void {
    this.repairs.push([where(path), message]);
  }

  check(d: Descriptor, v: unknown, path: string): unknown {
    switch (d[0]) {
      case "opt":
        return v === null ? null : this.check(d[1] as Descriptor, v, path);
      case "ref":
        return this.check(this.types[d[1] as string] as Descriptor, v, path);
      case "str":
      case "keyword":
        return typeof v === "string"
          ? v
          : this.fail(path, `expected string, got ${kindOf(v)}`);
      case "datetime":
        if (typeof v !== "string")
          return this.fail(path, `expected date-time string, got ${kindOf(v)}`);
        return isDatetime(v)
          ? v
          : this.fail(
              path,
              "expected an RFC 3339 date-time with an offset (year 0001 or later, no leap second)",
            );
      case "int":
        return this.int(v, path);
      case "float":
        return this.float(v, path);
      case "bool":
        return this.bool(v, path);
      case "any":
        return this.free(v, path);
      case "object":
        return this.object(v, path);
      case "lit":
        if (kindOf(v) === kindOf(d[1]) && pyEqual(v, d[1])) return v; // Python: same type, equal
        return this.literal(d[1], v, path);
      case "enum":
        return this.enum(d, v, path);
      case "union":
        return this.union(d, v, path);
      case "list":
        return this.list(d, v, path);
      case "map":
        return this.map(d, v, path);
    }
    return this.fail(path, "invalid value");
  }

  private literal(want: unknown, v: unknown, path: string): typeof INVALID {
    let expected = shown(want);
    let got = short(v);
    if (expected === got) {
      // The float 2.0 and the int 2 are both written 2: the kinds tell them apart.
      expected = `${kindOf(want)} ${expected}`;
      got = `${kindOf(v)} ${got}`;
    }
    return this.fail(path, `expected ${expected}, got ${got}`);
  }

  private int(v: unknown, path: string): unknown {
    if (isNumber(v) && !isFloat(v)) return v;
    if (this.lenient) {
      const coerced = this.numberText(v, path, true);
      if (coerced !== INVALID) return coerced;
      if (isFloat(v) && Number.isInteger(num(v))) {
        this.repair(path, `coerced ${shown(v)} to an integer`);
        return num(v);
      }
    }
    return this.fail(path, `expected int, got ${kindOf(v)}`);
  }

  private float(v: unknown, path: string): unknown {
    if (isNumber(v)) {
      if (Number.isFinite(num(v))) return v;
      // No JSON number, and NaN would pass every @min and @max.
      return this.fail(path, `expected a finite number, got ${shown(v)}`);
    }
    if (this.lenient) {
      const coerced = this.numberText(v, path, false);
      if (coerced !== INVALID) return coerced;
    }
    return this.fail(path, `expected float, got ${kindOf(v)}`);
  }

  /** Reply policy: a string that is exactly a JSON number literal. */
  private numberText(v: unknown, path: string, wantInt: boolean): unknown {
    if (typeof v !== "string" || !JSON_NUMBER.test(v)) return INVALID;
    let number = numberValue(v);
    if (!Number.isFinite(num(number))) return INVALID; // 1e400 is no JSON value
    if (wantInt && isFloat(number)) {
      if (!Number.isInteger(num(number))) return INVALID;
      number = num(number);
    }
    this.repair(path, `coerced string ${shown(v)} to a number`);
    return number;
  }

  private bool(v: unknown, path: string): unknown {
    if (typeof v === "boolean") return v;
    if (this.lenient && (v === "true" || v === "false")) {
      this.repair(path, `coerced string ${shown(v)} to a boolean`);
      return v === "true";
    }
    return this.fail(path, `expected bool, got ${kindOf(v)}`);
  }

  private object(v: unknown, path: string): unknown {
    if (isMap(v)) return this.free(v, path);
    const decoded = this.decoded(v, "map", path);
    return decoded !== INVALID
      ? this.free(decoded, path)
      : this.fail(path, `expected map, got ${kindOf(v)}`);
  }

  /** A value no type describes (`:any`, `:map`, an open map's extra field): any JSON value,
   * and NaN and the infinities are none (a reply's 1e999 parses to Infinity). */
  private free(v: unknown, path: string): unknown {
    let ok = true;
    const visit = (x: unknown, where: string): void => {
      if (isNumber(x)) {
        if (!Number.isFinite(num(x))) {
          this.fail(where, `expected a finite number, got ${shown(x)}`);
          ok = false;
        }
      } else if (Array.isArray(x)) {
        x.forEach((item, index) => visit(item, at(where, index)));
      } else if (isMap(x)) {
        for (const [key, item] of Object.entries(x))
          visit(item, at(where, key));
      }
    };
    visit(v, path);
    return ok ? v : INVALID;
  }

  private enum(d: Descriptor, v: unknown, path: string): unknown {
    const values = d[1] as string[];
    if (typeof v === "string" && values.includes(v)) return v;
    if (this.lenient && typeof v === "string") {
      const matches = values.filter((m) => casefold(m) === casefold(v));
      if (matches.length === 1) {
        this.repair(
          path,
          `matched ${shown(v)} to enum value ${shown(matches[0])}`,
        );
        return matches[0];
      }
    }
    return this.fail(
      path,
      `expected one of ${values.map(shown).join(", ")}, got ${short(v)}`,
    );
  }

  private union(d: Descriptor, v: unknown, path: string): unknown {
    const modes = this.lenient ? [false, true] : [false];
    for (const lenient of modes) {
      // A member that fits exactly beats one that needs coercion.
      for (const member of d[1] as Descriptor[]) {
        const trial = new Checker(this.types, lenient, this.depth);
        const result = trial.check(member, v, path);
        if (result !== INVALID && trial.errors.length === 0) {
          for (const repair of trial.repairs) this.repairs.push(repair);
          return result;
        }
      }
    }
    let got = short(v);
    // Written as a member is (the float 2.0 and the int 2 are both written 2): the kind tells.
    if (this.literals(d[1] as Descriptor[]).some((x) => shown(x) === got))
      got = `${kindOf(v)} ${got}`;
    return this.fail(path, `${got} matches none of the union's members`);
  }

  /** The values of the union's literal members, named or not. */
  private literals(members: Descriptor[]): unknown[] {
    const out: unknown[] = [];
    for (const member of members) {
      let resolved = member;
      while (resolved[0] === "ref")
        resolved = this.types[resolved[1] as string] as Descriptor;
      if (resolved[0] === "lit") out.push(resolved[1]);
    }
    return out;
  }

  /** Reply policy: a JSON string whose content is JSON of the wanted type. */
  private decoded(v: unknown, want: string, path: string): unknown {
    if (!this.lenient || typeof v !== "string") return INVALID;
    let decoded: unknown;
    try {
      decoded = finiteJson(v, this.depth); // the document nests on its own: within the limit
    } catch {
      return INVALID;
    }
    if (kindOf(decoded) !== want) return INVALID;
    this.repair(path, "decoded a JSON document held in a string");
    return decoded;
  }

  private list(d: Descriptor, v: unknown, path: string): unknown {
    let items = v;
    if (!Array.isArray(items)) {
      const decoded = this.decoded(v, "list", path);
      if (decoded === INVALID)
        return this.fail(path, `expected list, got ${kindOf(v)}`);
      items = decoded;
    }
    const out: unknown[] = [];
    let ok = true;
    (items as unknown[]).forEach((element, index) => {
      const result = this.check(d[1] as Descriptor, element, at(path, index));
      ok = ok && result !== INVALID;
      out.push(result);
    });
    return ok ? out : INVALID;
  }

  private map(d: Descriptor, v: unknown, path: string): unknown {
    let value = v;
    if (!isMap(value)) {
      const decoded = this.decoded(v, "map", path);
      if (decoded === INVALID)
        return this.fail(path, `expected map, got ${kindOf(v)}`);
      value = decoded;
    }
    const given = value as Record<string, unknown>;
    const groups = new Map<string, string[]>();
    for (const key of Object.keys(given)) {
      const folded = key.replaceAll("-", "_");
      const group = groups.get(folded);
      if (group) group.push(key);
      else groups.set(folded, [key]);
    }
    const out: Record<string, unknown> = {};
    let ok = true;
    for (const field of d[1] as Descriptor[]) {
      const keys = groups.get(field[1] as string);
      groups.delete(field[1] as string);
      ok = this.field(field, given, keys, out, path) && ok;
    }
    const extras = [...groups.values()].flat();
    if (extras.length > 0 && !d[2]) {
      for (const key of extras)
        this.fail(at(path, key), "unexpected field (the map is closed)");
      return INVALID;
    }
    for (const key of extras) {
      const kept = this.free(given[key], at(path, key));
      put(out, key, kept);
      ok = kept !== INVALID && ok;
    }
    return ok ? out : INVALID;
  }

  private field(
    field: Descriptor,
    v: Record<string, unknown>,
    keys: string[] | undefined,
    out: Record<string, unknown>,
    path: string,
  ): boolean {
    const [
      name,
      ,
      type,
      required,
      hasDefault,
      fallbackValue,
      fallback,
      constraints,
    ] = field as Field;
    const here = at(path, name);
    if (keys === undefined) {
      if (hasDefault) put(out, name, copy(fallbackValue));
      else if (required) {
        this.fail(here, "missing required field");
        return false;
      }
      return true;
    }
    if (keys.length > 1) {
      this.fail(
        here,
        `ambiguous field aliases: ${[...keys].sort().join(", ")}`,
      );
      return false;
    }
    const before = this.errors.length;
    const given = v[keys[0] as string];
    let result = this.check(type, given, here);
    if (result !== INVALID && given !== null)
      result = this.constrain(result, constraints, here);
    if (result === INVALID) {
      if (fallback && hasDefault) {
        this.errors.splice(before);
        this.repair(here, "invalid value replaced by the default (@fallback)");
        put(out, name, copy(fallbackValue));
        return true;
      }
      return false;
    }
    put(out, name, result);
    return true;
  }

  private constrain(
    value: unknown,
    constraints: Descriptor,
    path: string,
  ): unknown {
    let ok = true;
    let current = value;
    for (const [keyword, bound] of constraints as [string, unknown][]) {
      if (keyword === "clamp" && isNumber(current)) {
        const [low, high] = bound as [unknown, unknown];
        if (num(current) < num(low) || num(current) > num(high)) {
          const raised = num(low) > num(current) ? low : current;
          const clamped = num(high) < num(raised) ? high : raised;
          this.repair(
            path,
            `clamped ${shown(current)} to ${shown(clamped)} (@clamp)`,
          );
          current = clamped;
        }
        continue;
      }
      const message = scalarConstraint(keyword, bound, current);
      if (message !== null) {
        ok = false;
        this.fail(path, message);
      }
    }
    return ok ? current : INVALID;
  }
}

function pattern(source: string): RegExp | null {
  try {
    return new RegExp(source, "u");
  } catch {
    return null;
  }
}

function scalarConstraint(
  keyword: string,
  bound: unknown,
  value: unknown,
): string | null {
  if (isNumber(value)) {
    if (keyword === "minimum" && num(value) < num(bound)) {
      return `${shown(value)} is less than the minimum ${shown(bound)}`;
    }
    if (keyword === "maximum" && num(value) > num(bound)) {
      return `${shown(value)} is greater than the maximum ${shown(bound)}`;
    }
  }
  if (typeof value === "string") {
    const length = codePoints(value);
    if (keyword === "minLength" && length < num(bound))
      return `shorter than ${counted(bound, "character")}`;
    if (keyword === "maxLength" && length > num(bound))
      return `longer than ${counted(bound, "character")}`;
    if (keyword === "pattern") {
      const regex = pattern(String(bound));
      if (regex === null)
        return `the pattern ${shown(bound)} is not a JavaScript regular expression`;
      if (!regex.test(value))
        return `does not match the pattern ${shown(bound)}`;
    }
    if (keyword === "format" && typeof bound === "string") {
      const problem = formatError(bound, value);
      if (problem !== null) return problem;
    }
  }
  if (Array.isArray(value)) {
    if (keyword === "minItems" && value.length < num(bound))
      return `fewer than ${counted(bound, "item")}`;
    if (keyword === "maxItems" && value.length > num(bound))
      return `more than ${counted(bound, "item")}`;
  }
  return null;
}

type Outcome = [unknown, Issue[], Issue[]];

/** [normalised value (runtime form), errors, repairs]; the value means nothing with errors. A
 * value nested deeper than the depth limit is one error, found before any check recurses. */
function check(
  descriptor: Descriptor,
  value: unknown,
  types: Types,
  lenient: boolean,
  limits: Limits = LIMITS,
): Outcome {
  if (tooDeep(value, limits.depth))
    return [INVALID, [["root", depthMessage(limits.depth)]], []];
  const checker = new Checker(types, lenient, limits.depth);
  const result = checker.check(descriptor, value, "");
  if (result === INVALID && checker.errors.length === 0)
    checker.fail("", "invalid value");
  return [result, checker.errors, checker.repairs];
}

/** Lenient validation, as a reply's answer is checked: the normalised value, or `invalid`
 * (a symbol) when it has errors. */
export function checkReplyValue(
  descriptor: Descriptor,
  value: unknown,
  types: Types,
  limits?: Partial<Limits>,
): unknown {
  const [result, errors] = check(
    descriptor,
    value,
    types,
    true,
    limitsOf(limits),
  );
  return errors.length > 0 ? INVALID : plain(result);
}

/** Strict validation: the normalised value, or ValidationError listing every error. */
export function validate(
  descriptor: Descriptor,
  value: unknown,
  types: Types,
  limits?: Partial<Limits>,
): unknown {
  const [result, errors] = check(
    descriptor,
    value,
    types,
    false,
    limitsOf(limits),
  );
  if (errors.length > 0) throw new ValidationError(errors);
  return plain(result);
}

/* ---- the lenient reader (runtime/reply.py) ------------------------------------------------ */

// Descriptors are generated code, not replies: `load` reads them to any depth a type nests.
const DESCRIPTOR_DEPTH = 900;
const MAX_CANDIDATES = 64;

/** No acceptable answer in the reply: `.reason`, and `.errors` of the best candidate. */
export class ReplyError extends Error {
  readonly reason: string;
  readonly errors: Issue[];
  constructor(reason: string, errors: Issue[] | null = null) {
    const list = errors ?? [];
    const detail = list
      .slice(0, 5)
      .map(([p, m]) => `${p}: ${m}`)
      .join("; ");
    super(detail ? `${reason}: ${detail}` : reason);
    this.name = "ReplyError";
    this.reason = reason;
    this.errors = list;
  }
}

/** The answer: `.value`, plain JSON data, and `.repairs`, every change as [path, note]. */
export interface ParseResult<T = unknown> {
  readonly value: T;
  readonly repairs: Issue[];
}

/** No JSON: `what` is wrong (the message), with a hint how to write it, at `at` (an offset in
 * the text read). */
class Broken extends Error {
  openString = false; // a string never closed: cut off, if the reply ends there
  cut = -1; // the text's end, when a number is cut short there
  constructor(
    readonly what: string,
    readonly hint = "",
    public at = -1,
  ) {
    super(what);
  }
}
/** The text nests deeper than the depth limit: the reply's error names the limit. */
class TooDeep extends Broken {}

type Token = [kind: string, text: string, newline: boolean, at: number];
type Path = (string | number)[];

interface Read {
  value: unknown;
  repairs: string[];
  truncated: Path[]; // paths of objects the text ended inside
}

// Reasoning tags: an opener (group 1, no space allowed) or a closer (group 2).
const REASONING_TAG =
  /<(?:(think|thinking|reasoning)|\/(think|thinking|reasoning)\s*)>/gi;
const LONE_THINK = /<\/(?:think|thinking|reasoning)\s*>/gi;
const REASONING_OPENER = /<(?:think|thinking|reasoning)>/i;
// Python's `^`/`$` under re.M know only "\n" as a line end, so the lines are spelled out.
// The marker is taken whole (`(?=(...))\1`: a lookahead is atomic), or a line of backticks
// and no newline would be retried at every shorter marker, quadratic.
const FENCE =
  /(?:^|(?<=\n))[ \t]*(?=(`{3,}|~{3,}))\1[^\n]*\n([\s\S]*?)(?:(?<=\n)[ \t]*\1[ \t]*(?=\n|$)|$)/g;
const TAG = /<(\/?)([A-Za-z][\p{L}\p{N}_.-]*)(?:\s[^<>]*)?>/gu;
const CODE = /(?<!`)`([^`\n]+)`(?!`)/g;
const STRING_AT: Record<string, RegExp> = {
  '"': /"[^"\\]*(?:\\[\s\S][^"\\]*)*"/y,
  "'": /'[^'\\\n]*(?:\\[^\n][^'\\\n]*)*'/y,
};
const BRACKETS = /[{}[\]"']/g;

/** The reply without its reasoning: closed blocks, all before a lone closer, and all from an
 * opener never closed (a reply cut off while reasoning: a draft there is no answer). */
function stripReasoning(text: string): string {
  let body = text;
  if (body.includes("</")) {
    body = withoutReasoningBlocks(body);
    let end = -1;
    for (const m of body.matchAll(LONE_THINK)) end = m.index + m[0].length;
    if (end >= 0) body = body.slice(end);
  }
  const opener = body.search(REASONING_OPENER);
  return opener >= 0 ? body.slice(0, opener) : body;
}

/** The text without its `<think>...</think>` blocks (any of the three names, either case; each
 * closed by the next closer of its name), leftmost first: what replacing the lazy
 * `<(name)>[\s\S]*?</name>` would give, but linear: that pattern scanned to the end of the
 * text for every opener no closer follows. */
function withoutReasoningBlocks(text: string): string {
  const openers: [number, number, string][] = [];
  const closers = new Map<string, [number, number][]>();
  for (const m of text.matchAll(REASONING_TAG)) {
    const end = m.index + m[0].length;
    if (m[1] !== undefined) openers.push([m.index, end, m[1].toLowerCase()]);
    else {
      const name = (m[2] ?? "").toLowerCase();
      const list = closers.get(name);
      if (list) list.push([m.index, end]);
      else closers.set(name, [[m.index, end]]);
    }
  }
  const kept: string[] = [];
  const first = new Map<string, number>(); // each name's first closer not yet passed
  let pos = 0;
  for (const [start, end, name] of openers) {
    const found = closers.get(name);
    if (start < pos || found === undefined) continue; // inside a removed block, or never closed
    let index = first.get(name) ?? 0;
    while (index < found.length && (found[index] as [number, number])[0] < end)
      index++;
    first.set(name, index);
    const closer = found[index];
    if (closer !== undefined) {
      kept.push(text.slice(pos, start));
      pos = closer[1];
    }
  }
  kept.push(text.slice(pos));
  return kept.join("");
}

/** Every balanced `{...}`/`[...]` span (strings inside brackets skipped), and an unclosed
 * outermost one to the end of the text. One pass. A quote that opens no string means no later
 * quote of its kind can (up to the line's end for single quotes), so those are skipped
 * without a scan: retrying each was quadratic. */
function rawSpans(text: string): [number, number, number, boolean][] {
  // [where it opens, the bracket, the deepest nesting found inside so far]; each span comes
  // with how deep brackets nest in it, so that one past the depth limit is never read, and
  // whether a closer ended it (not the outermost bracket never closed, run to the end).
  const stack: [number, string, number][] = [];
  const spans: [number, number, number, boolean][] = [];
  let dq = true; // may a double quote still open a string
  let sqDeadTo = -1; // single quotes open no string before this position (a line's end)
  let broken = 0; // the longest span a wrong closer ended so far
  BRACKETS.lastIndex = 0;
  for (;;) {
    const match = BRACKETS.exec(text);
    if (match === null) break;
    const char = match[0];
    const start = match.index;
    if (char === '"' || char === "'") {
      const dead = char === '"' ? !dq : start < sqDeadTo;
      if (stack.length > 0 && !dead) {
        const string = STRING_AT[char] as RegExp;
        string.lastIndex = start;
        if (string.exec(text) !== null) BRACKETS.lastIndex = string.lastIndex;
        else if (char === '"') dq = false;
        else {
          const lineEnd = text.indexOf("\n", start);
          sqDeadTo = lineEnd < 0 ? text.length : lineEnd;
        }
      }
      continue;
    }
    if (char === "{" || char === "[") stack.push([start, char, 1]);
    else if (
      stack.length > 0 &&
      stack[stack.length - 1]?.[1] === (char === "}" ? "{" : "[")
    ) {
      const [open, , height] = stack.pop() as [number, string, number];
      spans.push([open, BRACKETS.lastIndex, height, true]);
      const parent = stack[stack.length - 1];
      if (parent !== undefined && parent[2] <= height) parent[2] = height + 1;
    } else {
      // A closer of the wrong kind: what came before is not JSON (a span with its depth
      // negated, read only to name its fault, if longer than any such span before: the one
      // whose fault would be named).
      const outer = stack[0];
      if (outer !== undefined && BRACKETS.lastIndex - outer[0] > broken) {
        broken = BRACKETS.lastIndex - outer[0];
        spans.push([outer[0], BRACKETS.lastIndex, -openHeight(stack), true]);
      }
      stack.length = 0;
    }
  }
  const outer = stack[0];
  if (outer !== undefined)
    spans.push([outer[0], text.length, openHeight(stack), false]);
  spans.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return spans;
}

/** How deep brackets nest in the outermost bracket never closed. */
function openHeight(stack: [number, string, number][]): number {
  let height = 0;
  for (let i = stack.length - 1; i >= 0; i--)
    height = Math.max(height + 1, (stack[i] as [number, string, number])[2]);
  return height;
}

/** How many tags the text holds, counted up to `most + 1`. */
function countTags(text: string, most: number): number {
  let found = 0;
  for (
    let at = text.indexOf("<");
    at >= 0 && found <= most;
    at = text.indexOf("<", at + 1)
  )
    found++;
  if (found <= most) return found; // fewer `<` than the limit: fewer tags too
  found = 0;
  const tags = text.matchAll(TAG);
  while (found <= most && !tags.next().done) found++;
  return found;
}

/** Where each tag's body lies, by where it starts: spans, not strings, since the bodies of
 * nested tags overlap (each one's text was quadratic in time to compare and hash). */
function tagSpans(text: string): [number, number][] {
  if (!text.includes("</")) return []; // a body needs a closing tag
  const openAt = new Map<string, number[]>();
  const spans: [number, number][] = [];
  for (const m of text.matchAll(TAG)) {
    const name = (m[2] ?? "").toLowerCase();
    const end = m.index + m[0].length;
    if (!m[1]) {
      const list = openAt.get(name);
      if (list) list.push(end);
      else openAt.set(name, [end]);
    } else {
      const list = openAt.get(name);
      if (list && list.length > 0) spans.push([list.pop() as number, m.index]);
    }
  }
  spans.sort((a, b) => a[0] - b[0]);
  return spans;
}

/** A whole reply that is a JSON number, boolean or null (no bare words): the natural answer
 * when the output is a scalar; `null` is an answer only where the output admits null. */
const SCALAR =
  /^(?:-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null)$/;

/** Every explicit candidate in order, as its span of the text. */
function* allCandidates(text: string): Generator<[number, number]> {
  for (const m of text.matchAll(FENCE)) {
    // Fences never overlap. The body starts after the opening marker's line.
    const start = m.index + m[0].indexOf("\n") + 1;
    yield [start, start + (m[2] ?? "").length];
  }
  yield* tagSpans(text);
  for (const m of text.matchAll(CODE))
    yield [m.index + 1, m.index + m[0].length - 1];
  const stripped = strip(text);
  if (stripped.startsWith('"') || SCALAR.test(stripped)) {
    const start = text.length - lstrip(text, PY_SPACE).length;
    yield [start, start + stripped.length];
  }
}

/** Fenced blocks, tag contents, inline code spans, a whole reply that is a JSON string, number
 * or boolean: most explicit first, duplicates removed, at most MAX_CANDIDATES and no more
 * characters in all than `budget` (the bodies of nested tags overlap: all of them are
 * quadratic in the reply's length). Raw JSON anywhere comes after, in `parseReply`. */
function explicitCandidates(text: string, budget: number): [string, number][] {
  const seen = new Set<string>();
  const unique: [string, number][] = [];
  let left = budget;
  for (const [start, end] of allCandidates(text)) {
    left -= end - start;
    if (left < 0) break;
    const candidate = text.slice(start, end);
    const key = strip(candidate);
    if (key && !seen.has(key)) {
      seen.add(key);
      const lead = candidate.length - lstrip(candidate, PY_SPACE).length;
      unique.push([key, start + lead]);
      if (unique.length === MAX_CANDIDATES) break;
    }
  }
  return unique;
}

// One alternative per kind of token, without groups: `test` at `lastIndex` (sticky) builds no
// match array, and the kind follows from the token's first character (they never overlap),
// as in the Python reader. A 10 MB reply of 6 million tokens was mostly garbage collection of
// those arrays.
const TOKEN = new RegExp(
  [
    "[ \\t\\r\\n\\ufeff]+",
    "\\/\\/[^\\n]*|\\/\\*[\\s\\S]*?\\*\\/|#[^\\n]*",
    '"[^"\\\\]*(?:\\\\[\\s\\S][^"\\\\]*)*"',
    "'[^'\\\\]*(?:\\\\[\\s\\S][^'\\\\]*)*'",
    "\\u201c[^\\u201d]*\\u201d|\\u2018[^\\u2019]*\\u2019",
    "-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?(?![\\p{L}\\p{N}_.])",
    "[A-Za-z_$][\\p{L}\\p{N}_$]*",
    "[{}\\[\\]:,]",
  ].join("|"),
  "uy",
);
const KIND_OF: Record<string, string> = {
  " ": "ws",
  "\t": "ws",
  "\r": "ws",
  "\n": "ws",
  "\ufeff": "ws",
  "/": "comment",
  "#": "comment",
  '"': "dq",
  "'": "sq",
  "\u201c": "cq",
  "\u2018": "cq",
  "-": "num",
};
for (const ch of "0123456789") KIND_OF[ch] = "num";
for (const ch of "{}[]:,") KIND_OF[ch] = "punct";
const WORDS: Record<string, unknown> = { true: true, false: false, null: null };
// What the text may have been cut short inside of: a proper start of true, false or null.
const WORD_STARTS = new Set(
  Object.keys(WORDS).flatMap((w) =>
    Array.from({ length: w.length - 1 }, (_, n) => w.slice(0, n + 1)),
  ),
);
const PYTHON: Record<string, unknown> = {
  True: true,
  False: false,
  None: null,
};

/** Where `char` next occurs in `text` from `pos`; Infinity when nowhere. */
function nextIndex(text: string, char: string, pos: number): number {
  const found = text.indexOf(char, pos);
  return found < 0 ? Infinity : found;
}

const TRAILING = "text after the JSON value";
const NOT_NUMBERS = new Set(["NaN", "Infinity", "nan", "inf", "infinity"]);
// What a message shows of text that is no token: a word, number or elision.
const JUNK = /[A-Za-z0-9_.+\-\u2026]+/y;
const NUMBER_PREFIX =
  /^(?:-|-?(?:0|[1-9][0-9]*)(?:\.[0-9]*)?(?:[eE][+-]?[0-9]*)?)$/;
const QUOTE_HINT = 'write \\" for a quote inside a string';
const ESCAPE_HINT = 'a string allows \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX';
const NUMBER_HINT = "JSON has no NaN or Infinity";

/** A token as a message shows it: its first 40 characters. */
function snippet(token: string): string {
  if (token.length <= 40) return token;
  const points = Array.from(token);
  return points.length <= 40 ? token : `${points.slice(0, 40).join("")}\u2026`;
}

/** What is wrong with the text at `at`, where no token starts. */
function junk(text: string, at: number): Broken {
  const char = text[at] as string;
  if (char === '"' || char === "'" || char === "\u201c" || char === "\u2018") {
    const fault = new Broken("string never closed", "", at);
    fault.openString = true;
    return fault;
  }
  if (text.startsWith("/*", at))
    return new Broken("comment never closed", "", at);
  JUNK.lastIndex = at;
  const word =
    JUNK.exec(text)?.[0] ?? String.fromCodePoint(text.codePointAt(at) ?? 0);
  const elided = [word.indexOf("..."), word.indexOf("\u2026")].filter(
    (i) => i >= 0,
  );
  if (elided.length > 0) {
    const first = Math.min(...elided);
    const mark = word.startsWith("...", first) ? "..." : "\u2026";
    return new Broken(
      `elided content ${mark}`,
      "write out the whole value",
      at + first,
    );
  }
  if (NOT_NUMBERS.has(word.replace(/^[+-]+/, "")))
    return new Broken(`${snippet(word)} is not a JSON number`, NUMBER_HINT, at);
  if ("+-.0123456789".includes(word[0] as string)) {
    const fault = new Broken(`invalid number ${snippet(word)}`, "", at);
    if (at + word.length === text.length && NUMBER_PREFIX.test(word))
      fault.cut = text.length;
    return fault;
  }
  const shownChar = String.fromCodePoint(text.codePointAt(at) ?? 0);
  return new Broken(`unexpected character ${shown(shownChar)}`, "", at);
}

/** The meaningful tokens of a text, one at a time as the reader asks for them: a reply that
 * is strict JSON up to some junk fails at the junk, not after tokenizing all of it. */
class Lexer {
  private pos = 0;
  private newline = false;
  comments = false; // the text held comments (known once the lexer has reached its end)
  // The next line break and byte order mark at or after `pos`, found once and reused: a
  // search per whitespace run would rescan the rest of a text that has none (quadratic).
  private lineBreak = -1;
  private bom = -1;

  constructor(
    private readonly text: string,
    private readonly strict: boolean,
  ) {}

  /** [kind, text, newline before, offset] of the next token, null at the end; Broken for
   * anything that is no token (and, when strict, for comments and byte order marks). */
  next(): Token | null {
    const text = this.text;
    while (this.pos < text.length) {
      const pos = this.pos;
      TOKEN.lastIndex = pos;
      if (!TOKEN.test(text)) break;
      const end = TOKEN.lastIndex;
      this.pos = end;
      const kind = KIND_OF[text[pos] as string] ?? "word"; // a word starts with a letter, `_`, `$`
      if (kind !== "ws" && kind !== "comment") {
        const token: Token = [kind, text.slice(pos, end), this.newline, pos];
        this.newline = false;
        return token;
      }
      if (this.strict) {
        if (kind === "comment") throw new Broken("a comment");
        if (this.bom < pos) this.bom = nextIndex(text, "\ufeff", pos);
        if (this.bom < end) throw new Broken("a byte order mark");
      }
      if (this.lineBreak < pos) this.lineBreak = nextIndex(text, "\n", pos);
      this.newline = this.newline || this.lineBreak < end;
      this.comments = this.comments || kind === "comment";
    }
    if (this.pos !== text.length) throw junk(text, this.pos);
    return null;
  }
}

const STRING_ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

/** A quoted JSON string's value; raw control characters are kept, and with `apostrophe` so
 * is a raw `"` and `\\'` is an apostrophe (the lenient reader's repairs, read in place so
 * that offsets stay those of the string as written). A Broken naming its first invalid
 * escape, `at` that escape in the token. */
function decodeString(token: string, apostrophe = false): string {
  const body = token.slice(1, -1);
  if (!body.includes("\\")) return body;
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch !== "\\") {
      out += ch;
      continue;
    }
    const next = body[i + 1];
    const hex = body.slice(i + 2, i + 6);
    if (next === "u" && /^[0-9a-fA-F]{4}$/.test(hex)) {
      out += String.fromCharCode(parseInt(hex, 16));
      i += 5;
    } else if (
      next !== undefined &&
      next !== "u" &&
      hasOwn(STRING_ESCAPES, next)
    ) {
      out += STRING_ESCAPES[next];
      i++;
    } else if (apostrophe && next === "'") {
      out += "'";
      i++;
    } else {
      const escape =
        next === undefined
          ? ""
          : String.fromCodePoint(body.codePointAt(i + 1) ?? 0);
      throw new Broken(
        `invalid escape \\${escape} in a string`,
        ESCAPE_HINT,
        i + 1,
      );
    }
  }
  return out;
}

/** A JSON number token as Python reads it: an int, or a float (whole floats tagged). */
function numberValue(text: string): unknown {
  const n = Number(text);
  if (/[.eE]/.test(text)) return Number.isInteger(n) ? new Float(n) : n;
  return n === 0 ? 0 : n;
}

const isString = (kind: string): boolean =>
  kind === "dq" || kind === "sq" || kind === "cq";

class Reader {
  readonly tokens: Token[] = []; // lexed so far
  pos = 0;
  readonly repairs: string[] = [];
  readonly truncated: Path[] = [];
  readonly open: string[] = []; // the closer each open container needs, innermost last

  constructor(
    readonly lexer: Lexer,
    readonly text: string,
    readonly strict: boolean,
    readonly depth: number,
  ) {}

  repair(note: string): void {
    if (this.strict) throw new Broken(note);
    this.repairs.push(note);
  }

  peek(): Token | null {
    while (this.tokens.length <= this.pos) {
      let token: Token | null;
      try {
        token = this.lexer.next();
      } catch (e) {
        // A number cut short at the text's end: cut off inside the open container
        if (e instanceof Broken && e.cut >= 0 && this.open.length > 0)
          throw this.cutOff();
        throw e;
      }
      if (token === null) return null;
      this.tokens.push(token);
    }
    return this.tokens[this.pos] ?? null;
  }

  take(): Token {
    const token = this.peek();
    if (token === null) throw this.cutOff();
    this.pos++;
    return token;
  }

  /** The text ends inside its innermost open container. */
  cutOff(): Broken {
    const inside = this.open[this.open.length - 1];
    if (inside === undefined) return new Broken(""); // no JSON at all
    const what = inside === "}" ? "an object" : "a list";
    return new Broken(
      `the reply is cut off inside ${what}`,
      "",
      this.text.length,
    );
  }

  /** A string followed by a word or number on its line, or by anything but punctuation
   * right after its closing quote: that quote ended it early. `index`: the token's. */
  unescapedQuote(index: number, loose: boolean): Broken | null {
    const token = this.tokens[index] as Token;
    const before = this.tokens[index - 1];
    if (before === undefined || token[2] || !isString(before[0])) return null;
    if (token[0] === "punct") return null;
    const end = before[3] + before[1].length;
    // `"a" "b"`: a missing comma
    if (end !== token[3] && (isString(token[0]) || !loose)) return null;
    return new Broken("unescaped quote inside a string", QUOTE_HINT, end - 1);
  }

  string(kind: string, token: string, at: number): string {
    try {
      if (kind === "dq") {
        if (/[\n\r\t]/.test(token))
          this.repair("kept raw line breaks or tabs inside a string");
        if (this.strict && hasControl(token))
          throw new Broken("control character");
        let apostrophe = false;
        if (token.includes("\\'")) {
          const unquoted = token.replace(/(?<!\\)((?:\\\\)*)\\'/g, "$1'");
          if (unquoted !== token) {
            this.repair("read \\' in a double-quoted string as an apostrophe");
            apostrophe = true;
          }
        }
        return decodeString(token, apostrophe);
      }
      if (kind === "sq") {
        this.repair("read a single-quoted string");
        return decodeString(token, true);
      }
    } catch (e) {
      if (e instanceof Broken && e.at >= 0) e.at += at; // an escape: from the token's start
      throw e;
    }
    this.repair("read a string in curly quotes");
    return token.slice(1, -1);
  }

  value(path: Path, depth: number): unknown {
    const [kind, text, , at] = this.take();
    if (kind === "punct" && (text === "{" || text === "[")) {
      // `depth` containers are open around this one: it would be level depth + 1.
      if (depth >= this.depth) throw new TooDeep(depthMessage(this.depth));
      return text === "{" ? this.object(path, depth) : this.array(path, depth);
    }
    if (isString(kind)) return this.string(kind, text, at);
    if (kind === "num") {
      const number = numberValue(text);
      // As Python: strict JSON keeps its reading of 1e400 (infinity); the other paths reject it.
      if (!this.strict && !Number.isFinite(num(number)))
        throw new Broken(`the number ${snippet(text)} is too large`, "", at);
      return number;
    }
    if (kind === "word" && hasOwn(WORDS, text)) return WORDS[text];
    if (kind === "word" && hasOwn(PYTHON, text)) {
      this.repair(`read Python's ${text} as JSON`);
      return PYTHON[text];
    }
    if (kind === "word" && WORD_STARTS.has(text) && this.endsHere())
      throw this.cutOff();
    throw this.noValue(text, at);
  }

  /** Inside a container, nothing but blanks or comments follows the last token taken. */
  endsHere(): boolean {
    if (this.open.length === 0) return false;
    try {
      return this.peek() === null;
    } catch (e) {
      if (e instanceof Broken) return false; // junk follows: the word is the fault
      throw e;
    }
  }

  /** What is wrong where a value should be. */
  noValue(text: string, at: number): Broken {
    const inside = this.open[this.open.length - 1];
    if (NOT_NUMBERS.has(text))
      return new Broken(`${text} is not a JSON number`, NUMBER_HINT, at);
    if (text === "," || text === inside)
      return new Broken("missing value", "", at);
    if (text === ":") return new Broken("unexpected colon", "", at);
    if (text === "}" || text === "]") {
      if (inside === undefined)
        return new Broken(`unexpected character ${shown(text)}`, "", at);
      return this.mismatched(text, at);
    }
    const hint = "a string needs double quotes";
    return new Broken(`bare word ${snippet(text)}`, hint, at);
  }

  mismatched(closer: string, at: number): Broken {
    const needs =
      this.open[this.open.length - 1] === "}"
        ? "the open object needs }"
        : "the open list needs ]";
    return new Broken(`mismatched bracket ${closer}`, needs, at);
  }

  key(): [string, number] {
    const [kind, text, , at] = this.take();
    if (isString(kind)) return [this.string(kind, text, at), at];
    if (kind === "word" && !hasOwn(WORDS, text) && !hasOwn(PYTHON, text)) {
      this.repair(`quoted the bare key ${text}`);
      return [text, at];
    }
    if (text === ",") throw new Broken("unexpected comma", "", at);
    if (text === ":") throw new Broken("unexpected colon", "", at);
    if (text === "}" || text === "]")
      throw new Broken(
        `mismatched bracket ${text}`,
        "the open object needs }",
        at,
      );
    throw new Broken(`a key must be a string, not ${snippet(text)}`, "", at);
  }

  /** After a member: true when the container closes. Handles the repairs around commas. */
  separator(close: string, path: Path, isObject: boolean): boolean {
    const token = this.peek();
    if (token === null) {
      // `0.9` may be the start of `0.95`: a text ending in a number is not a forced close.
      if (isObject && !this.strict && !/[0-9]$/.test(this.text)) {
        this.truncated.push(path); // the text ends right after a complete member
        return true;
      }
      throw this.cutOff();
    }
    const [kind, text, newline, at] = token;
    if (kind === "punct" && text === close) {
      this.pos++;
      return true;
    }
    if (kind === "punct" && text === ",") {
      this.pos++;
      const after = this.peek();
      if (after !== null && after[0] === "punct" && after[1] === close) {
        this.repair("removed a trailing comma");
        this.pos++;
        return true;
      }
      return false;
    }
    if (newline) {
      this.repair("added a missing comma between lines");
      return false;
    }
    if (text === "}" || text === "]") throw this.mismatched(text, at);
    if (text === ":") throw new Broken("unexpected colon", "", at);
    throw (
      this.unescapedQuote(this.pos, true) ?? new Broken("missing comma", "", at)
    );
  }

  object(path: Path, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.open.push("}");
    const token = this.peek();
    if (token !== null && token[0] === "punct" && token[1] === "}") {
      this.pos++;
      this.open.pop();
      return out;
    }
    for (;;) {
      const [name, keyAt] = this.key();
      const colon = this.take();
      if (colon[1] !== ":") {
        throw (
          this.unescapedQuote(this.pos - 1, false) ??
          new Broken("missing colon after a key", "", colon[3])
        );
      }
      const item = this.value([...path, name], depth + 1);
      if (hasOwn(out, name) && !sameValue(out[name], item)) {
        throw new Broken(
          `the key ${shown(name)} is given twice with different values`,
          "",
          keyAt,
        );
      }
      put(out, name, item);
      if (this.separator("}", path, true)) {
        this.open.pop();
        return out;
      }
    }
  }

  array(path: Path, depth: number): unknown[] {
    const out: unknown[] = [];
    this.open.push("]");
    const token = this.peek();
    if (token !== null && token[0] === "punct" && token[1] === "]") {
      this.pos++;
      this.open.pop();
      return out;
    }
    for (;;) {
      out.push(this.value([...path, out.length], depth + 1));
      if (this.separator("]", path, false)) {
        this.open.pop();
        return out;
      }
    }
  }
}

function readWith(text: string, strict: boolean, depth: number): Read {
  const lexer = new Lexer(text, strict);
  const reader = new Reader(lexer, text, strict, depth);
  const value = reader.value([], 0);
  for (;;) {
    let token: Token | null;
    try {
      token = reader.peek();
    } catch (e) {
      if (e instanceof Broken && !(e instanceof TooDeep) && e.at >= 0)
        throw new Broken(TRAILING, "", e.at);
      throw e;
    }
    if (token === null) break;
    if (token[0] === "punct" && token[1] === ",") {
      reader.repair("removed a trailing comma");
      reader.pos++;
      continue;
    }
    throw new Broken(TRAILING, "", token[3]);
  }
  if (reader.truncated.length > 0)
    reader.repairs.push("closed an object the reply left open");
  if (lexer.comments) reader.repairs.unshift("removed comments"); // first, wherever they were
  return { value, repairs: reader.repairs, truncated: reader.truncated };
}

/** Python's strict `json.loads` (NaN, comments and conflicting duplicate keys rejected), to at
 * most `depth` levels of nesting (TooDeep past them). */
function strictJson(text: string, depth: number): unknown {
  return readWith(text, true, depth).value;
}

/** strictJson, also rejecting numbers too large for a float. */
function finiteJson(text: string, depth: number): unknown {
  const value = strictJson(text, depth);
  const finite = (v: unknown): boolean =>
    Array.isArray(v)
      ? v.every(finite)
      : isMap(v)
        ? Object.values(v).every(finite)
        : !isNumber(v) || Number.isFinite(num(v));
  if (!finite(value)) throw new Broken("a number too large for a float");
  return value;
}

/** What is wrong with strict JSON holding a number too large for a float, which the strict
 * reader keeps as infinity (as Python's clean path does): the lenient reader's fault, naming
 * the number and its place. Only for a reply that fails to validate. */
function tooLarge(text: string, depth: number): Broken | null {
  try {
    finiteJson(text, depth);
  } catch (e) {
    if (!(e instanceof Broken)) throw e;
    try {
      readWith(text, false, depth);
    } catch (fault) {
      if (fault instanceof Broken) return fault;
      throw fault;
    }
  }
  return null;
}

// An object whose first key is not a double-quoted string (a bare or single-quoted key, a
// comment) is no strict JSON: the lenient reader takes it without a strict attempt (whose
// failure costs an Error with its stack), as the Python reader does.
const NOT_STRICT = /^[ \t\r\n]*\{[ \t\r\n]*[^ \t\r\n"}]/;

/** Strict JSON when it is; otherwise the lenient reader with its repairs. Either way no list
 * or map nested more than `depth` levels (TooDeep). */
function readJson(text: string, depth: number): Read {
  if (!NOT_STRICT.test(text)) {
    try {
      return { value: strictJson(text, depth), repairs: [], truncated: [] };
    } catch (e) {
      if (e instanceof TooDeep) throw e;
      if (!(e instanceof Broken || e instanceof RangeError)) throw e;
    }
  }
  return readWith(text, false, depth);
}

/** A JSON text from generated code (descriptors): floats such as `1.0` stay floats. */
export function load(text: string): unknown {
  return strictJson(text, DESCRIPTOR_DEPTH);
}

/* ---- choosing the answer ------------------------------------------------------------------ */

function resolve(d: Descriptor, types: Types): Descriptor {
  let out = d;
  while (out[0] === "ref" || out[0] === "opt")
    out = (out[0] === "ref" ? types[out[1] as string] : out[1]) as Descriptor;
  return out;
}

function atPath(
  d: Descriptor,
  value: unknown,
  path: Path,
  types: Types,
): [Descriptor, unknown] {
  let descriptor = d;
  let current = value;
  for (const step of path) {
    descriptor = resolve(descriptor, types);
    if (descriptor[0] === "map" && isMap(current)) {
      const folded = String(step).replaceAll("-", "_");
      const field = (descriptor[1] as Descriptor[]).find(
        (f) => f[1] === folded,
      );
      descriptor = field ? (field[2] as Descriptor) : ["any"];
      current = hasOwn(current, String(step)) ? current[String(step)] : null;
    } else if (descriptor[0] === "list" && Array.isArray(current)) {
      descriptor = descriptor[1] as Descriptor;
      current = current[step as number];
    } else return [["any"], null];
  }
  return [resolve(descriptor, types), current];
}

/** Truncation is repaired only when nothing but closing braces could follow: every open
 * container is a closed map that already has all of its fields. */
function forced(read: Read, d: Descriptor, types: Types): boolean {
  for (const path of read.truncated) {
    const [target, value] = atPath(d, read.value, path, types);
    if (target[0] !== "map" || target[2] || !isMap(value)) return false;
    const present = new Set(
      Object.keys(value).map((k) => k.replaceAll("-", "_")),
    );
    if ((target[1] as Descriptor[]).some((f) => !present.has(f[1] as string)))
      return false;
  }
  return true;
}

class Search {
  readonly accepted: [unknown, Issue[]][] = [];
  best: Issue[] | null = null;
  parsedAny = false;
  tooDeep = false; // a candidate was JSON nested past the depth limit
  readonly seen = new Set<string>();
  parsed = -1; // the length of the longest candidate that was JSON
  // The longest candidate that looked like JSON and was not: its fault, its text and where
  // it starts in the body.
  fault: [Broken, string, number] | null = null;
  explicit = true; // are the candidates considered now explicit ones
  faultExplicit = false;

  constructor(
    readonly descriptor: Descriptor,
    readonly types: Types,
    readonly limits: Limits,
    readonly reply: string,
    readonly body: string, // the reply without its reasoning, where candidates start
  ) {}

  /** Judges the candidate read; false when it is no JSON after all (its fault is blamed). */
  judge(read: Read, text: string, start: number): boolean {
    // Lenient mode changes nothing already valid (a union prefers an exact member).
    let [value, errors, repairs] = check(
      this.descriptor,
      read.value,
      this.types,
      true,
      this.limits,
    );
    if (
      errors.length > 0 &&
      read.repairs.length === 0 &&
      (text[0] === "{" || text[0] === "[")
    ) {
      const fault = tooLarge(text, this.limits.depth);
      if (fault !== null) {
        this.blamed(fault, text, start);
        return false;
      }
    }
    if (errors.length > 0)
      [value, errors, repairs] = this.unwrapped(read.value, errors, repairs);
    if (
      errors.length === 0 &&
      read.truncated.length > 0 &&
      !forced(read, this.descriptor, this.types)
    ) {
      const where = this.where(text, start, text.length);
      errors = [
        [
          "root",
          `the reply is cut off ${where}, where more than closing braces could follow`,
        ],
      ];
    }
    if (errors.length > 0) {
      if (this.best === null || errors.length < this.best.length)
        this.best = errors;
      return true;
    }
    this.accepted.push([
      value,
      [...read.repairs.map((r): Issue => ["root", r]), ...repairs],
    ]);
    return true;
  }

  /** A top-level array given as an object with one key holding the array. */
  unwrapped(value: unknown, errors: Issue[], repairs: Issue[]): Outcome {
    if (resolve(this.descriptor, this.types)[0] !== "list" || !isMap(value)) {
      return [value, errors, repairs];
    }
    const keys = Object.keys(value);
    const key = keys[0];
    if (keys.length !== 1 || key === undefined) return [value, errors, repairs];
    const [result, innerErrors, innerRepairs] = check(
      this.descriptor,
      value[key],
      this.types,
      true,
      this.limits,
    );
    if (innerErrors.length > 0) return [value, errors, repairs];
    return [
      result,
      [],
      [
        ["root", `unwrapped the array from {${shown(key)}: [...]}`],
        ...innerRepairs,
      ],
    ];
  }

  /** Judges the candidate `text` starting at `start` in the body; false when it is no JSON. */
  consider(text: string, start: number): boolean {
    if (this.seen.has(text)) return true; // the same text as an earlier candidate
    this.seen.add(text);
    let read: Read;
    try {
      read = readJson(text, this.limits.depth);
    } catch (e) {
      if (e instanceof TooDeep) this.tooDeep = true;
      else if (e instanceof Broken && (text[0] === "{" || text[0] === "["))
        this.blamed(e, text, start);
      if (e instanceof Broken || e instanceof RangeError) return false;
      throw e;
    }
    if (!this.judge(read, text, start)) return false;
    this.parsedAny = true;
    this.parsed = Math.max(this.parsed, text.length);
    return true;
  }

  /** Reads the candidate `text`, which is no JSON, only for its fault: only when that fault
   * would be the one named (a reply of a million wrong closers would otherwise be a million
   * reads). */
  blame(text: string, start: number): void {
    const fault = this.fault;
    if (
      fault !== null &&
      (this.faultExplicit || text.length <= fault[1].length)
    )
      return;
    try {
      readJson(text, this.limits.depth);
    } catch (e) {
      if (e instanceof Broken && !(e instanceof TooDeep))
        this.blamed(e, text, start);
      else if (!(e instanceof Broken || e instanceof RangeError)) throw e;
    }
  }

  blamed(fault: Broken, text: string, start: number): void {
    // Text after a value read whole is no fault of the answer's, which is a candidate of its
    // own (a raw span) and is judged as such.
    if (!fault.what || fault.what === TRAILING) return;
    if (
      this.fault === null ||
      (this.explicit === this.faultExplicit &&
        text.length > this.fault[1].length)
    ) {
      this.fault = [fault, text, start];
      this.faultExplicit = this.explicit;
    }
  }

  /** The offset `at` in the candidate `text` (at `start` in the body) as a line and column of
   * the reply (a body without reasoning is found in the reply again). */
  where(text: string, start: number, at: number): string {
    const reply = this.reply;
    let from = start;
    if (this.body.length !== reply.length) {
      const found = reply.lastIndexOf(text);
      if (found >= 0) from = found;
    }
    const pos = from + at;
    let line = 1;
    for (
      let i = reply.indexOf("\n");
      i >= 0 && i < pos;
      i = reply.indexOf("\n", i + 1)
    )
      line++;
    const lineStart = pos === 0 ? 0 : reply.lastIndexOf("\n", pos - 1) + 1;
    return `at line ${line}, column ${codePoints(reply.slice(lineStart, pos)) + 1}`;
  }

  /** The fault of the longest candidate that looked like JSON and was not, when no candidate
   * that was JSON is as long: most likely the answer, broken. */
  broken(): string | null {
    if (this.fault === null || this.fault[1].length <= this.parsed) return null;
    const [fault, text, start] = this.fault;
    let { what, at } = fault;
    if (fault.openString && !strip(this.body.slice(start + text.length))) {
      what = "the reply is cut off inside a string";
      at = text.length;
    }
    const message = `${what} ${this.where(text, start, at)}`;
    return fault.hint ? `${message} (${fault.hint})` : message;
  }
}

/** A span that opens as JSON does (an opener, then a key, a value or its closer), is no JSON
 * and is ended by a closer is the answer, broken: no smaller value inside it is the answer
 * (the `[]` of a broken list of maps is not the list). Prose in brackets (`[note: {...}]`)
 * opens otherwise, and a bracket never closed (`scores in [0, 1).`) ends nothing: the values
 * inside them are still candidates. */
const OPENS_AS_JSON =
  /\{[ \t\r\n]*["}]|\[[ \t\r\n]*(?:["{[\]0-9-]|true|false|null)/y;

/** The one answer in `text` that fits `descriptor`, or ReplyError. See reply-policy.md. A reply
 * past a limit (its size, its tags, its nesting) is a ReplyError naming the limit. */
export function parseReply(
  text: string,
  descriptor: Descriptor,
  types: Types,
  limits?: Partial<Limits>,
): ParseResult {
  if (typeof text !== "string" || !strip(text))
    throw new ReplyError("the reply is empty");
  const bounds = limitsOf(limits);
  // Code points, as Python counts: UTF-16 units are never fewer, so most replies need no count.
  if (text.length > bounds.replyChars && codePoints(text) > bounds.replyChars) {
    throw new ReplyError(
      `the reply is longer than ${bounds.replyChars} characters (the reply-size limit)`,
    );
  }
  const stripped = strip(lstrip(strip(text), "\ufeff"));
  if (stripped.startsWith("{") || stripped.startsWith("[")) {
    // The common case: the whole reply is the JSON answer. Read to Python's depth (its json
    // module's), so that the check below names the limit as Python's does.
    let value: unknown = INVALID;
    try {
      value = strictJson(stripped, DESCRIPTOR_DEPTH);
    } catch (e) {
      if (!(e instanceof Broken || e instanceof RangeError)) throw e;
    }
    if (value !== INVALID) {
      const [result, errors, repairs] = check(
        descriptor,
        value,
        types,
        false,
        bounds,
      );
      // Valid as it stands; with a repair (a @fallback default, say) the lenient search
      // below decides, since a coercion may keep what the model meant.
      if (errors.length === 0 && repairs.length === 0)
        return { value: plain(result), repairs };
    }
  }
  if (countTags(text, bounds.tags) > bounds.tags) {
    throw new ReplyError(
      `the reply holds more than ${bounds.tags} tags (the tag limit)`,
    );
  }
  const body = stripReasoning(text);
  const search = new Search(descriptor, types, bounds, text, body);
  let budget = 8 * body.length + 4096; // characters parsed in all: keeps hostile replies linear
  for (const [candidate, start] of explicitCandidates(body, budget)) {
    budget -= candidate.length;
    search.consider(candidate, start);
  }
  search.explicit = false;
  let covered = -1;
  for (const [start, end, height, ended] of rawSpans(body)) {
    if (start < covered) continue;
    OPENS_AS_JSON.lastIndex = start;
    const brokenAnswer = ended && OPENS_AS_JSON.test(body);
    if (height < 0) {
      // Ended by a wrong closer: no JSON, but its fault may be named.
      if (-height <= bounds.depth && budget >= end - start) {
        budget -= end - start;
        search.blame(body.slice(start, end), start);
      }
      if (brokenAnswer) covered = end;
      continue;
    }
    if (height > bounds.depth) {
      search.tooDeep = true; // not read: the reader would stop at the limit
      covered = end; // nor any span inside it: part of a value past the limit is no answer
      continue;
    }
    budget -= end - start;
    if (budget < 0) break;
    if (search.consider(strip(body.slice(start, end)), start) || brokenAnswer)
      covered = end;
  }
  return decide(search);
}

function decide(search: Search): ParseResult {
  if (search.accepted.length === 0) {
    // A candidate nested too deep is most likely the answer, whatever smaller JSON it holds.
    if (search.tooDeep)
      throw new ReplyError(
        `the reply's JSON is ${depthMessage(search.limits.depth)}`,
      );
    const broken = search.broken();
    if (broken !== null) throw new ReplyError(broken);
    if (!search.parsedAny) throw new ReplyError("no JSON found in the reply");
    throw new ReplyError(
      "the reply does not match the expected output",
      search.best,
    );
  }
  const answers = new Set(search.accepted.map(([v]) => answerKey(v)));
  if (answers.size > 1)
    throw new ReplyError("the reply holds several different answers");
  const [value, repairs] = search.accepted[0] as [unknown, Issue[]];
  return { value: plain(value), repairs };
}

/* ---- Mustache (mustache.py) --------------------------------------------------------------- */

interface Tag {
  kind: string; // "text", "var", "section", "inverted", "close"
  value: string;
}

const SIGILS: Record<string, string> = {
  "#": "section",
  "^": "inverted",
  "/": "close",
  "!": "comment",
  "&": "amp",
  "=": "delims",
};

function mustacheTags(template: string): Tag[] {
  const out: Tag[] = [];
  let open = "{{";
  let close = "}}";
  let pos = 0;
  for (;;) {
    const start = template.indexOf(open, pos);
    if (start < 0) {
      out.push({ kind: "text", value: template.slice(pos) });
      return out;
    }
    const triple = open === "{{" && template.startsWith("{{{", start);
    const endMark = triple ? "}}}" : close;
    const end = template.indexOf(endMark, start + open.length);
    if (end < 0) throw new Error("unclosed tag");
    const body = strip(
      template.slice(start + open.length + (triple ? 1 : 0), end),
    );
    const lineStart = template.lastIndexOf("\n", start - 1) + 1;
    const lineEndNl = template.indexOf("\n", end + endMark.length);
    const lineEnd = lineEndNl < 0 ? template.length : lineEndNl;
    const kind = triple ? "var" : (SIGILS[body.slice(0, 1)] ?? "var");
    const standalone =
      kind !== "var" &&
      kind !== "amp" &&
      !strip(template.slice(lineStart, start)) &&
      !strip(template.slice(end + endMark.length, lineEnd));
    out.push({
      kind: "text",
      value: template.slice(pos, standalone ? lineStart : start),
    });
    if (kind === "delims") {
      const parts = strip(body.slice(1, -1)).split(/\s+/);
      if (parts.length !== 2) throw new Error("bad set-delimiter tag");
      [open = "{{", close = "}}"] = parts;
    } else if (kind !== "comment") {
      const name = kind === "var" && !triple ? body : strip(body.slice(1));
      out.push({
        kind: kind === "amp" ? "var" : kind,
        value: triple ? body : name,
      });
    }
    pos = standalone
      ? lineEndNl >= 0
        ? lineEnd + 1
        : lineEnd
      : end + endMark.length;
  }
}

function lookup(name: string, stack: unknown[]): unknown {
  if (name === ".") return stack[stack.length - 1];
  const [first = "", ...rest] = name.split(".");
  for (let i = stack.length - 1; i >= 0; i--) {
    const context = stack[i];
    if (isMap(context) && hasOwn(context, first)) {
      let value: unknown = context[first];
      for (const part of rest)
        value = isMap(value) && hasOwn(value, part) ? value[part] : null;
      return value;
    }
  }
  return null;
}

function truthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (isMap(v)) return Object.keys(v).length > 0;
  return Boolean(v);
}

function sectionEnd(tags: Tag[], start: number): number {
  let depth = 0;
  for (let i = start; i < tags.length; i++) {
    const kind = tags[i]?.kind;
    if (kind === "section" || kind === "inverted") depth++;
    else if (kind === "close" && --depth === 0) return i;
  }
  throw new Error(`section \`${tags[start]?.value ?? ""}\` is not closed`);
}

function renderTags(
  tags: Tag[],
  start: number,
  stop: number,
  stack: unknown[],
  out: string[],
): void {
  for (let i = start; i < stop; i++) {
    const tag = tags[i] as Tag;
    if (tag.kind === "text") out.push(tag.value);
    else if (tag.kind === "var") {
      const value = lookup(tag.value, stack);
      out.push(
        value === null || value === undefined
          ? ""
          : typeof value === "string"
            ? value
            : dumps(value),
      );
    } else if (tag.kind === "section" || tag.kind === "inverted") {
      const end = sectionEnd(tags, i);
      const value = lookup(tag.value, stack);
      if (tag.kind === "inverted") {
        if (!truthy(value)) renderTags(tags, i + 1, end, stack, out);
      } else if (Array.isArray(value)) {
        for (const item of value)
          renderTags(tags, i + 1, end, [...stack, item], out);
      } else if (truthy(value))
        renderTags(tags, i + 1, end, [...stack, value], out);
      i = end;
    }
  }
}

/** Renders a compiled prompt template: no HTML escaping, values as text or JSON. */
export function render(template: string, values: unknown): string {
  const tags = mustacheTags(template);
  const out: string[] = [];
  renderTags(tags, 0, tags.length, [values], out);
  return out.join("");
}

/* ---- the client loop (runtime/client.py) -------------------------------------------------- */

export const REPLY_LIMIT = 500;
export const RESPOND_TOOL = "respond";
const ENVELOPE = /<\/?\s*reply_data/gi;

export interface Message {
  role: "system" | "user" | "assistant";
  content: string;
}
export interface Tool {
  name: string;
  description: string;
  parameters: unknown;
}
/** What the `llm` callback receives (the request, with its tools and fragments). */
export interface Request {
  signature: string;
  system: string;
  messages: Message[];
  output: string;
  schema: unknown;
  tools: Tool[] | null;
  tool_choice: { tool: string } | null;
  /** Each provider's compiled request fragment (`{openai: {request, tool_request}, ...}`),
   * which `_providers.ts` builds request bodies from; a fresh copy per request. */
  fragments?: Record<string, unknown> | null | undefined;
}
export interface ToolCall {
  name?: string;
  arguments?: unknown;
  [key: string]: unknown;
}
/** What the callback may return: the reply text, or {content, tool_calls, tokens} with the
 * model's `refusal` (which ends the call) and its `reasoning` (kept, never parsed). */
export type LlmReply =
  | string
  | {
      content?: string | null;
      tool_calls?: ToolCall[] | null;
      tokens?: Record<string, number> | null;
      refusal?: string | null;
      reasoning?: string | null;
    };
export type Llm = (request: Request) => LlmReply | Promise<LlmReply>;

export interface Reply {
  content: string | null;
  tool_calls: ToolCall[];
  tokens: Record<string, number>;
  refusal: string | null;
  reasoning: string | null;
  /** What the callback did on the way to this reply (a transport retry, a structured-output
   * fallback), for the caller's records; never parsed. */
  notes: string[];
}
export interface Turn {
  request: Request;
  reply: Reply;
  errors: Issue[];
  repairs: Issue[];
}
export interface Failure {
  reason: string;
  errors: Issue[];
}
/** A finished call: `return` (the typed value), every turn, summed token usage; `fail` is set
 * only on the step a JsonEnforcementError carries. */
export interface Step<T> {
  return: T;
  turns: Turn[];
  usage: Record<string, number>;
  fail: Failure | null;
  /** The output's field descriptions, handed to the next step of a pipeline. */
  fieldDescriptions: Record<string, string>;
}

/** One signature as the client runs it; generated code builds these from compiled output. */
export interface Spec {
  name: string;
  mode: "json" | "text" | "ptc_lisp";
  system: string | null; // Mustache templates
  user: string;
  retry: string | null;
  schema: () => unknown; // the output's JSON Schema, decoded on first use
  maxTurns: number;
  doc: string;
  descriptions: Record<string, string>;
  /** The provider fragments as compact JSON text, decoded anew for each request. */
  fragments?: string | undefined;
}

export interface JsonOptions {
  maxTurns?: number | undefined;
  /** Limits on each reply (size, nesting depth, tags) other than the defaults. */
  limits?: Partial<Limits> | undefined;
  structured?: "prompt" | "tool" | undefined;
  fieldDescriptions?: Record<string, string> | undefined;
}
export interface TextOptions {
  fieldDescriptions?: Record<string, string> | undefined;
}

/** No valid answer within the turn budget; `.errors` are the last turn's, `.step` has all. */
export class JsonEnforcementError extends Error {
  readonly signature: string;
  readonly step: Step<null>;
  readonly errors: Issue[];
  constructor(signature: string, step: Step<null>) {
    const errors = step.fail?.errors ?? [];
    const reason = step.fail?.reason ?? "failed";
    const shown = errors
      .slice(0, 5)
      .map(([p, m]) => `${p}: ${m}`)
      .join("; ");
    const turns = step.turns.length;
    super(
      `${signature}: ${reason} after ${turns} turn${turns !== 1 ? "s" : ""}${shown ? ` (${shown})` : ""}`,
    );
    this.name = "JsonEnforcementError";
    this.signature = signature;
    this.step = step;
    this.errors = errors;
  }
}

/** The model (or the provider's filter) refused to answer: `.refusal` says why. No retry
 * follows, since asking again with the refused reply as feedback would not change it. */
export class RefusalError extends JsonEnforcementError {
  readonly refusal: string;
  constructor(signature: string, step: Step<null>, refusal: string) {
    super(signature, step);
    this.name = "RefusalError";
    this.refusal = refusal;
    this.message = `${signature}: the model refused to answer on turn ${step.turns.length}: ${Array.from(refusal).slice(0, REPLY_LIMIT).join("")}`;
  }
}

/** The callback returned something that is neither text nor {content, tool_calls, tokens}. */
export class CallbackError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = "CallbackError";
  }
}

/** A JSON text decoded once, on first use. */
export function lazy<T>(
  text: string,
  decode: (text: string) => unknown = JSON.parse,
): () => T {
  let cached: { value: T } | null = null;
  return () => {
    if (cached === null) cached = { value: decode(text) as T };
    return cached.value;
  };
}

/** A signature's output field descriptions, from JSON text (keys stay plain properties). */
export function descriptions(text: string): Record<string, string> {
  return JSON.parse(text) as Record<string, string>;
}

/** The values of the retry template's variables: the reply cut to 500 characters, and
 * nothing from the reply able to close the data envelope. */
export function retryValues(
  reply: string,
  errors: Issue[],
): Record<string, unknown> {
  const neutral = (text: string): string =>
    text.replace(ENVELOPE, "[reply_data");
  return {
    reply: neutral(Array.from(reply).slice(0, REPLY_LIMIT).join("")),
    errors: errors.map(([p, m]) => ({ path: neutral(p), message: neutral(m) })),
  };
}

export function readReply(raw: unknown): Reply {
  if (typeof raw === "string")
    return {
      content: raw,
      tool_calls: [],
      tokens: {},
      refusal: null,
      reasoning: null,
      notes: [],
    };
  if (!isMap(raw))
    throw new CallbackError(
      `the llm callback returned ${kindOf(raw)}, not a string or an object`,
    );
  const content = raw["content"] ?? null;
  if (content !== null && typeof content !== "string") {
    throw new CallbackError(
      "the llm callback's `content` must be a string or null",
    );
  }
  const calls = truthy(raw["tool_calls"]) ? raw["tool_calls"] : [];
  if (!Array.isArray(calls) || !calls.every(isMap)) {
    throw new CallbackError(
      "the llm callback's `tool_calls` must be a list of objects",
    );
  }
  const tokens: Record<string, number> = {};
  const given = raw["tokens"];
  if (isMap(given)) {
    for (const [key, value] of Object.entries(given))
      if (isInt(value)) put(tokens, key, value);
  }
  const texts: Record<string, string | null> = {};
  for (const key of ["refusal", "reasoning"]) {
    const text = raw[key] ?? null;
    if (text !== null && typeof text !== "string")
      throw new CallbackError(
        `the llm callback's \`${key}\` must be a string or null`,
      );
    texts[key] = text === "" ? null : text;
  }
  const notes = truthy(raw["notes"]) ? raw["notes"] : [];
  if (!Array.isArray(notes) || !notes.every((n) => typeof n === "string")) {
    throw new CallbackError(
      "the llm callback's `notes` must be a list of strings",
    );
  }
  return {
    content,
    tool_calls: calls.map((c) => ({ ...c })),
    tokens,
    refusal: texts["refusal"] ?? null,
    reasoning: texts["reasoning"] ?? null,
    notes: [...(notes as string[])],
  };
}

/** The note a turn gets when its reasoning was cut at the reply-size limit. */
export function reasoningNote(limit: number): string {
  return (
    `the reasoning was longer than ${limit} characters (the reply-size limit):` +
    ` kept its first ${limit}`
  );
}

/** `reply` with its reasoning cut to `limit` code points and a note saying so, when it is
 * longer: reasoning is never parsed, so past the limit it is cut, not a failed turn (the
 * stream form cuts it the same way as it arrives). */
export function keptReasoning(reply: Reply, limit: number): Reply {
  const reasoning = reply.reasoning;
  if (reasoning === null || reasoning.length <= limit) return reply;
  let end = 0; // where its first `limit` code points end (a lone surrogate is one)
  for (let n = 0; n < limit && end < reasoning.length; n++) {
    const pair =
      (reasoning.charCodeAt(end) & 0xfc00) === 0xd800 &&
      (reasoning.charCodeAt(end + 1) & 0xfc00) === 0xdc00;
    end += pair ? 2 : 1;
  }
  if (end >= reasoning.length) return reply;
  return {
    ...reply,
    reasoning: reasoning.slice(0, end),
    notes: [...reply.notes, reasoningNote(limit)],
  };
}

function addUsage(
  total: Record<string, number>,
  tokens: Record<string, number>,
): void {
  for (const [key, value] of Object.entries(tokens))
    put(total, key, (total[key] ?? 0) + value);
}

function errorList(e: unknown): Issue[] {
  if (
    (e instanceof ReplyError || e instanceof ValidationError) &&
    e.errors.length > 0
  )
    return e.errors;
  if (e instanceof ReplyError) return [["root", e.reason]];
  if (e instanceof Error) return [["root", e.message]];
  return [["root", String(e)]];
}

/** The block a pipeline step adds to its prompt: what the previous step's fields mean. */
export function describeInputs(descriptions: Record<string, string>): string {
  const lines = Object.entries(descriptions).map(
    ([name, text]) => `- ${name}: ${text}`,
  );
  return lines.length > 0
    ? `\n\nWhat the input fields mean:\n${lines.join("\n")}`
    : "";
}

function firstRequest(
  spec: Spec,
  values: unknown,
  described: Record<string, string>,
): Request {
  return {
    signature: spec.name,
    system: spec.system ? render(spec.system, values) : "",
    messages: [
      {
        role: "user",
        content: render(spec.user, values) + describeInputs(described),
      },
    ],
    output: spec.mode,
    schema: spec.mode === "json" ? spec.schema() : null,
    tools: null,
    tool_choice: null,
    fragments:
      spec.fragments === undefined
        ? null
        : (JSON.parse(spec.fragments) as Record<string, unknown>),
  };
}

function asTool(request: Request, spec: Spec): Request {
  const tool = {
    name: RESPOND_TOOL,
    description: spec.doc || "Return your response",
    parameters: toolParameters(spec.schema())[0],
  };
  return { ...request, tools: [tool], tool_choice: { tool: RESPOND_TOOL } };
}

/** An output's schema as a tool's parameters, which every provider wants an object: a root
 * `$ref` to a map is that map (its `$defs` kept for recursion), any other root that is no
 * map goes under a key (`items` for a list, else `result`), which is returned with it. */
export function toolParameters(
  schema: unknown,
): [Record<string, unknown>, string | null] {
  const root: Record<string, unknown> = isMap(schema) ? { ...schema } : {};
  const defs = isMap(root["$defs"]) ? root["$defs"] : {};
  delete root["$defs"];
  const target = root["$ref"];
  const name =
    typeof target === "string" && target.startsWith("#/$defs/")
      ? target.slice("#/$defs/".length)
      : null;
  const found = name !== null && hasOwn(defs, name) ? defs[name] : null;
  if (isMap(found) && found["type"] === "object") {
    delete root["$ref"];
    return [{ ...found, ...root, $defs: defs }, null];
  }
  const withDefs = Object.keys(defs).length > 0 ? { $defs: defs } : {};
  if (root["type"] === "object") return [{ ...root, ...withDefs }, null];
  const key = root["type"] === "array" ? "items" : "result";
  const wrapper = {
    type: "object",
    properties: { [key]: root },
    required: [key],
    additionalProperties: false,
  };
  return [{ ...wrapper, ...withDefs }, key];
}

/** The answer inside the wrapper of a forced tool's parameters: only an object that is exactly
 * `{key: ...}` whose content is a valid answer. */
function unwrapped<T>(
  value: unknown,
  key: string | null,
  parse: (text: string) => ParseResult<T>,
): ParseResult<T> | null {
  if (key === null || !isMap(value)) return null;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== key) return null;
  let parsed: ParseResult<T>;
  try {
    parsed = parse("```json\n" + dumps(value[key], true) + "\n```");
  } catch (e) {
    if (e instanceof ReplyError || e instanceof ValidationError) return null;
    throw e;
  }
  const note: Issue = [
    "root",
    `unwrapped the answer from the provider's {${shown(key)}: ...}`,
  ];
  return { ...parsed, repairs: [note, ...parsed.repairs] };
}

function decoded(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function refused(
  spec: Spec,
  turns: Turn[],
  turn: Turn,
  usage: Record<string, number>,
): never {
  const refusal = turn.reply.refusal ?? "";
  const shortened = Array.from(refusal).slice(0, REPLY_LIMIT).join("");
  const errors: Issue[] = [
    ["root", `the model refused to answer: ${shortened}`],
  ];
  turns.push({ ...turn, errors });
  const failed: Step<null> = {
    return: null,
    turns,
    usage,
    fail: { reason: "the model refused to answer", errors },
    fieldDescriptions: {},
  };
  throw new RefusalError(spec.name, failed, refusal);
}

function answerText(reply: Reply, structured: string): string {
  if (structured === "tool") {
    for (const call of reply.tool_calls) {
      if (call.name === RESPOND_TOOL) {
        return typeof call.arguments === "string"
          ? call.arguments
          : dumps(call.arguments, true);
      }
    }
  }
  return reply.content ?? "";
}

/** The flow: prompt, call, parse, validate, retry with feedback, or fail. */
export async function runJson<T>(
  spec: Spec,
  values: unknown,
  llm: Llm,
  parse: (text: string, limits?: Partial<Limits>) => ParseResult<T>,
  options: JsonOptions = {},
): Promise<Step<T>> {
  const turns = jsonTurns(spec, values, parse, options);
  let next = turns.next();
  while (!next.done) next = turns.next(readReply(await llm(next.value)));
  return next.value;
}

/** The flow as a generator: it yields each turn's request, takes that turn's reply back, and
 * returns the step (or throws); `runJson` and the streaming form (`_stream.ts`) drive it. */
export function* jsonTurns<T>(
  spec: Spec,
  values: unknown,
  parse: (text: string, limits?: Partial<Limits>) => ParseResult<T>,
  options: JsonOptions = {},
): Generator<Request, Step<T>, Reply> {
  const structured = options.structured ?? "prompt";
  if (structured !== "prompt" && structured !== "tool") {
    throw new RangeError(
      `structured must be "prompt" or "tool", not ${JSON.stringify(structured)}`,
    );
  }
  const budget = options.maxTurns ?? spec.maxTurns;
  if (!(budget >= 1)) throw new RangeError("maxTurns must be at least 1");
  let request = firstRequest(spec, values, options.fieldDescriptions ?? {});
  let key: string | null = null;
  if (structured === "tool") {
    request = asTool(request, spec);
    key = toolParameters(spec.schema())[1];
  }
  const parseOne = (text: string): ParseResult<T> =>
    parse(text, options.limits);
  const kept = limitsOf(options.limits).replyChars;
  const turns: Turn[] = [];
  const usage: Record<string, number> = {};
  let errors: Issue[] = [];
  for (let turn = 0; turn < budget; turn++) {
    const reply = keptReasoning(yield request, kept);
    addUsage(usage, reply.tokens);
    if (reply.refusal !== null)
      refused(spec, turns, { request, reply, errors: [], repairs: [] }, usage);
    const text = answerText(reply, structured);
    let parsed: ParseResult<T>;
    try {
      parsed = parseOne(text);
      // An output the wrapper itself is valid for (`:any`) still gets the inside.
      const inside = unwrapped(parsed.value, key, parseOne);
      if (inside !== null) {
        const [note, ...rest] = inside.repairs;
        parsed = {
          ...inside,
          repairs: [...(note ? [note] : []), ...parsed.repairs, ...rest],
        };
      }
    } catch (e) {
      if (!(e instanceof ReplyError || e instanceof ValidationError)) throw e;
      const inside = unwrapped(decoded(text), key, parseOne);
      if (inside !== null) {
        turns.push({
          request,
          reply,
          errors: [],
          repairs: [...inside.repairs],
        });
        return {
          return: inside.value,
          turns,
          usage,
          fail: null,
          fieldDescriptions: { ...spec.descriptions },
        };
      }
      errors = errorList(e);
      turns.push({ request, reply, errors, repairs: [] });
      const feedback = render(spec.retry ?? "", retryValues(text, errors));
      const messages: Message[] = [
        ...request.messages,
        { role: "assistant", content: text },
        { role: "user", content: feedback },
      ];
      request = { ...request, messages };
      continue;
    }
    turns.push({ request, reply, errors: [], repairs: [...parsed.repairs] });
    return {
      return: parsed.value,
      turns,
      usage,
      fail: null,
      fieldDescriptions: { ...spec.descriptions },
    };
  }
  const failed: Step<null> = {
    return: null,
    turns,
    usage,
    fail: { reason: "no valid answer", errors },
    fieldDescriptions: {},
  };
  throw new JsonEnforcementError(spec.name, failed);
}

/** Text mode: one call, the reply as it is, no parsing and no retries. */
export async function runText(
  spec: Spec,
  values: unknown,
  llm: Llm,
  options: TextOptions = {},
): Promise<Step<string>> {
  const request = firstRequest(spec, values, options.fieldDescriptions ?? {});
  const reply = readReply(await llm(request));
  const turn: Turn = { request, reply, errors: [], repairs: [] };
  if (reply.refusal !== null) refused(spec, [], turn, { ...reply.tokens });
  return {
    return: reply.content ?? "",
    turns: [turn],
    usage: { ...reply.tokens },
    fail: null,
    fieldDescriptions: {},
  };
}

/** The first request for a signature, for runtimes that run the loop themselves. */
export function buildRequest(spec: Spec, values: unknown): Request {
  return firstRequest(spec, values, {});
}

/** The next pipeline step's arguments from this step's result (a pipeline's piping): each
 * param the output has a field for, by name. */
export function pipeArgs(
  step: Step<unknown>,
  ...params: string[]
): Record<string, unknown> {
  const value = step.return;
  if (!isMap(value))
    throw new TypeError(
      "a pipeline step's output must be an object to feed the next step",
    );
  const out: Record<string, unknown> = {};
  for (const name of params)
    if (hasOwn(value, name)) put(out, name, value[name]);
  return out;
}

/** A pipeline step's options: the pipeline's turn budget and, after the first step, the
 * field descriptions the previous step's answer came with. */
export function stepOptions(
  options: { maxTurns?: number | undefined },
  previous?: Step<unknown>,
): JsonOptions {
  return {
    maxTurns: options.maxTurns,
    fieldDescriptions: previous?.fieldDescriptions,
  };
}

/** A pipeline's result: the last step's value, every step's turns, the summed usage. */
export function chain<T>(...steps: [...Step<unknown>[], Step<T>]): Step<T> {
  const usage: Record<string, number> = {};
  const turns: Turn[] = [];
  const last = steps[steps.length - 1] as Step<T>;
  for (const step of steps) {
    addUsage(usage, step.usage);
    for (const turn of step.turns) turns.push(turn);
  }
  return {
    return: last.return,
    turns,
    usage,
    fail: null,
    fieldDescriptions: { ...last.fieldDescriptions },
  };
}
