@prompt("{{a}}")
signature one(a :int, b :int) -> :int # sigspec: ignore[unused-param] b is for a later prompt

# sigspec: ignore[unused-param, unknown-type] both are known here
@prompt("{{a}}")
signature two(a :int, b :int) -> {x Missing}

signature three() -> {x Missing} # sigspec: ignore[unused-param] wrong code # expect: unknown-type, unused-suppression
signature four() -> :int # sigspec: ignore[no-such-code] a typo # expect: invalid-suppression
signature six() -> :int # sigspec: ignore[provider-loss] only compile judges provider codes
signature seven() -> :int # sigspec: ignore[import-renamed] only import reports it # expect: invalid-suppression
