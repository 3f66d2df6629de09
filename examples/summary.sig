# Text mode returns the model's reply as-is, without parsing or retries.

## Summarise a document for a given audience.
@output(text)
@system("You write clear, faithful summaries. Never invent facts.")
@prompt("""
Summarise the following for {{audience}} in at most {{max_words}} words.
{{#focus}}Focus on: {{.}}
{{/focus}}
{{document}}
""")
signature summarize(
  document :string,
  audience :string = "a general reader",
  max_words :int = 150 @min(20),
  focus [:string] = []
) -> :string

## A short summary: text mode returns the reply as it came, so the test measures it.
test short_summary = summarize(
  document = "The city council voted on Monday to build a new library near the river.",
  max_words = 20
) -> {len($) >= 10, len($) <= 400}
