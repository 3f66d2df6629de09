# Types shared by several example files through `import "common.sig"`.

## The sentiment of a product review.
type Sentiment = "positive" | "negative" | "neutral"

## How urgent a piece of work is, from 1 (now) to 5 (whenever).
type Priority = 1 | 2 | 3 | 4 | 5

## A web page found by a search.
type Source = {
  title :string "The page title",
  url :string @format("uri") "Absolute URL of the page"
}
