signature a(text :string) -> {x :string, n :int}
signature b(x :string, n :float, extra :string = "") -> {out [:string]}
signature c(out [:string]) -> :string
signature d(x :int) -> :string
signature e(missing :string) -> :string
signature f(x :string?, n :int) -> :string
signature g(out [:int]) -> :string

pipeline good = a |> b |> c
pipeline wrong_type = a |> d # expect: pipeline-mismatch
pipeline missing = a |> e # expect: pipeline-mismatch
pipeline optional_ok = a |> f
pipeline not_a_map = c |> d # expect: pipeline-mismatch
pipeline list_items = b |> g # expect: pipeline-mismatch
