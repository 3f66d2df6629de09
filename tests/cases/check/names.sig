type Sentiment = "positive" | "negative"
type Item = {name :string, tags [:string]}

signature uses_types(t :string) -> {s Sentiment, items [Item]}
signature typo() -> {s Sentimnt} # expect: unknown-type
signature wrong_kind() -> {s uses_types} # expect: unknown-type
type Item = :int # expect: duplicate-declaration
signature uses-types() -> :int # expect: duplicate-declaration
signature dup_params(a :int, b :int, a :string) -> :int # expect: duplicate-param
signature dup_fields() -> {x :int, y {a-b :int, a_b :int}} # expect: duplicate-field
pipeline p = uses_types |> nothing # expect: unknown-signature
pipeline q = uses_types |> Sentiment # expect: unknown-signature
