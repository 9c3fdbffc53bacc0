"""LanceDB's generated REST namespace client, imported only if something uses it.

``import lancedb`` imports ``lance_namespace``, which imports its generated urllib3
client ``lance_namespace_urllib3_client``; that package's ``__init__`` eagerly imports
every REST API class (``BranchApi``, ``TableApi``...) and their request models. The
embedded store talks to a directory, never to a namespace server, yet each process that
opens it paid for them: about half of ``import lancedb`` (~0.55 of ~1.1 s here), in
every ``memorist serve`` worker, CLI command and MCP stdio server (docs/startup.md names
``import lancedb`` as what holds ``Memory()`` and ``serve`` back).

:func:`defer_namespace_client` registers the package without running its ``__init__``
(PEP 451: a module from the package's own spec, so ``__path__`` is set and submodules such
as ``.models``, which ``lance_namespace`` does import, load as usual). The first access to
any other name of the package (``ApiClient``, ``TableApi``, ``__all__``...) runs the real
``__init__`` then (PEP 562 ``__getattr__``), so code that needs the client still gets all
of it. If the package is absent or already imported, nothing changes.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from typing import Any

#: The generated client whose package ``__init__`` imports every API class.
CLIENT_PACKAGE = "lance_namespace_urllib3_client"

_lock = threading.RLock()


def defer_namespace_client() -> None:
    """Register :data:`CLIENT_PACKAGE` with its ``__init__`` deferred; call before ``import lancedb``."""
    with _lock:
        if CLIENT_PACKAGE in sys.modules:
            return
        spec = importlib.util.find_spec(CLIENT_PACKAGE)
        if spec is None or spec.loader is None or spec.submodule_search_locations is None:
            return
        package = importlib.util.module_from_spec(spec)
        loader = spec.loader

        def complete(name: str) -> Any:
            """A submodule is imported as itself; any other name runs the package's ``__init__`` first."""
            if not name.startswith("__") and importlib.util.find_spec(f"{CLIENT_PACKAGE}.{name}") is not None:
                return importlib.import_module(f"{CLIENT_PACKAGE}.{name}")
            with _lock:
                if package.__dict__.pop("__getattr__", None) is not None:
                    loader.exec_module(package)
            try:
                return package.__dict__[name]
            except KeyError:
                raise AttributeError(f"module {CLIENT_PACKAGE!r} has no attribute {name!r}") from None

        package.__getattr__ = complete  # type: ignore[method-assign]
        sys.modules[CLIENT_PACKAGE] = package
