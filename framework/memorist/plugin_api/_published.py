"""Read a plugin-API module's published names from its one list: its ``if TYPE_CHECKING:`` imports.

Why: the plugin API imports each name on first use (PEP 562), so that loading a plugin to
read its hooks imports nothing it does not use. That used to take three lists kept in step
by hand: the imports type checkers read, the table ``__getattr__`` read, and ``__all__``.
Now the imports are the list (written ``from ..errors import MemoristError as MemoristError``,
the explicit re-export form type checkers honour), and this module derives the other two
from them with :mod:`ast`, once, on the first name a process asks for.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType
from typing import Any


def homes(module: ModuleType) -> dict[str, str]:
    """Published name -> the module it comes from, for every import under ``module``'s
    top-level ``if TYPE_CHECKING:`` block (relative imports resolved against its package)."""
    import ast  # here: a process that asks for no published name never parses anything

    source = _source(module)
    package = module.__package__ or module.__name__.rpartition(".")[0]
    found: dict[str, str] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
            continue
        for statement in node.body:
            if not isinstance(statement, ast.ImportFrom):
                raise ImportError(f"{module.__name__}: only 'from x import y as y' belongs in the published list")
            home = importlib.util.resolve_name("." * statement.level + (statement.module or ""), package)
            for alias in statement.names:
                found[alias.asname or alias.name] = home
    return found


def _source(module: ModuleType) -> str:
    """The module's source: its file, else what its loader has (a zip import). Not the loader
    first: pytest's assertion-rewriting loader, which loads every module of a distribution that
    registers a pytest plugin (memorist does), has no ``get_source``."""
    path = getattr(module, "__file__", None)
    if path and path.endswith(".py"):
        try:
            with open(path, encoding="utf-8") as file:
                return file.read()
        except OSError:
            pass
    loader = getattr(module.__spec__, "loader", None)
    get_source = getattr(loader, "get_source", None)
    source = get_source(module.__name__) if get_source is not None else None
    if source is None:  # pragma: no cover - a bytecode-only install; the API cannot be listed
        raise ImportError(f"{module.__name__}: its source is needed to list the published names")
    return str(source)


class Published:
    """The lazy half of a plugin-API module: its ``__getattr__``, ``__dir__`` and ``__all__``.

    ``always`` are the names the module defines itself (``hookimpl``, ``LazyExports``), listed
    in ``__all__`` beside the imported ones.
    """

    def __init__(self, module_name: str, always: tuple[str, ...] = ()) -> None:
        self.module_name = module_name
        self.always = always
        self._homes: dict[str, str] | None = None

    @property
    def homes(self) -> dict[str, str]:
        """Published name -> home module, read from the module's list on first use."""
        if self._homes is None:
            self._homes = homes(importlib.import_module(self.module_name))
        return self._homes

    def names(self) -> list[str]:
        """``__all__``: every published name, sorted."""
        return sorted({*self.homes, *self.always})

    def attribute(self, name: str) -> Any:
        """The module ``__getattr__``: import ``name`` from its home, then keep it as a plain attribute."""
        if name == "__all__":
            names = self.names()
            vars(importlib.import_module(self.module_name))["__all__"] = names
            return names
        if name in self.homes:
            module = importlib.import_module(self.module_name)
            value = getattr(importlib.import_module(self.homes[name]), name)
            setattr(module, name, value)  # once imported, a plain module attribute
            return value
        raise AttributeError(f"module {self.module_name!r} has no attribute {name!r}")

    def dir(self) -> list[str]:
        """The module ``__dir__``: what it holds now and everything it publishes."""
        return sorted({*vars(importlib.import_module(self.module_name)), *self.names()})
