"""The Falcon WSGI application serving both HTTP surfaces.

``create_app`` is imported on first use: plugins import submodules of this
package (``memorist.http.operations``, ``parsing``) while they load, and that
must not build the whole app's import graph (database, migrations, Swagger UI)
for commands that never serve HTTP.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> object:
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(name)
