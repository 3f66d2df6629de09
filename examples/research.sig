# A top-level list output, and a ptc_lisp program that orchestrates tools.
import "common.sig"

## Search the web; the runtime implements it, the model calls it.
tool search(query :string "Search terms", limit :int = 10 @min(1) @max(50)) -> [Source]

## Rank search results for a query.
@prompt("""
Rank these results for "{{query}}":
{{#results}}
- {{title}} ({{url}})
{{/results}}
""")
signature rank_results(query :string, results [Source]) -> [{
  title :string,
  url :string,
  score :float @clamp(0, 1) "Relevance from 0.0 to 1.0"
}]

## Research a topic by writing a program that calls the search tool.
@output(ptc_lisp)
@tools(search)
@max_turns(8)
signature research(topic :string) -> {summary :string, sources [Source] @max_items(20)}
