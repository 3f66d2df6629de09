# Unknown names: a known synonym, else a close spelling, and what is in scope when it is short.
type Sentiment = "positive" | "negative"
type Item = {name :string, tags [:string]}

signature synonyms() -> {
  a :integer, # expect: unknown-primitive # help: did you mean `:int`?
  b :number, # expect: unknown-primitive # help: did you mean `:float`?
  c :object, # expect: unknown-primitive # help: did you mean `:map`?
  d :list, # expect: unknown-primitive # help: a list is written `[T]`, as in `[:string]`
  e :str, # expect: unknown-primitive # help: did you mean `:string`?
  f :Int, # expect: unknown-primitive # help: did you mean `:int`?
  g :strng # expect: unknown-primitive # help: did you mean `:string`?
}

signature bare() -> {
  a integer, # expect: unknown-type # help: did you mean `:int`?
  b string, # expect: unknown-type # help: did you mean `:string`?
  c list, # expect: unknown-type # help: a list is written `[T]`, as in `[:string]`
  d Sentimnt, # expect: unknown-type # help: did you mean `Sentiment`?
  e Mood # expect: unknown-type # help: types in scope: `Sentiment`, `Item`
}

signature classify(text :string) -> Sentiment
signature summarize(text :string) -> :string
pipeline p = classify |> summarise # expect: unknown-signature # help: did you mean `summarize`?
pipeline q = classify |> translate # expect: unknown-signature

@prompt("Classify {{txt}}") # expect: unknown-prompt-variable # help: did you mean `text`?
signature tagged(text :string, lang :string) -> Sentiment

@prompt("""
Classify this:
{{subject}} # expect: unknown-prompt-variable # help: parameters of `sections`: `items`, `text`
{{#items}}{{nme}}{{/items}} # expect: section-field-missing # help: did you mean `name`?
""")
signature sections(items [Item], text :string) -> :string

@output(ptc_lisp)
@tools(lookup, serch) # expect: unknown-tool # help: did you mean `search`?
signature agent(q :string) -> :string
tool search(q :string) -> [:string]
tool fetch(url :string) -> :string
@output(ptc_lisp)
@tools(browse) # expect: unknown-tool # help: tools in scope: `search`, `fetch`
signature other(q :string) -> :string

signature attrs() -> {
  n :int @minimum(1), # expect: unknown-attribute # help: did you mean `@min`?
  s :string @format("emial") # expect: unknown-format # help: did you mean `email`?
}
