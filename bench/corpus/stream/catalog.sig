# bench/stream_partial.py: the streamed answer. The same output is written in BAML in
# catalog.baml; the bench builds replies of 1 KB to 100 KB by the number of items.

## Read a shop's catalogue page.
@prompt("Read the catalogue on this page:\n{{page}}")
signature read_catalog(page :string) -> {
  title :string "The page's title",
  summary :string "What the page offers, in a few sentences",
  currency "USD" | "EUR" | "GBP",
  rating :float @min(0) @max(5) "The shop's average rating",
  items [{
    name :string "Product name as written on the page",
    description :string,
    category "electronics" | "kitchen" | "garden" | "toys" | "books",
    price :float? @min(0) "Price, if stated",
    quantity :int @min(0),
    in_stock :bool,
    tags [:string] "Short lowercase tags"
  }]
}
