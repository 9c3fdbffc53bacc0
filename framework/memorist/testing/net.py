"""Loopback helpers for tests and benchmarks that start real servers."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now.

    Why: servers under test bind a port chosen before they start, so that the
    test knows where to connect. The port is released before it is returned,
    so another process could take it first; on a test machine that race is
    rare enough, and a fixed port would collide far more often.
    """
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
