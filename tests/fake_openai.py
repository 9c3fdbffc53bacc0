"""A local HTTP server speaking enough of the OpenAI protocol for tests.

No hosted model is reachable in CI, and mocking the ``openai`` client would
test our assumptions about it rather than the client itself. This server is
real HTTP on 127.0.0.1 so the official client does its own serialization,
headers, status handling and response parsing.

Usage::

    with FakeOpenAI() as server:
        server.script_chat('{"memories": []}', Reply(status=429, headers={"Retry-After": "0"}))
        ...  # point a client at server.base_url
        server.chat_requests[0]["messages"]

Replies are scripted per endpoint as a FIFO queue; when a queue is empty
chat answers ``default_chat`` and embeddings are a deterministic hashed bag
of words (deliberately *not* normalized, so normalization is testable).
Every request is recorded with its headers and JSON body.

The language model's supersession judge (one chat call per add that has candidates)
is answered apart when ``judge`` is set: a function of the facts the request asks
about (:func:`judged_facts`), so a test's model can name the labels it was shown
without the test knowing the ids; unset, judge requests take the chat script.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from memorist_openai.prompts import SUPERSESSION_TASK

_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass
class Reply:
    """One scripted response.

    ``status`` != 200 sends an OpenAI-shaped error body. ``content`` is the
    chat message text; ``embeddings`` overrides the vectors of an embeddings
    reply; ``body`` replaces the whole JSON body; ``delay`` sleeps first (for
    timeout tests).
    """

    content: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    finish_reason: str = "stop"
    embeddings: list[list[float]] | None = None
    body: Any = None
    delay: float = 0.0
    error_message: str = "scripted error"


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: Any


def judged_facts(body: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The facts a supersession judge request asks about (each a JSON object: ``fact``,
    ``text``, ``candidates`` with their ``label`` and ``text``), or None for any other request."""
    messages = body.get("messages") or []
    if not messages or SUPERSESSION_TASK not in str(messages[0].get("content", "")):
        return None
    user = next((m["content"] for m in messages if m.get("role") == "user"), "")
    return [json.loads(line) for line in user.splitlines() if line.startswith("{")]


def hashed_embedding(text: str, dim: int) -> list[float]:
    """Bag of words hashed into ``dim`` signed buckets; similar texts share buckets."""
    vector = [0.0] * dim
    words = _WORD.findall(text.casefold()) or [""]
    for word in words:
        digest = hashlib.sha256(word.encode("utf-8")).digest()
        bucket = int.from_bytes(digest[:4], "little") % dim
        vector[bucket] += 1.0 if digest[4] % 2 == 0 else -1.0
    if not any(vector):
        vector[0] = 1.0
    return [3.0 * v for v in vector]  # unnormalized on purpose


class FakeOpenAI:
    """The server plus its script and its record of requests."""

    def __init__(self, embedding_dim: int = 16) -> None:
        self.embedding_dim = embedding_dim
        #: The vectors of a served model (a stand-in for a self-hosted embedding endpoint such as
        #: vLLM or TEI serving a multilingual model); None: a hashed bag of words.
        self.embed: Callable[[list[str]], list[list[float]]] | None = None
        self.default_chat = '{"memories": []}'
        #: The supersession judge's answer to the facts of its request (see :func:`judged_facts`).
        self.judge: Callable[[list[dict[str, Any]]], str | Reply] | None = None
        #: Return embedding items in reverse index order (the protocol allows any order).
        self.shuffle_embeddings = False
        self.chat_replies: deque[Reply] = deque()
        self.embedding_replies: deque[Reply] = deque()
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting and inspection ----------------------------------------

    @staticmethod
    def _as_reply(item: str | Reply) -> Reply:
        return item if isinstance(item, Reply) else Reply(content=item)

    def script_chat(self, *replies: str | Reply) -> None:
        self.chat_replies.extend(self._as_reply(r) for r in replies)

    def script_embeddings(self, *replies: Reply) -> None:
        self.embedding_replies.extend(replies)

    def requests_to(self, suffix: str) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith(suffix)]

    @property
    def chat_requests(self) -> list[Any]:
        """JSON bodies of every chat-completion request, in arrival order."""
        return [r.body for r in self.requests_to("/chat/completions")]

    @property
    def judge_requests(self) -> list[list[dict[str, Any]]]:
        """The facts of every supersession judge request, in arrival order."""
        asked = (judged_facts(body) for body in self.chat_requests if isinstance(body, dict))
        return [facts for facts in asked if facts is not None]

    @property
    def embedding_requests(self) -> list[Any]:
        return [r.body for r in self.requests_to("/embeddings")]

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_port}/v1"

    # -- lifecycle --------------------------------------------------------

    def start(self) -> FakeOpenAI:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        # A short poll interval keeps shutdown (and so each test's teardown) fast.
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- responses --------------------------------------------------------

    def _next(self, queue: deque[Reply]) -> Reply | None:
        with self._lock:
            return queue.popleft() if queue else None

    def chat_response(self, body: dict[str, Any]) -> tuple[Reply, Any]:
        facts = judged_facts(body) if self.judge is not None else None
        if self.judge is not None and facts is not None:
            reply = self._as_reply(self.judge(facts))
        else:
            reply = self._next(self.chat_replies) or Reply(content=self.default_chat)
        if reply.status != 200 or reply.body is not None:
            return reply, reply.body
        return reply, {
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.content},
                    "finish_reason": reply.finish_reason,
                    "logprobs": None,
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    def embeddings_response(self, body: dict[str, Any]) -> tuple[Reply, Any]:
        reply = self._next(self.embedding_replies) or Reply()
        if reply.status != 200 or reply.body is not None:
            return reply, reply.body
        inputs = body.get("input", [])
        inputs = [inputs] if isinstance(inputs, str) else list(inputs)
        dim = int(body.get("dimensions") or self.embedding_dim)
        if reply.embeddings:
            vectors = reply.embeddings
        elif self.embed is not None:
            vectors = self.embed([str(t) for t in inputs])
        else:
            vectors = [hashed_embedding(str(t), dim) for t in inputs]
        items = []
        for index, vector in enumerate(vectors):
            encoded: Any = vector
            if body.get("encoding_format") == "base64":
                encoded = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
            items.append({"object": "embedding", "index": index, "embedding": encoded})
        if self.shuffle_embeddings:
            items.reverse()
        return reply, {
            "object": "list",
            "data": items,
            "model": body.get("model", "fake"),
            "usage": {"prompt_tokens": len(inputs), "total_tokens": len(inputs)},
        }


def _handler_for(server: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server naming
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                body = {"_raw": raw.decode("utf-8", "replace")}
            headers = {k.lower(): v for k, v in self.headers.items()}
            with server._lock:
                server.requests.append(RecordedRequest(self.path, headers, body))
            if self.path.endswith("/chat/completions"):
                reply, payload = server.chat_response(body)
            elif self.path.endswith("/embeddings"):
                reply, payload = server.embeddings_response(body)
            else:
                reply, payload = Reply(status=404, error_message=f"no route {self.path}"), None
            if reply.delay:
                time.sleep(reply.delay)
            if reply.status != 200 and payload is None:
                payload = {
                    "error": {
                        "message": reply.error_message,
                        "type": "fake_error",
                        "param": None,
                        "code": str(reply.status),
                    }
                }
            data = json.dumps(payload).encode("utf-8")
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # client timed out and left
                pass

    return Handler


@contextmanager
def fake_openai_server(embedding_dim: int = 16) -> Iterator[FakeOpenAI]:
    """Start a :class:`FakeOpenAI` for the duration of a ``with`` block (or a fixture)."""
    server = FakeOpenAI(embedding_dim=embedding_dim)
    server.start()
    try:
        yield server
    finally:
        server.stop()
