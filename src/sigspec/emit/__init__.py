"""Emitters: the IR to files. The registry of targets is `sigspec.emit.registry`."""
