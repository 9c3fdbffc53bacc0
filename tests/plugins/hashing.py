"""A throwaway plugin used as a test fixture: the test kit's hashing embedder plus a route.

The embedder is :mod:`memorist.testing.hashing` (one copy, shipped for plugin
authors too); the ``configure_app`` hook adds a route, proving plugins extend
the app through the same door.
"""

from __future__ import annotations

from typing import Any

import falcon
from memorist.plugin.hookspecs import hookimpl
from memorist.testing.hashing import HashingEmbedder, register_embedders

__all__ = ["HashingEmbedder", "configure_app", "register_embedders"]


class PingResource:
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = {"pong": True}


@hookimpl
def configure_app(app: falcon.App, context: Any) -> None:
    app.add_route("/test-plugin/ping", PingResource())
