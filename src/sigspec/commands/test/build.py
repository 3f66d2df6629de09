"""The tests' client: the project's Python target compiled into a private folder (never the
user's output folder) and imported under a package name of its own, so that a package of
the same name the user has installed is neither used nor shadowed."""

from __future__ import annotations

import contextlib
import importlib
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from sigspec.semantics import ir


class BuildError(RuntimeError):
    """The Python target could not be compiled (its diagnostics are in the message)."""


@dataclass(frozen=True, slots=True)
class Client:
    """The imported package: its name and runtime modules."""

    package: str
    runtime: Mapping[str, ModuleType]  # `_client`, `_transport`, `_adapters` by name

    def function(self, signature: ir.Signature) -> Callable[..., Any]:
        """The sync client function of `signature`, found by the compiler's own names."""
        from sigspec.lower.names import module_path
        from sigspec.lower.names.python import function_name

        source = signature.origin.source.path if signature.origin else ""
        module = importlib.import_module(f"{self.package}.client.{'.'.join(module_path(source))}")
        found: Callable[..., Any] = getattr(module, function_name(signature.name))
        return found

    def parser(self, function: Callable[..., Any]) -> Callable[[str], Any] | None:
        """The generated `parse_NAME` behind a client function (the reply parser and
        validator it calls), found through the function's own `Spec`; None for a function
        without one."""
        spec_type = self.runtime["_client"].Spec
        module = sys.modules[function.__module__]
        for value in vars(module).values():
            if isinstance(value, spec_type) and value.function == function.__name__:
                validators = importlib.import_module(f"{self.package}.{value.module}")
                found: Callable[[str], Any] = getattr(validators, f"parse_{value.key}")
                return found
        return None


def kwargs(signature: ir.Signature, args: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    """A test's arguments as the client function's keyword arguments."""
    from sigspec.lower.names.python import kwarg

    return {kwarg(name): value for name, value in args}


@contextlib.contextmanager
def built(project: ir.Project, options: Mapping[str, Any]) -> Iterator[Client]:
    """The project's Python package, compiled into a temporary folder and imported; removed
    from `sys.modules` and `sys.path` (and the folder deleted) on exit."""
    from sigspec.compiler.generate import compile_project
    from sigspec.infra.cache import user_cache

    package = f"_sigspec_test_{uuid.uuid4().hex}"
    table = {**options, "package": package}
    result = compile_project(
        project, ["python"], {"python": table}, inputs={}, memo=user_cache().memo
    )
    if not result.ok:
        shown = "; ".join(d.message for d in result.diagnostics if d.is_error)
        raise BuildError(f"the Python client could not be compiled: {shown}")
    with tempfile.TemporaryDirectory(prefix="sigspec-test-") as folder:
        base = Path(folder)
        for artifact in result.files:
            if artifact.path.startswith("python/"):
                target = base / artifact.path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(artifact.text, encoding="utf-8")
        root = str(base / "python")
        sys.path.insert(0, root)
        before = sys.dont_write_bytecode
        sys.dont_write_bytecode = True
        try:
            importlib.invalidate_caches()
            runtime = {
                name: importlib.import_module(f"{package}.{name}")
                for name in ("_client", "_transport", "_adapters")
            }
            yield Client(package, runtime)
        finally:
            sys.dont_write_bytecode = before
            sys.path.remove(root)
            for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
                del sys.modules[name]
