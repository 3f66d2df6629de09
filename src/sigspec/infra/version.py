"""sigspec's version: the one place it is written (the build reads it from here too)."""

VERSION = "0.8.0"
