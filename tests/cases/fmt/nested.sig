signature deep() -> {outer {inner {leaf_one :string "The first leaf of the tree", leaf_two :int "The second leaf of the tree"}}, tail [:string]}
# output
signature deep() -> {
  outer {
    inner {
      leaf_one :string "The first leaf of the tree",
      leaf_two :int "The second leaf of the tree"
    }
  },
  tail [:string]
}
