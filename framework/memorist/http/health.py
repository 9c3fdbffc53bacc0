"""``GET /health``: open, cheap, and enough to tell what a node is running."""

from __future__ import annotations

import falcon

from .. import __version__
from ..components import Components


class HealthResource:
    def __init__(self, components: Components) -> None:
        self._components = components

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = {
            "status": "ok",
            "version": __version__,
            "components": self._components.describe(),
        }
