"""What the soak's threads share: operations, the vocabulary of add texts, fault windows, add records, errors."""

from __future__ import annotations

import argparse
import itertools
import random
import re
import string
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import requests

OPERATIONS = ("add", "search", "list", "delete")
FAULTS = ("kill-worker", "restart", "db-outage")
#: Every add text carries one token ``sk`` + 8 base-36 characters, unique per attempt.
TOKEN = re.compile(r"\bsk[0-9a-z]{8}\b")

ADJECTIVES = (
    "copper",
    "amber",
    "velvet",
    "granite",
    "crimson",
    "silver",
    "wooden",
    "paper",
    "glass",
    "linen",
    "marble",
    "woolen",
    "bronze",
    "ivory",
    "cobalt",
    "scarlet",
    "olive",
    "golden",
    "hollow",
    "quiet",
)
NOUNS = (
    "lanterns",
    "kayaks",
    "violins",
    "teapots",
    "bicycles",
    "maps",
    "candles",
    "telescopes",
    "puzzles",
    "kites",
    "notebooks",
    "helmets",
    "baskets",
    "mirrors",
    "clocks",
    "drums",
    "scarves",
    "compasses",
    "vases",
    "easels",
)
PLACES = (
    "attic",
    "garage",
    "harbor",
    "garden",
    "studio",
    "cellar",
    "library",
    "kitchen",
    "workshop",
    "balcony",
    "greenhouse",
    "barn",
    "office",
    "hallway",
    "boathouse",
    "pantry",
    "loft",
    "shed",
    "porch",
    "basement",
)
VERBS = ("keep", "store", "collect", "repair", "paint", "polish", "stack", "borrow", "sell", "display")


def parse_mix(text: str) -> dict[str, float]:
    """``add=4,search=3,list=2,delete=1`` → weights; unknown operations are an error, not ignored."""
    weights: dict[str, float] = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        if name.strip() not in OPERATIONS:
            raise argparse.ArgumentTypeError(f"unknown operation {name!r} in --mix (known: {', '.join(OPERATIONS)})")
        weights[name.strip()] = float(value)
    if not weights or sum(weights.values()) <= 0:
        raise argparse.ArgumentTypeError("--mix needs a positive weight")
    return weights


@dataclass
class Window:
    """One injected fault: from the fault until the server served an authenticated request again."""

    kind: str
    start: float
    end: float | None = None
    detail: str = ""
    errors: Counter[str] = field(default_factory=Counter)


@dataclass
class AddRecord:
    token: str
    user_id: str
    event_id: str | None = None
    status: str | None = None
    results: list[dict[str, Any]] = field(default_factory=list)
    outcome: str = "pending"  # acked | refused (4xx/429: must not be stored) | uncertain (5xx, no answer)
    error: str | None = None
    attempts: int | None = None
    latency_ms: float | None = None


class SoakState:
    """Everything the client threads share: latencies, errors, adds, the pool of deletable memories."""

    def __init__(self, started: float, grace: float) -> None:
        self.lock = threading.Lock()
        self.started = started
        self.grace = grace
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.errors: list[tuple[float, str, str]] = []
        self.windows: list[Window] = []
        self.adds: dict[str, AddRecord] = {}  # by token
        self.pending: dict[str, AddRecord] = {}  # acknowledged, not yet finished, by event id
        self.deletable: list[tuple[str, str]] = []  # (memory id, user) whose add SUCCEEDED
        self.deleted: set[str] = set()  # acknowledged deletes (200)
        self.delete_uncertain: set[str] = set()  # 5xx / no answer: may or may not be gone
        self.delete_404: list[str] = []  # a memory we never deleted answered 404: a defect
        self._tokens = itertools.count(random.randrange(36**6))

    def now(self) -> float:
        return time.monotonic() - self.started

    def token(self) -> str:
        with self.lock:
            n = next(self._tokens)
        digits = ""
        while len(digits) < 6:
            n, r = divmod(n, 36)
            digits = (string.digits + string.ascii_lowercase)[r] + digits
        return "sk" + digits + "".join(random.choices(string.ascii_lowercase, k=2))

    def ok(self, op: str, ms: float) -> None:
        with self.lock:
            self.latencies[op].append(ms)

    def error(self, op: str, kind: str) -> None:
        t = self.now()
        with self.lock:
            self.errors.append((t, op, kind))

    def window_of(self, t: float) -> Window | None:
        for window in self.windows:
            end = window.end if window.end is not None else float("inf")
            if window.start <= t <= end + self.grace:
                return window
        return None


def describe(exc: BaseException) -> str:
    """The error kind counted in the report: ``ConnectionRefused`` apart from other connection errors."""
    return "ConnectionRefused" if never_sent(exc) else type(exc).__name__


def never_sent(exc: BaseException) -> bool:
    """Whether the request provably never reached the server (the connection was refused)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError | requests.exceptions.ConnectTimeout):
            return True
        for arg in getattr(current, "args", ()):
            if isinstance(arg, BaseException) and never_sent_leaf(arg):
                return True
        current = current.__cause__ or current.__context__
    return False


def never_sent_leaf(exc: BaseException) -> bool:
    import urllib3.exceptions

    if isinstance(exc, urllib3.exceptions.NewConnectionError | ConnectionRefusedError):
        return True
    reason = getattr(exc, "reason", None)
    return isinstance(reason, urllib3.exceptions.NewConnectionError | ConnectionRefusedError)
