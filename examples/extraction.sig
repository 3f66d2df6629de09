# Entity extraction with nested lists, and an invoice with an enum and dates.

## Extract the products mentioned in an article.
@prompt("""
Extract every product mentioned in the article below, with its price and tags.

{{article}}
""")
signature extract_products(article :string) -> {
  products [{
    name :string "Product name as written in the text",
    price :float? @min(0) "Price in the article's currency, if stated",
    tags [:string] = [] @max_items(10) "Short lowercase tags"
  }],
  main_topic :string "The article's main topic in a few words"
}

## Read the fields of an invoice.
@prompt("Read this invoice:\n{{document}}")
@max_turns(4)
signature read_invoice(document :string) -> {
  invoice_number :string @pattern("^[A-Z0-9-]+$"),
  issue_date :string @format("date"),
  currency "USD" | "EUR" | "GBP",
  line_items [{description :string, quantity :int @min(1), unit_price :float, total :float}] @min_items(1),
  due_date :string? @format("date"),
  total :float
}

## Two products named in the text come back with their prices.
test two_products = extract_products(
  article = "The Acme Kettle costs 30 dollars and the Acme Toaster costs 45 dollars."
) -> {len(products) >= 2, products[0].name ~ "^Acme ", products[0].price > 0}
