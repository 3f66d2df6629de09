@prompt("Classify {{text}}")
signature ok(text :string) -> {a :int}

@prompt("Classify {{txt}}") # expect: unknown-prompt-variable
signature unknown(text :string) -> {a :int}

@prompt("Classify {{text}}")
signature unused(text :string, lang :string) -> {a :int} # expect: unused-param

@output(ptc_lisp)
@prompt("Classify {{text}}")
signature lisp_unused(text :string, lang :string) -> {a :int}

@prompt("{{#items}}{{name}}: {{price}}{{/items}}")
signature sections(items [{name :string, price :float}]) -> :string

@prompt("{{#items}}{{title}}{{/items}}") # expect: section-field-missing
signature missing_field(items [{name :string}]) -> :string

@prompt("{{#tags}}{{.}}, {{/tags}}")
signature scalars(tags [:string]) -> :string

@prompt("{{#items}}{{.}}{{/items}}") # expect: dot-over-non-scalar
signature dot_maps(items [{name :string}]) -> :string

@prompt("{{#items}}{{name}}") # expect: invalid-prompt-template
signature unclosed(items [{name :string}]) -> :string

@prompt("{{user.name}} {{#user.tags}}{{.}}{{/user.tags}}")
signature dotted(user {name :string, tags [:string]}) -> :string

@prompt("{{#verbose}}Explain.{{/verbose}}{{^verbose}}Be brief.{{/verbose}} {{q}}")
signature conditional(q :string, verbose :bool) -> :string

@system("You answer in {{lang}}.")
@prompt("{{q}}")
signature system_uses(q :string, lang :string) -> :string

@prompt("{{! a comment }}{{{raw}}} {{&amp}}")
signature raw_tags(raw :string, amp :string) -> :string

@prompt("""
Items:
{{#items}}{{name}} # expect: invalid-prompt-template
""")
signature unclosed_late(items [{name :string}]) -> :string

@prompt("Say \"hi\" to {{nme}}, caf\u00e9 \ud83d\ude00") # expect: unknown-prompt-variable # help: did you mean `name`?
signature escaped(name :string) -> :string
