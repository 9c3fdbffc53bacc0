"""What a plugin that adds HTTP routes needs: the route decorator, tenancy and access checks.

Why apart from :mod:`memorist.plugin_api`: these are the web layer's own helpers, which only
a plugin serving routes from ``configure_app`` uses (the built-in webhooks plugin). A provider
plugin never sees them, and the core API stays free of the web layer (``benchmarks/imports.py``
checks that only this module of the plugin API reaches ``memorist.http``).

Each name is imported on first use, as in :mod:`memorist.plugin_api`; importing this module
imports nothing of the web layer yet. A route with the platform's access rules::

    from memorist.plugin_api.http import Tenancy, access, operation

    class Things:
        def __init__(self, tenancy: Tenancy) -> None:
            self._tenancy = tenancy

        @operation("List the project's things", auth="platform", tags=("things",), errors=(403, 404))
        def on_get(self, req, resp, project_id):
            access(req, self._tenancy, project_id=project_id)  # another tenant's project: 404
            ...

A route that changes a project's resources declares the role it needs on the decorator
(``@operation(..., role="OWNER")``); ``access`` then refuses a READER with 403.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._published import Published

# The published names, the one list (see memorist.plugin_api).
if TYPE_CHECKING:
    from ..config.settings import LimitsSettings as LimitsSettings
    from ..http.declaration import operation as operation
    from ..http.platform.access import Access as Access
    from ..http.platform.access import access as access
    from ..tenancy import ProjectError as ProjectError
    from ..tenancy import Tenancy as Tenancy

_PUBLISHED = Published(__name__)


def __getattr__(name: str) -> Any:
    return _PUBLISHED.attribute(name)


def __dir__() -> list[str]:
    return _PUBLISHED.dir()
