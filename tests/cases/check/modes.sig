tool search(q :string) -> [:string]

@tools(search) # expect: tools-not-allowed
signature json_with_tools() -> {a :int}

@compression # expect: compression-not-allowed
signature json_compressed() -> {a :int}

signature firewall() -> {ok :int, nested {_hidden :string}} # expect: firewall-field

@output(ptc_lisp)
signature lisp_firewall() -> {_hidden :string}

@output(text)
signature structured_text() -> {a :int} # expect: text-output-ignored

@output(text)
@tools(search) # expect: tools-not-allowed
signature text_tools() -> :string

@output(ptc_lisp)
@tools(search, serch) # expect: unknown-tool
signature lisp_tools() -> :string

@output(yaml) # expect: invalid-attribute-argument
signature bad_mode() -> :string

@max_turns(0) # expect: invalid-attribute-argument
signature bad_turns() -> :string

@min(1) # expect: misplaced-attribute
type T = :int

@prompt("x") # expect: misplaced-attribute
tool t2(q :string) -> :string
