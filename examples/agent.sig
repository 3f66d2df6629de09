# One step of a recursive agent. Every field has a safe default, so a reply with
# a bad or missing field still yields a usable step instead of failing the whole run.

## A smaller piece of work the agent wants to recurse into.
type SubTask = {query :string, priority :int = 999}

## One step of a recursive agent; never fails on a bad field.
@prompt("{{query}}")
signature agent_step(query :string "What the agent should work on") -> {
  reasoning :string = "" "Step-by-step thinking",
  conclusion :string "Final answer or summary",
  confidence :float = 0.8 @clamp(0, 1) "How sure the agent is, 0.0 to 1.0",
  files [:string] = [] "Relevant file paths",
  sub_tasks [SubTask] = [] "Explicit recursion hints",
  needs_more_info :bool = false "True if the agent is stuck",
  next_action ("continue" | "finalize" | "ask_user") = "finalize" @fallback,
  error :string?
}
