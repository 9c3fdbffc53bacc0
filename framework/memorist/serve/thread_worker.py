"""The gunicorn worker ``memorist serve`` runs: threads, bounded reads, JSON for every error.

Why a subclass of gunicorn's ``gthread`` worker and not the ``sync`` default:

- **Threads.** A sync worker serves one request at a time, so one large add
  (or a slow language model) stalled ``/health`` and every search behind it.
  Here each process serves ``server.threads`` requests at once; the engine is
  shared by those threads and by the queue's worker threads already (the
  LanceDB store serializes its writes, the embedders lock their tokenizers,
  SQLite connections are not pooled). A long request no longer trips gunicorn's
  worker timeout either: the main loop that reports liveness is not the one
  serving requests.
- **Bounded reads (slow clients).** gunicorn hands a new connection to a
  thread as soon as it is accepted, so a connection that sent *part* of a
  request head (slowloris) held a thread until the head was complete. Here the
  main loop reads request heads itself, without blocking, and a thread gets the
  request only once its head is complete: idle and partial connections hold no
  thread. A head not complete within ``server.header_timeout`` is answered 408
  (JSON) and closed. Each client socket is a :class:`DeadlineSocket`, so any
  single read of a body or write of a response that stalls longer than
  ``server.io_timeout`` fails too (408 for a body), closing the connection.
- **JSON errors.** gunicorn answers its own errors (request line too long,
  headers too large, malformed requests) with an HTML page, and a worker
  aborted by the arbiter answered the request in flight with HTML 500. Every
  one of these is a JSON ``{"detail": ...}`` here, like the app's own errors.
"""

from __future__ import annotations

import errno
import json
import logging
import selectors
import socket
import threading
import time
from functools import partial
from typing import Any

from gunicorn import util
from gunicorn.workers.gthread import TConn, ThreadWorker

from ..errors import RequestTimeout

log = logging.getLogger("memorist.server")
_HEAD_END = b"\r\n\r\n"
#: Past this many bytes without the end of the head, the parser gets it (and refuses it: 414/431).
_HEAD_MAX = 64 * 1024
_HEAD_READ = 16 * 1024
_HEAD_TIMEOUT_DETAIL = "the request was not received in time; closing the connection"


class DeadlineSocket(socket.socket):
    """A client socket whose blocking reads and writes are bounded.

    ``arm(seconds)`` starts a total deadline for the next request's head (request
    line and headers); ``disarm()`` ends it once the app has the request. Without
    a deadline every blocking call is bounded by ``io_timeout`` instead. Timeouts
    this class imposed raise :class:`RequestTimeout`; timeouts a caller asked for
    with ``settimeout`` (gunicorn's own drains) raise ``socket.timeout`` as usual.
    """

    io_timeout: float = 30.0
    _deadline: float | None = None
    _own_timeout: bool = True
    timed_out: bool = False

    @classmethod
    def adopt(cls, sock: socket.socket, io_timeout: float) -> DeadlineSocket:
        wrapped = cls(sock.family, sock.type, sock.proto, fileno=sock.detach())
        wrapped.io_timeout = io_timeout
        return wrapped

    def arm(self, seconds: float) -> None:
        self._deadline = time.monotonic() + seconds

    def disarm(self) -> None:
        self._deadline = None

    def setblocking(self, flag: bool) -> None:
        if flag:
            super().settimeout(self.io_timeout)
            self._own_timeout = True
        else:
            super().setblocking(False)

    def settimeout(self, value: float | None) -> None:
        self._own_timeout = value is None
        super().settimeout(self.io_timeout if value is None else value)

    def recv(self, bufsize: int, flags: int = 0) -> bytes:
        current = self.gettimeout()
        if current == 0.0:  # non-blocking (the poller's probes): nothing to bound
            return super().recv(bufsize, flags)
        deadline = self._deadline
        ours = self._own_timeout
        limit = current
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._expire("the request was not received in time")
            if limit is None or remaining < limit:
                limit, ours = remaining, True
        if limit != current:
            super().settimeout(limit)
        try:
            return super().recv(bufsize, flags)
        except TimeoutError:
            if not ours:
                raise
            self._expire("the request was not received in time" if deadline else "the client stopped sending")
        finally:
            if limit != current:
                super().settimeout(current)
        raise AssertionError("unreachable")  # pragma: no cover

    def _expire(self, message: str) -> None:
        self.timed_out = True
        raise RequestTimeout(f"{message}; closing the connection")


def json_error(sock: socket.socket, status: int, reason: str, detail: str) -> None:
    """Write a complete JSON error response and ask the client to close (gunicorn's ``write_error``, in JSON)."""
    body = json.dumps({"detail": detail}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode("latin-1")
    util.write_nonblock(sock, head + body)


def _json_write_error(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    detail = mesg or reason
    if status_int >= 500:
        detail = "internal server error"  # gunicorn logged the exception; the client gets no internals
    json_error(sock, status_int, reason, detail)


class MemoristThreadWorker(ThreadWorker):  # type: ignore[misc]
    """``gthread`` with deadline sockets, JSON errors and a JSON answer when aborted mid-request."""

    def init_process(self) -> None:
        # gunicorn writes its error pages through this one function (base.Worker.handle_error).
        util.write_error = _json_write_error
        self._inflight: dict[int, tuple[Any, Any]] = {}
        self._inflight_lock = threading.Lock()
        self._heads: dict[int, Any] = {}
        super().init_process()

    def accept(self, listener: Any) -> None:
        """gunicorn's ``accept``, but the request head is awaited on the poller, not in a thread."""
        try:
            client_sock, client_addr = listener.accept()
            self.nr_conns += 1
            client = DeadlineSocket.adopt(client_sock, _IO_TIMEOUT)
            self._await_head(TConn(self.cfg, client, client_addr, listener.getsockname()))
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise

    def on_client_socket_readable(self, conn: Any, client: Any) -> None:
        """A kept-alive connection's next request: its head is awaited on the poller too."""
        self.poller.unregister(client)
        self.keepalived_conns.remove(conn)
        self._await_head(conn)

    # -- request heads are read by the main loop ---------------------------------------------
    # A thread is handed a connection only once its request line and headers are all in (or
    # past the size gunicorn would refuse anyway). Idle and slowloris connections hold no
    # thread; at ``header_timeout`` after they connected (or after their previous answer)
    # they are answered 408 (if they sent anything) and closed.

    def _await_head(self, conn: Any) -> None:
        conn.sock.setblocking(False)
        conn.head = bytearray()
        conn.head_deadline = time.monotonic() + _HEADER_TIMEOUT
        self._heads[conn.sock.fileno()] = conn
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._on_head_bytes, conn))

    def _on_head_bytes(self, conn: Any, client: Any) -> None:
        try:
            data = conn.sock.recv(_HEAD_READ)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # the client went away
            self._drop_head(conn)
            self.nr_conns -= 1
            conn.close()
            return
        conn.head += data
        if _HEAD_END not in conn.head and len(conn.head) <= _HEAD_MAX:
            return
        self._drop_head(conn)
        conn.sock.setblocking(True)
        conn.data_ready = True
        conn.init()  # plain HTTP/1: only creates the parser (no TLS handshake here)
        conn.parser.unreader.unread(bytes(conn.head))
        self.enqueue_req(conn)

    def _drop_head(self, conn: Any) -> None:
        self._heads.pop(conn.sock.fileno(), None)
        try:
            self.poller.unregister(conn.sock)
        except (KeyError, ValueError, OSError):
            pass

    def murder_pending(self) -> None:
        super().murder_pending()
        now = time.monotonic()
        for conn in list(self._heads.values()):
            if conn.head_deadline > now and self.alive:
                continue
            self._drop_head(conn)
            self.nr_conns -= 1
            if conn.head and self.alive:
                try:
                    json_error(
                        conn.sock,
                        408,
                        "Request Timeout",
                        "the request was not received in time; closing the connection",
                    )
                except Exception:
                    pass
            conn.close()

    def handle(self, conn: Any) -> Any:
        sock = conn.sock
        if isinstance(sock, DeadlineSocket):
            sock.arm(_HEADER_TIMEOUT)
        result = super().handle(conn)
        if isinstance(sock, DeadlineSocket) and sock.timed_out:
            return False
        return result

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        if isinstance(exc, RequestTimeout):
            log.info("closing a connection from %s: %s", (addr or ("?",))[0], exc.message)
            try:
                json_error(client, 408, "Request Timeout", exc.message)
            except Exception:
                pass
            return
        super().handle_error(req, client, addr, exc)

    def load_wsgi(self) -> None:
        super().load_wsgi()
        app: Any = self.wsgi  # type: ignore[has-type]

        def tracked(environ: dict[str, Any], start_response: Any) -> Any:
            sock = environ.get("gunicorn.socket")
            if isinstance(sock, DeadlineSocket):
                sock.disarm()  # the head is in; the body and the answer have io_timeout per read/write
            key = threading.get_ident()
            with self._inflight_lock:
                self._inflight[key] = (sock, getattr(start_response, "__self__", None))
            statuses: list[str] = []

            def capture(status: str, headers: Any, exc_info: Any = None) -> Any:
                statuses.append(status)
                return start_response(status, headers, exc_info)

            try:
                result = app(environ, capture)
            finally:
                with self._inflight_lock:
                    self._inflight.pop(key, None)
            resp = getattr(start_response, "__self__", None)
            if resp is not None and statuses and statuses[-1][:1] in "45" and _has_body(environ):
                # Refused before its body was read (413, 401, 408...): the unread rest would be taken
                # for the next request, so the answer says "Connection: close" and the socket closes.
                resp.force_close()
            return result

        self.wsgi = tracked

    def handle_abort(self, sig: int, frame: Any) -> None:
        """The arbiter aborts a worker that stopped reporting: answer what is in flight, in JSON, then exit."""
        with self._inflight_lock:
            inflight = list(self._inflight.values())
        for sock, resp in inflight:
            if sock is None or resp is None or getattr(resp, "headers_sent", True):
                continue
            try:
                json_error(
                    sock,
                    503,
                    "Service Unavailable",
                    "the server stopped this worker before the request finished; it may not have taken effect: retry",
                )
            except Exception:
                pass
        super().handle_abort(sig, frame)


def _has_body(environ: dict[str, Any]) -> bool:
    length = environ.get("CONTENT_LENGTH") or "0"
    return length != "0" or "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()


#: Set by :func:`configure` in the master before workers fork (gunicorn has no setting for these).
_HEADER_TIMEOUT = 10.0
_IO_TIMEOUT = 30.0


def configure(header_timeout: float, io_timeout: float) -> None:
    global _HEADER_TIMEOUT, _IO_TIMEOUT
    _HEADER_TIMEOUT, _IO_TIMEOUT = header_timeout, io_timeout
