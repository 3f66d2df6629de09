signature rate(text :string, lang :string = "en") -> {label "good" | "bad", score :float, items [{name :string}]}
## Doc for the test.
@repeat( 3 )  @min_pass_rate(0.5)
test   one=rate( text="a" ,lang = "de" )->{label=="good",score>=0.5 , len( items )>0, items[ 0 ].name~"^A", $.score in [0.5,1]}
test two = rate(text = "a") -> valid
test three = rate(text = "a") -> {"label": "good", "score": 1, "items": []}
test four = rate(
  text = "a", # the text
  # the language
  lang = "x"
) -> {
  label == "bad", # trailing
  # leading
  score < 0.1
  # dangling
}
test five = rate(text = "a very long text that goes on and on and on and on and on and on and on") -> {label == "good", score >= 0.25}
# output
signature rate(text :string, lang :string = "en") -> {
  label "good" | "bad",
  score :float,
  items [{name :string}]
}

## Doc for the test.
@repeat(3)
@min_pass_rate(0.5)
test one = rate(text = "a", lang = "de") -> {
  label == "good",
  score >= 0.5,
  len(items) > 0,
  items[0].name ~ "^A",
  score in [0.5, 1]
}

test two = rate(text = "a") -> valid
test three = rate(text = "a") -> {"label": "good", "score": 1, "items": []}

test four = rate(
  text = "a", # the text
  # the language
  lang = "x"
) -> {
  label == "bad", # trailing
  # leading
  score < 0.1
  # dangling
}

test five = rate(
  text = "a very long text that goes on and on and on and on and on and on and on"
) -> {label == "good", score >= 0.25}
