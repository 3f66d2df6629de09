type Tree = {value :int, children [Tree]}
type Chain = {value :int, next Chain?}
type Json = :string | :float | :bool | null | [Json] | {...}
type Loop = {next Loop} # expect: infinite-type
type A = B # expect: infinite-type
type B = A # expect: infinite-type

signature walk(t Tree) -> Chain
type Maybe = Maybe? # expect: unguarded-recursion
type Ping = Pong | :int # expect: unguarded-recursion
type Pong = Ping? # expect: unguarded-recursion
