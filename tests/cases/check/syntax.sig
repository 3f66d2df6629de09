signature fine() -> {a :int}
signature broken() -> {a :int b :int} # expect: syntax-error
