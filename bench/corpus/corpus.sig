# Signatures of the sample reply corpus (bench/corpus/replies.jsonl, bench/accuracy.py).

signature classify(text :string) -> {
  sentiment "positive" | "negative" | "neutral",
  score :float @min(0) @max(1)
}

signature extract(text :string) -> {
  products [{name :string, price :float, tags [:string] = []}],
  currency :string?
}

signature agent_step(task :string) -> {
  thought :string = "",
  action "search" | "answer",
  query :string?,
  answer :string?,
  confidence :float = 0.5 @min(0) @max(1)
}

signature count(text :string) -> :int

signature labels(text :string) -> [:string]
