signature defaults() -> {
  a :int = 1,
  b :int = 1.0, # expect: invalid-default
  c :float = 1,
  d :bool = 0, # expect: invalid-default
  e :string? = null,
  f :string = null, # expect: invalid-default
  g [:int] = [1, "x"], # expect: invalid-default
  h {x :int} = {"x": 1},
  i {x :int} = {"y": 1}, # expect: invalid-default
  j {x :int, ...} = {"x": 1, "y": 2},
  k ("a" | "b") = "c", # expect: invalid-default
  l :datetime = "2024-01-01T00:00:00Z",
  m :datetime = "2024-01-01", # expect: invalid-default
  n :int = 5 @max(3), # expect: invalid-default
  o :float = 2 @clamp(0, 1), # expect: invalid-default
  p :any = {"whatever": [1, 2]},
  q :string = "x" @min_length(2) # expect: invalid-default
}
