# Names that clash with what a generated module binds: builtins its annotations use, the names
# it imports, keywords, and a param too long for a line.

signature Spec(x :string) -> {ok :bool}

signature JsonObject(x :string) -> {ok :bool}

signature list(str :string, dict :map = {"a": 1}, tags [:string]? = ["x"]) -> {ok :bool}

signature pick(none ("aaaaaaaaaaaaaaa" | "bbbbbbbbbbbbbbbbbbbb" | "cccccccccccccccccccc" | "dddddddddddddddddddd" | "eeeeeeeeeeeeeeeeeee")) -> {ok :bool}

signature long_names(a_parameter_whose_name_is_long_enough_to_push_its_annotation_past_the_edge :string @pattern("^[a-z]+$")) -> {
  a_field_whose_name_is_long_enough_to_push_its_annotation_past_the_line_edge :string @pattern("^[a-z]+$")
}
