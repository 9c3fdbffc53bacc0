"""``/docs``: the Swagger UI explorer, with its assets served from this server (no network).

The page can do anything its user is allowed to (``POST /reset`` is one click), so
no other site may frame it (``frame-ancestors 'none'``, ``X-Frame-Options: DENY``:
a framing page could trick that click), its Content-Security-Policy lets only this
server's scripts (and the page's own start-up script, by hash) run, and a
credential typed into *Authorize* lives only as long as the tab (Swagger UI's
``persistAuthorization`` would keep it in ``localStorage`` for any script of this
origin to read, long after the tab is closed).
"""

from __future__ import annotations

import base64
import hashlib
import mimetypes
from pathlib import Path

import falcon
import swagger_ui

#: Swagger UI 5 (renders OpenAPI 3.1, which pydantic v2 schemas are) from the swagger-ui-py package.
ASSETS = Path(swagger_ui.__file__).resolve().parent / "static"
ALLOWED = frozenset(p.name for p in ASSETS.iterdir() if p.name.startswith("swagger-ui") or p.suffix == ".png")
#: The page's one inline script, allowed by its hash in the Content-Security-Policy.
INIT_SCRIPT = """
    window.ui = SwaggerUIBundle({
      url: "/openapi.json",
      dom_id: "#swagger-ui",
      deepLinking: true,
      persistAuthorization: false,
      tryItOutEnabled: true
    });
  """
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
  <script>__INIT__</script>
</body>
</html>
""".replace("__INIT__", INIT_SCRIPT)
_INIT_HASH = base64.b64encode(hashlib.sha256(INIT_SCRIPT.encode("utf-8")).digest()).decode("ascii")
CSP = "; ".join(
    [
        "default-src 'none'",
        f"script-src 'self' 'sha256-{_INIT_HASH}'",
        "style-src 'self' 'unsafe-inline'",  # Swagger UI (React) sets style attributes
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class DocsPage:
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.content_type = falcon.MEDIA_HTML
        resp.set_headers(SECURITY_HEADERS)
        resp.text = PAGE


class DocsAsset:
    def on_get(self, req: falcon.Request, resp: falcon.Response, name: str) -> None:
        if name not in ALLOWED:  # a fixed list: no path traversal
            raise falcon.HTTPNotFound(description=f"no asset '{name}'")
        resp.content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
        resp.cache_control = ["public", "max-age=86400"]
        resp.set_headers(SECURITY_HEADERS)
        resp.data = (ASSETS / name).read_bytes()
