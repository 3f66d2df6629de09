## The signatures of the shared case table (tests/cases/shared/cases.json), which runs against
## both the Python and the TypeScript output so the two runtimes cannot drift apart.

type Label = "low" | "medium" | "high"

type Tree = {value :int, children [Tree] = []}

signature sentiment(text :string) -> {
  sentiment "positive" | "negative" | "neutral",
  score :float @clamp(0, 1)
}

signature counts() -> {count :int, ok :bool, ratio :float?}

signature items() -> [{name :string, price :float @min(0), tags [:string] = []}]

signature nested() -> {a {b :int, c :int}, d :string?}

signature defaults() -> {
  label Label = "low" @fallback,
  size :int = 3,
  note :string?,
  when :datetime?,
  code :string? @pattern("^[A-Z]{2}-[0-9]+$") @max_length(8)
}

signature open_map() -> {a :int, ...}

signature tree() -> Tree

signature mixed() -> {value :int | :string | :bool, kind "a" | "b" | 1}

signature flags(first-name :string, max_items :int = 5) -> {
  first-name :string,
  is_ok :bool
}

signature limits() -> {tags [:string] @min_items(1) @max_items(2), word :string @min_length(2)}

signature raw() -> {data :map, anything :any}

signature literal_float() -> {x 1.5 | 2.0}

## Scalar outputs: a reply that is just the JSON value is the answer.
signature how_many() -> :int

signature decide() -> :bool

signature maybe() -> :int?

## Text mode, and a prompt using every Mustache feature the templates allow.
@output(text)
@prompt("""Items:
{{#items}}
- {{name}} x{{n}}{{#tags}} #{{.}}{{/tags}}
{{/items}}
{{^items}}
(none)
{{/items}}
Flag: {{flag}}, score {{score}}, meta {{meta.owner}}, raw {{{meta}}}
""")
signature listing(items [{name :string, n :int, tags [:string] = []}], flag :bool, score :float, meta {owner :string?, ids [:int] = []}) -> :string

## Values quoted in messages: JSON notation, numbers as JavaScript writes them (the notation in
## runtime/validate.py's header), where Python's repr would have written them otherwise.
type Mood = "café" | "naïve" | "say \"hi\" \\ bye"

signature notation() -> {
  mood Mood?,
  n :float? @max(4),
  big :float? @max(1e15),
  tiny :float? @min(0.001),
  ratio :float? @clamp(0.5, 2.5),
  code :string? @pattern("^\"[a-z]+\\d\"$"),
  two 2.0?,
  count :int?
}

## Every format the runtimes check (runtime/formats.py, runtime.ts), one field each, and one
## they leave unchecked (`template`, whose unchecked-format warning is suppressed).
signature formats() -> {
  date_time :string? @format("date-time"),
  day :string? @format("date"),
  clock :string? @format("time"),
  period :string? @format("duration"),
  email :string? @format("email"),
  host :string? @format("hostname"),
  address4 :string? @format("ipv4"),
  address6 :string? @format("ipv6"),
  uri :string? @format("uri"),
  reference :string? @format("uri-reference"),
  id :string? @format("uuid"),
  pointer :string? @format("json-pointer"),
  relative :string? @format("relative-json-pointer"),
  template :string? @format("uri-template") # sigspec: ignore[unchecked-format] passes unchecked in both
}

## `@pattern` means what ECMA-262 (Unicode mode) means, in both runtimes (runtime/ecma.py):
## `$` only at the end, ASCII `\d` `\w` `\b`, ECMA-262's `\s`, `.` stopping at every line
## terminator, astral characters as one.
signature patterns() -> {
  zip :string? @pattern("^[0-9]{5}$"),
  digits :string? @pattern("^\\d+$"),
  word :string? @pattern("^\\w+$"),
  space :string? @pattern("^a\\sb$"),
  solid :string? @pattern("^\\S+$"),
  dot :string? @pattern("^a.b$"),
  boundary :string? @pattern("\\bcat\\b"),
  one :string? @pattern("^.$"),
  range :string? @pattern("^[\\u{1F600}-\\u{1F64F}]+$"),
  free :string? @pattern("^[^\\S\\n]+$"),
  search :string? @pattern("[0-9]")
}
