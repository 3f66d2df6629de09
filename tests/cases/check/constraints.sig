type Score = :float

signature constraints() -> {
  a :float @min(0) @max(1),
  b Score? @min(0),
  c :string @min(1), # expect: constraint-type-mismatch
  d :int @min_length(1), # expect: constraint-type-mismatch
  e [:int] @pattern("x"), # expect: constraint-type-mismatch
  f :string @min_items(1), # expect: constraint-type-mismatch
  g :int @min(5) @max(1), # expect: contradictory-constraints
  h :string @min_length(3) @max_length(2), # expect: contradictory-constraints
  i :float = 0.5 @clamp(1, 0), # expect: contradictory-constraints, invalid-default
  j :string @pattern("("), # expect: invalid-pattern
  k :string @format("emial"), # expect: unknown-format
  k2 :string @format("idn-email"), # expect: unchecked-format
  k3 :string @format("uri-template"), # expect: unchecked-format
  k4 :string @format("email"),
  l :int @fallback, # expect: fallback-without-default
  m :int = 1 @fallback,
  n :int @minimum(1), # expect: unknown-attribute
  o :int @min(1) @min(2), # expect: duplicate-attribute
  p :int @min("one"), # expect: invalid-attribute-argument
  q :int @output(json) # expect: misplaced-attribute
}
