# File header.

# About A.
type A = :int # trailing A
signature f(a :int, # after a
  # before b
  b :string) -> {
  x :int # after x
  # dangling in map
}
## Doc
@prompt("{{a}} {{b}}") # on the attribute line
signature g(a :int, b :int) -> :int
# the end
# output
# File header.

# About A.
type A = :int # trailing A

signature f(
  a :int, # after a
  # before b
  b :string
) -> {
  x :int # after x
  # dangling in map
}

# on the attribute line
## Doc
@prompt("{{a}} {{b}}")
signature g(a :int, b :int) -> :int

# the end
