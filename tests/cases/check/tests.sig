# Test declarations: arguments and expectations are checked against the signature's types.
type Label = "good" | "bad"
type Item = {name :string, price :float @min(0), tags [:string]}

signature rate(text :string @min_length(1), lang :string = "en", hint :string?) -> {
  label Label,
  score :float @min(0) @max(1),
  items [Item],
  extra {...},
  meta :map,
  raw :any,
  note :string?,
  count :int
}

@output(text)
signature shout(text :string) -> :string

@output(ptc_lisp)
signature plan(goal :string) -> {steps [:string]}

tool search(q :string) -> [:string]

# Valid tests: every form of expectation.
@repeat(5)
@min_pass_rate(0.8)
test good = rate(text = "fine") -> valid
test exact = rate(text = "fine", lang = "de", hint = null) -> {
  "label": "good",
  "score": 0.5,
  "items": [],
  "extra": {"k": 1},
  "meta": {},
  "raw": [1],
  "note": null,
  "count": 1
}
test checks = rate(text = "fine") -> {
  label == "good",
  label != "bad",
  label in ["good", "bad"],
  score >= 0.5,
  score < 1,
  len(items) >= 1,
  items[0].name ~ "^[A-Z]",
  items[0].price > 0,
  len(items[0].tags) == 2,
  items[0].tags[1] == "x",
  extra.anything == [1, 2],
  meta.k.deep == 3,
  raw[0].x == true,
  len(note) <= 10,
  note == null,
  len(extra) == 0
}
test scalar = shout(text = "hi") -> "HI"
test scalar_checks = shout(text = "hi") -> {$ ~ "^[A-Z]+$", len($) >= 2, $ in ["HI", "HEY"]}
test len = rate(text = "x") -> valid
test whole = rate(text = "x") -> {len(items) == 2.0, count == 2.0, count in [1.0, 3]}

# Arguments.
test unknown_arg = rate(txt = "fine") -> valid # expect: test-argument, test-argument # help: did you mean `text`?
test twice = rate(text = "a", text = "b") -> valid # expect: test-argument
test wrong_type = rate(text = 3) -> valid # expect: test-argument
test too_short = rate(text = "") -> valid # expect: test-argument
test missing = rate() -> valid # expect: test-argument
test folded = rate(text = "a", la_ng = "x") -> valid # expect: test-argument

# Expectations.
test exact_wrong = rate(text = "a") -> {"label": "great", "score": 0.5} # expect: test-expectation, test-expectation
test exact_range = rate(text = "a") -> {"label": "good", "score": 2, "items": [], "extra": {}, "meta": {}, "raw": 1} # expect: test-expectation
test no_field = rate(text = "a") -> {scor >= 0.5} # expect: test-expectation # help: did you mean `score`?
test deep_no_field = rate(text = "a") -> {items[0].nme == "x"} # expect: test-expectation # help: did you mean `name`?
test not_a_list = rate(text = "a") -> {score[0] == 1} # expect: test-expectation
test never = rate(text = "a") -> {label == "great"} # expect: test-expectation
test out_of_range = rate(text = "a") -> {score == 2} # expect: test-expectation
test in_not_list = rate(text = "a") -> {label in "good"} # expect: test-expectation
test in_empty = rate(text = "a") -> {label in []} # expect: test-expectation
test not_whole = rate(text = "a") -> {count == 2.5} # expect: test-expectation
test in_never = rate(text = "a") -> {label in ["good", "great"]} # expect: test-expectation
test order_string = rate(text = "a") -> {label < 3} # expect: test-expectation
test order_value = rate(text = "a") -> {score < "high"} # expect: test-expectation
test match_number = rate(text = "a") -> {score ~ "1"} # expect: test-expectation
test match_value = rate(text = "a") -> {note ~ 1} # expect: test-expectation
test bad_pattern = rate(text = "a") -> {note ~ "(unclosed"} # expect: test-expectation
test len_number = rate(text = "a") -> {len(score) == 1} # expect: test-expectation
test len_negative = rate(text = "a") -> {len(items) >= -1} # expect: test-expectation
test len_float = rate(text = "a") -> {len(items) >= 1.5} # expect: test-expectation
test scalar_field = shout(text = "a") -> {name == "x"} # expect: test-expectation
test scalar_exact = shout(text = "a") -> 3 # expect: test-expectation
test lisp = plan(goal = "a") -> valid # expect: test-expectation
test a_tool = search(q = "a") -> valid # expect: unknown-signature
test nothing = nowhere() -> valid # expect: unknown-signature
test call = rate(text = "a") -> {size(items) == 1} # expect: syntax-error

# Attributes and names.
@repeat(0) # expect: invalid-attribute-argument
test zero = rate(text = "a") -> valid
@min_pass_rate(1.5) # expect: invalid-attribute-argument
test over = rate(text = "a") -> valid
@max_turns(2) # expect: misplaced-attribute
test misplaced = rate(text = "a") -> valid
test good = rate(text = "again") -> valid # expect: duplicate-declaration
test rate = rate(text = "a") -> valid

# `test`, `valid`, `in` and `len` stay usable as names.
type test = {test :int, valid :string, in :int, len :int}
signature valid(in :int) -> test
test test = valid(in = 1) -> {test == 1, valid == "x", in >= 0, len >= 0, len(valid) == 1}
