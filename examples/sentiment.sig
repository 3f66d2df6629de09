# Classify a review into a fixed set of labels with a confidence score.
import "common.sig"

## Classify the sentiment of a product review.
@output(json)
@prompt("Classify the sentiment of this product review:\n\n{{text}}")
@max_turns(3)
signature classify(text :string @min_length(1) "The review text") -> {
  sentiment Sentiment "One of: positive, negative, neutral",
  score :float @min(0) @max(1) "Confidence between 0.0 and 1.0"
}

## Decide what support should do about a classified review.
@prompt("A review was classified as {{sentiment}} (confidence {{score}}). Choose the follow-up.")
signature act_on_sentiment(sentiment Sentiment, score :float) -> {
  action ("thank" | "escalate" | "ignore") "What support does next",
  priority Priority = 3,
  note :string? "A short reason for a human reader"
}

## Classify a review, then decide the follow-up.
pipeline triage = classify |> act_on_sentiment

## A review that leaves no doubt. A small model may still waver: 4 runs of 5 must pass.
@repeat(5)
@min_pass_rate(0.8)
test clearly_positive = classify(text = "I love it. Best purchase I have made all year!") -> {
  sentiment == "positive",
  score >= 0.5
}

## Any valid classification passes: the reply parses and fits the types.
test any_review = classify(text = "It arrived on Tuesday in a brown box.") -> valid
