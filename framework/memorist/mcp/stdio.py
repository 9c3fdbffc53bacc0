"""``memorist mcp``: the MCP server over stdio, for desktop clients.

The client starts this process and talks JSON-RPC over its stdin/stdout, so
the handshake must answer fast: the kernel (database and migrations, the
engine with its embedding model, LanceDB) is built by the composition root
(:class:`memorist.kernel.Kernel`) in a background thread while the handshake
and ``tools/list`` answer at once; the first tool call waits for it. A
failure to build is reported by every tool call as a tool error, not a crash.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from ..errors import MemoristError
from .adapter import MemoryAccess
from .scope import Caller
from .tools import build_server, fixed_caller

if TYPE_CHECKING:
    from ..kernel import Kernel
    from ..operations import Operations
    from ..plugins import Plugins
    from ..settings import Settings

log = logging.getLogger("memorist.mcp")
#: How long an exiting server waits for a kernel build still in progress.
BUILD_WAIT_SECONDS = 120.0


class EngineError(MemoristError):
    """The engine could not be built (reported to every tool call)."""

    status = 503


class LazyKernel:
    """Builds the kernel once, in the background, and hands its operations to whoever waits."""

    def __init__(self, settings: Settings, plugins: Plugins) -> None:
        self._settings = settings
        self._plugins = plugins
        self._ready = threading.Event()
        self._kernel: Kernel | None = None
        self._error: str | None = None
        self._thread = threading.Thread(target=self._build, name="memorist-mcp-engine", daemon=True)

    def start(self) -> LazyKernel:
        self._thread.start()
        return self

    def _build(self) -> None:
        from ..kernel import Kernel

        try:
            self._kernel = Kernel.build(self._settings, self._plugins)
        except MemoristError as exc:
            self._error = exc.message
        except Exception as exc:  # reported to the client, logged in full on stderr
            log.exception("could not start the memory engine")
            self._error = f"{type(exc).__name__}: {exc}"
        finally:
            self._ready.set()

    def __call__(self) -> Operations:
        self._ready.wait()
        if self._kernel is None:
            raise EngineError(f"the memory engine could not start: {self._error}")
        return self._kernel.operations

    def close(self) -> None:
        """Wait (bounded) for a build still running, so a client that quits at once never
        interrupts the first start's database migrations, then release everything."""
        self._ready.wait(BUILD_WAIT_SECONDS)
        if self._kernel is not None:
            self._kernel.close()


def run_stdio(settings: Settings, plugins: Plugins, caller: Caller) -> None:
    """Serve MCP on stdin/stdout until the client closes it."""
    kernel = LazyKernel(settings, plugins).start()
    server = build_server(MemoryAccess(kernel), fixed_caller(caller))
    try:
        server.run("stdio")
    finally:
        kernel.close()
