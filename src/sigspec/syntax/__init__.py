"""Syntax: text to AST. Nothing from lark leaves this package."""
