"""The whole app in the test's own process, spoken to through ordinary HTTP clients.

Why: a route test needs the real app -- real settings, plugins, database,
LanceDB files, auth and error handlers -- but not a gunicorn process, whose
start alone costs seconds and whose requests cost a socket round trip and a
second process's CPU. :class:`AppServer` builds the kernel and the app exactly
as each ``memorist serve`` worker does (``Kernel.build``, ``create_app(kernel)``)
and answers through :class:`falcon.testing.TestClient`;
its ``request``/``get``/``post`` and ``session`` (a ``requests.Session``),
``httpx_client()`` and ``async_httpx_client()`` (for clients built on httpx,
like the platform client) all reach that same app, so a test written against
:class:`~memorist.testing.server.Server` runs unchanged in process.

A browser needs a socket: :meth:`AppServer.listen` serves the same app on a
loopback port from a thread (the standard library's WSGI server), with no
second process.

What it cannot show, and what stays on a real server: gunicorn's worker model
and timeouts, request-line limits, chunked or lying bodies on a raw socket,
crashes and restarts of a process, several nodes.
"""

from __future__ import annotations

import io
import logging
import os
import socketserver
import threading
import urllib.parse
import wsgiref.simple_server
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import falcon
import falcon.testing
import requests
import requests.adapters
import requests.structures
import requests.utils

from .net import free_port
from .server import test_environment

if TYPE_CHECKING:
    from ..kernel.core import Kernel

#: Where in-process apps "listen": a name that resolves nowhere, so nothing can leave the process by accident.
DEFAULT_URL = "http://memorist.test"
#: Request headers the transport computes itself (falcon's simulated server sets the length from the body).
_HOP_BY_HOP = {"content-length", "transfer-encoding", "connection", "keep-alive"}


@contextmanager
def environment(env: Mapping[str, str]) -> Iterator[None]:
    """``os.environ`` is exactly ``env`` inside the block (settings and plugins read it when the app is built)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


class _LogBuffer(logging.Handler):
    """Collects the ``memorist`` log records of one app, as a server's output would show them."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []
        self.setFormatter(logging.Formatter("[%(levelname)s] %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


class _ThreadingWSGIServer(socketserver.ThreadingMixIn, wsgiref.simple_server.WSGIServer):
    daemon_threads = True


class _QuietHandler(wsgiref.simple_server.WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's parameter name
        """No access log on stderr (the app logs what matters)."""


class AppServer:
    """The app of ``data_dir`` in this process; same client-side API as :class:`~memorist.testing.server.Server`.

    ``env`` adds to (or, with ``None`` values, removes from) the test
    environment of :func:`~memorist.testing.server.test_environment`: the
    hashing embedder and the kit's secrets. ``plugins`` are plugin objects
    registered besides the installed ones (like ``load_plugins(extra=...)``).
    """

    def __init__(
        self,
        data_dir: Path,
        env: Mapping[str, str | None] | None = None,
        *,
        plugins: Iterable[object] = (),
        url: str = DEFAULT_URL,
    ) -> None:
        self.data_dir = data_dir
        self.env = test_environment(data_dir, env)
        self.url = url.rstrip("/")
        self._extra = list(plugins)
        self.app: falcon.App[Any, Any] | None = None
        self.client: falcon.testing.TestClient | None = None
        self.kernel: Kernel | None = None
        self._logs = _LogBuffer()
        self._http: wsgiref.simple_server.WSGIServer | None = None
        self.session = requests.Session()
        self.session.trust_env = False
        self.session.mount(self.url, WSGIAdapter(self))

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> AppServer:
        """Build the app as ``memorist serve`` would in each worker: settings and plugins from ``env``."""
        from ..config.settings import load_settings
        from ..http import create_app
        from ..kernel.core import Kernel
        from ..plugin.manager import load_plugins

        self.data_dir.mkdir(parents=True, exist_ok=True)
        logger = logging.getLogger("memorist")
        logger.addHandler(self._logs)
        if logger.level == logging.NOTSET or logger.level > logging.INFO:
            logger.setLevel(logging.INFO)
        with environment(self.env):
            self.kernel = Kernel.build(load_settings(), load_plugins(extra=self._extra))
            self.app = create_app(self.kernel)
        self.client = falcon.testing.TestClient(self.app)
        return self

    def stop(self) -> None:
        """Stop the kernel's threads (queue workers, configuration watcher), release its store and database."""
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None
        kernel, self.kernel = self.kernel, None
        logging.getLogger("memorist").removeHandler(self._logs)
        if kernel is not None:
            kernel.close()

    def listen(self) -> str:
        """Serve this app on a free 127.0.0.1 port from a thread until :meth:`stop`; returns its base URL.

        For clients that need a real socket (a browser). One request at a
        time per connection thread, like a sync gunicorn worker.
        """
        if self.app is None:
            raise RuntimeError("AppServer.start() was not called")
        if self._http is None:
            self._http = wsgiref.simple_server.make_server(
                "127.0.0.1", free_port(), self.app, server_class=_ThreadingWSGIServer, handler_class=_QuietHandler
            )
            threading.Thread(target=self._http.serve_forever, name="memorist-test-http", daemon=True).start()
        return f"http://127.0.0.1:{self._http.server_port}"

    def listening(self) -> AppServer:
        """:meth:`listen`, and :attr:`url` becomes the socket's address (call after :meth:`start`).

        For a browser test: the page and the test's own calls then name one server,
        as with a real ``memorist serve``; the test's calls still reach the app in process.
        """
        self.url = self.listen()
        self.session.mount(self.url, WSGIAdapter(self))
        return self

    def __enter__(self) -> AppServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def output(self) -> str:
        """The ``memorist`` log lines this app wrote (what a server process would have printed)."""
        return "\n".join(self._logs.lines)

    # -- client side ------------------------------------------------------------------------
    def request(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", 30)
        return self.session.request(method, f"{self.url}{path}", **kwargs)

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> requests.Response:
        return self.request("POST", path, **kwargs)

    def simulate(self, method: str, url: str, headers: Mapping[str, str], body: bytes | None) -> falcon.testing.Result:
        """One request through the TestClient; ``url`` is absolute (its host and port reach the app)."""
        if self.client is None:
            raise RuntimeError("AppServer.start() was not called (or the app was stopped)")
        parts = urllib.parse.urlsplit(url)
        return self.client.simulate_request(
            method,
            parts.path or "/",
            query_string=parts.query or None,
            headers={k: v for k, v in headers.items() if k.lower() not in _HOP_BY_HOP},
            body=body or None,
            protocol=parts.scheme or "http",
            host=parts.hostname or "memorist.test",
            port=parts.port,
            remote_addr="127.0.0.1",
        )

    @contextmanager
    def serving_requests(self) -> Iterator[AppServer]:
        """Inside the block, every ``requests`` call to this app's URL reaches it (``requests.get`` too).

        For client libraries that make their own ``requests`` calls and take no
        session; URLs of other hosts go out as usual.
        """
        original = requests.Session.get_adapter
        adapter = WSGIAdapter(self)
        prefix = self.url.lower()

        def get_adapter(session: requests.Session, url: str) -> requests.adapters.BaseAdapter:
            if url.lower().startswith(prefix):
                return adapter
            return original(session, url)

        requests.Session.get_adapter = get_adapter  # type: ignore[method-assign,assignment]
        try:
            yield self
        finally:
            requests.Session.get_adapter = original  # type: ignore[method-assign]

    def httpx_client(self, **kwargs: Any) -> Any:
        """An ``httpx.Client`` whose requests reach this app (pass it to clients that accept one)."""
        import httpx

        from ._httpx import SyncTransport

        return httpx.Client(transport=SyncTransport(self), base_url=self.url, **kwargs)

    def async_httpx_client(self, **kwargs: Any) -> Any:
        """An ``httpx.AsyncClient`` whose requests reach this app."""
        import httpx

        from ._httpx import AsyncTransport

        return httpx.AsyncClient(transport=AsyncTransport(self), base_url=self.url, **kwargs)


def body_bytes(body: Any) -> bytes | None:
    """A request body as bytes: ``requests`` hands over bytes, text, a file or an iterable of chunks."""
    if body is None:
        return None
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode("utf-8")
    if hasattr(body, "read"):
        data = body.read()
        return data.encode("utf-8") if isinstance(data, str) else bytes(data)
    return b"".join(chunk.encode("utf-8") if isinstance(chunk, str) else bytes(chunk) for chunk in body)


class WSGIAdapter(requests.adapters.BaseAdapter):
    """A ``requests`` transport that hands each request to an :class:`AppServer` instead of a socket."""

    def __init__(self, server: AppServer) -> None:
        super().__init__()
        self._server = server

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> requests.Response:
        headers = {k: v.decode("latin-1") if isinstance(v, bytes) else v for k, v in request.headers.items()}
        result = self._server.simulate(request.method or "GET", request.url or "/", headers, body_bytes(request.body))
        response = requests.Response()
        response.status_code = result.status_code
        response.reason = result.status.split(" ", 1)[1] if " " in result.status else ""
        response.headers = requests.structures.CaseInsensitiveDict(result.headers)
        response._content = result.content
        response.raw = io.BytesIO(result.content)
        response.url = request.url or ""
        response.request = request
        response.encoding = requests.utils.get_encoding_from_headers(response.headers)
        response.connection = self  # type: ignore[assignment]  # requests only calls .close() on it
        return response

    def close(self) -> None:
        """Nothing to release: there is no connection."""
