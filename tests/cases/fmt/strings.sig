signature s() -> {
  a :string = "tab\there" "quote \" and unicode \u00e9",
  b ("x" | "y") = "x" @fallback "kept in parentheses",
  c :float = 1e3,
  d :int = -0
}
@prompt("""
Line one.
  Indented "quoted" line.
""")
signature t() -> :string
# output
signature s() -> {
  a :string = "tab\there" "quote \" and unicode é",
  b ("x" | "y") = "x" @fallback "kept in parentheses",
  c :float = 1000.0,
  d :int = 0
}

@prompt("""
Line one.
  Indented "quoted" line.
""")
signature t() -> :string
