"""``memorist mcp``: the MCP server over stdio, for desktop clients.

The client starts this process and talks JSON-RPC over its stdin/stdout, so
the handshake must answer fast: the kernel (database and migrations, the
engine with its embedding model, LanceDB) is built by the composition root
(:class:`memorist.kernel.core.Kernel`) in a background thread that starts once the
first message (the handshake) is answered; ``tools/list`` answers without it
and the first tool call waits for it. A
failure to build is reported by every tool call as a tool error, not a crash.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from ..errors import MemoristError
from ..operations import Caller
from .adapter import MemoryAccess
from .tools import build_server, fixed_caller

if TYPE_CHECKING:
    from ..config.settings import Settings
    from ..kernel.core import Kernel
    from ..operations import Operations
    from ..plugin.manager import Plugins

log = logging.getLogger("memorist.mcp")
#: How long an exiting server waits for a kernel build still in progress.
BUILD_WAIT_SECONDS = 120.0
#: After the first answer, how long the build waits so the answer leaves first.
HANDSHAKE_GRACE_SECONDS = 0.2


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
        self._lock = threading.Lock()
        self._started = False

    def start(self) -> LazyKernel:
        """Begin building (idempotent)."""
        with self._lock:
            if not self._started:
                self._started = True
                self._thread.start()
        return self

    async def start_after(self, ctx: Any, call_next: Any) -> Any:
        """Server middleware: start the build once the first message (the handshake) is answered.

        Building earlier would compete with the handshake for the interpreter (imports and
        model loading hold the GIL), and the handshake is what a client waits for."""
        result = await call_next(ctx)
        if not self._started:
            # A moment later, so the answer is written before the build takes the interpreter.
            timer = threading.Timer(HANDSHAKE_GRACE_SECONDS, self.start)
            timer.daemon = True
            timer.start()
        return result

    def _build(self) -> None:
        from ..kernel.core import Kernel

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
        self.start()
        self._ready.wait()
        if self._kernel is None:
            raise EngineError(f"the memory engine could not start: {self._error}")
        return self._kernel.operations

    def close(self) -> None:
        """Wait (bounded) for a build still running, so a client that quits at once never
        interrupts the first start's database migrations, then release everything."""
        if self._started:
            self._ready.wait(BUILD_WAIT_SECONDS)
        if self._kernel is not None:
            self._kernel.close()


def run_stdio(settings: Settings, plugins: Plugins, caller: Caller) -> None:
    """Serve MCP on stdin/stdout until the client closes it."""
    kernel = LazyKernel(settings, plugins)
    server = build_server(MemoryAccess(kernel), fixed_caller(caller))
    server.middleware.append(kernel.start_after)
    try:
        server.run("stdio")
    finally:
        kernel.close()
