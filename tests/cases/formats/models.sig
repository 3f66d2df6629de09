# Models the generator writes in every shape: quotes and unicode in descriptions, keyword
# field names, literal unions, list, map and model defaults, recursion, unions, formats.
## A type with "quotes", 'single' quotes, a backslash \ and unicode é 中 😀.
## And a second line of its description, long enough to need wrapping when it is shown anywhere at all.
type Node = {
  label :string "A label with \"double\" and 'single' quotes and a very long description that goes past eighty-eight columns",
  children [Node] = [],
  meta :map?,
  anything :any?,
  class :string?,
  format :string? @format("email"),
  model_config :string?,
  schema :string?,
  kind "a\"b" | "c'd" | "e\\f" = "a\"b",
  weights [:float] = [1.5, 2.25, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0],
  scores {a :int, b :int} = {"a": 1, "b": 2},
  nested [[[:string?]]]?,
  deprecated_thing :int? @deprecated("use other"),
  n :int = -5 @min(-10) @max(10),
  x :float = 1e22,
  when :datetime?,
  day :string? @format("date"),
  ids [:string] = []
}

type Shape = {kind "circle", r :float @min(0)} | {kind "square", side :float @min(0)}
type Alias = [Shape]

## Returns a very very long literal union of many many string values that surely exceed the line.
signature stress(text :string, items [Node] = [], maybe Shape?) -> {
  choice "alpha" | "bravo" | "charlie" | "delta" | "echo" | "foxtrot" | "golf" | "hotel" | "india",
  shapes Alias,
  tree Node?,
  union :string | :int | [:string] | {z :bool},
  id :string @format("uuid"),
  long_field_name_that_is_really_quite_long_indeed :string? @pattern("^[a-z]+(?:-[a-z]+)*$") "and has a description that is long as well, long long long",
  opt_union (:string | :int)?,
  favourite ("red" | "green" | "blue" | "cyan" | "magenta" | "yellow" | "black" | "white" | "orange")?,
  palette ["red" | "green" | "blue" | "cyan" | "magenta" | "yellow" | "black" | "white" | "orange"] = ["red", "blue"],
  many_models VeryLongModelNameNumberOne | VeryLongModelNameNumberTwo | VeryLongModelNameNumberThree | :string
}

type VeryLongModelNameNumberOne = {one :int}
type VeryLongModelNameNumberTwo = {two :int}
type VeryLongModelNameNumberThree = {three :int}

signature choose_one_colour_from_a_palette_of_many() -> "red" | "green" | "blue" | "cyan" | "magenta" | "yellow"

signature plain() -> :string
signature listy() -> [:int]
signature shape() -> Shape
signature when() -> :datetime
