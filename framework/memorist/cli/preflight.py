"""Checks ``memorist serve`` makes before handing over to gunicorn.

gunicorn retries a busy port for 10 seconds and then exits 1 with its own log
lines; trying the bind first turns that into one line naming what to do, at once.
Environment variables nothing reads (``MEMORIST_EMBEDER__PROVIDER``) are named as
warnings, as ``memorist config check`` names them: otherwise a typo there is silently
a default.
"""

from __future__ import annotations

import errno
import os
import socket
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..config.settings import Settings


def environment_warnings(settings: Settings, environ: Mapping[str, str] | None = None) -> list[str]:
    """``config check``'s lines about variables no setting reads (misspelled ``MEMORIST_*`` and bare names)."""
    from .config_check import CheckContext, misspelled_bare_variables, unknown_memorist_variables

    context = CheckContext(settings, os.environ if environ is None else environ)
    checks = (unknown_memorist_variables, misspelled_bare_variables)
    return [problem.message for check in checks for problem in check(context)]


def bind_problem(host: str, port: int) -> str | None:
    """A one-line hint when ``host:port`` cannot be bound, else ``None`` (the socket is released)."""
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return f"server.host {host!r}: cannot be resolved ({exc.strerror}); use --host 127.0.0.1 or 0.0.0.0"
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn does: TIME_WAIT is no conflict
        try:
            sock.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return (
                    f"port {port} on {host} is already in use (another memorist serve?): "
                    f"stop that process or choose another port with --port"
                )
            if exc.errno == errno.EACCES:
                return f"port {port} on {host}: permission denied; ports below 1024 need privileges, use --port 8000"
            if exc.errno == errno.EADDRNOTAVAIL:
                return f"server.host {host!r} is not an address of this machine; use --host 127.0.0.1 or 0.0.0.0"
            return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None
