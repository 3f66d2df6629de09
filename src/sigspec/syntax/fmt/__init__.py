"""`sigspec fmt`: the canonical layout of .sig files."""
