"""``/docs``: the Swagger UI explorer, with its assets served from this server (no network)."""

from __future__ import annotations

import mimetypes
from pathlib import Path

import falcon
import swagger_ui

#: Swagger UI 5 (renders OpenAPI 3.1, which pydantic v2 schemas are) from the swagger-ui-py package.
ASSETS = Path(swagger_ui.__file__).resolve().parent / "static"
ALLOWED = frozenset(p.name for p in ASSETS.iterdir() if p.name.startswith("swagger-ui") or p.suffix == ".png")
PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Memorist API</title>
  <link rel="stylesheet" href="/docs/static/swagger-ui.css">
  <link rel="icon" href="/docs/static/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/static/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: "/openapi.json",
      dom_id: "#swagger-ui",
      deepLinking: true,
      persistAuthorization: true,
      tryItOutEnabled: true
    });
  </script>
</body>
</html>
"""


class DocsPage:
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.content_type = falcon.MEDIA_HTML
        resp.text = PAGE


class DocsAsset:
    def on_get(self, req: falcon.Request, resp: falcon.Response, name: str) -> None:
        if name not in ALLOWED:  # a fixed list: no path traversal
            raise falcon.HTTPNotFound(description=f"no asset '{name}'")
        resp.content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
        resp.cache_control = ["public", "max-age=86400"]
        resp.data = (ASSETS / name).read_bytes()
