## `@pattern` is ECMA-262 (Unicode mode), limited to what JSON Schema, Python and the decoding
## engines share (runtime/ecma.py, issue 24).
signature patterns() -> {
  ok1 :string @pattern("^(?<year>[0-9]{4})-\\d{2}\\b[\\s\\S]*?$"),
  ok2 :string @pattern("(?<=x)y(?!z)\\u{1F600}[^\\S\\n]"),
  a :string @pattern("^(?P<w>[a-z]+)$"), # expect: unportable-pattern
  b :string @pattern("(?i)abc"), # expect: unportable-pattern
  c :string @pattern("(?#note)a"), # expect: unportable-pattern
  d :string @pattern("\\Aabc\\Z"), # expect: unportable-pattern
  e :string @pattern("(a)\\1"), # expect: unportable-pattern
  f :string @pattern("\\p{L}+"), # expect: unportable-pattern
  g :string @pattern("a*+"), # expect: unportable-pattern
  h :string @pattern("a{,3}"), # expect: invalid-pattern
  i :string @pattern("a{"), # expect: invalid-pattern
  j :string @pattern("\\@"), # expect: invalid-pattern
  k :string @pattern("(?<=a+)b"), # expect: invalid-pattern
  l :string @pattern("(?<n>a)|(?<n>b)") # expect: invalid-pattern
}
