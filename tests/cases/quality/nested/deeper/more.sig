# A pipeline whose steps live in other files, at other depths.
import "../../everything.sig"

signature tidy(text :string) -> {text :string}

pipeline describe_and_tidy = describe |> tidy
