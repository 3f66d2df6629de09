import "a.sig"
import   "b.sig"
## Doc for T.
type T={a:int,b [:string]}
@output(json)  @max_turns(3)
signature   f( x :string ,y:int=3 @min(1) "why" )->{ok :bool}
signature long(first_parameter :string "A long description that pushes the line past the limit") -> {a :int}
pipeline p=f|>g
# output
import "a.sig"
import "b.sig"

## Doc for T.
type T = {a :int, b [:string]}

@output(json)
@max_turns(3)
signature f(x :string, y :int = 3 @min(1) "why") -> {ok :bool}

signature long(
  first_parameter :string "A long description that pushes the line past the limit"
) -> {a :int}

pipeline p = f |> g
