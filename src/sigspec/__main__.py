"""`python -m sigspec` runs the command-line interface."""

from sigspec.cli import main

main()
