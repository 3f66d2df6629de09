# Shapes the generated code must print cleanly: long enums and unions, defaults of every
# kind, recursion, every output mode, text with quotes, backslashes and non-ASCII letters.

## A tree of notes; "quoted" \ and ünïcode in a doc comment.
type Note = {title :string "A title with \"quotes\" and a \\ backslash", children [Note] = []}

type Colour = "red" | "green" | "blue" | "cyan" | "magenta" | "yellow" | "black" | "white" | "orange"

type Shape = {kind "circle", radius :float} | {kind "square", side :float}

## Pick colours for a very long list of things that all need a colour, one per thing.
signature paint_everything_with_a_rather_long_name(
  things [:string] "What to paint",
  palette [Colour] = ["red", "blue"],
  options :map = {},
  favourite Colour?,
  mood ("calm" | "loud" | "playful" | "serious" | "melancholic" | "euphoric" | "neutral") = "calm",
  weights {light :float, dark :float}? ,
  limit :int = 10
) -> {
  colours [Colour] "One per thing",
  note Note?,
  shapes [Shape] = [],
  reason :string = "none given" "Why these colours"
}

signature count_words(text :string) -> :int

signature many_labels(text :string) -> [:string]

@output(text)
signature haiku(topic :string = "autumn") -> :string

@output(ptc_lisp)
signature plan(goal :string) -> {steps [:string]}

signature describe(colours [Colour], reason :string) -> {text :string}

pipeline paint_and_describe = paint_everything_with_a_rather_long_name |> describe
