"""Reading conversation files into adds: JSONL (one add per line) and LoCoMo-style conversation JSON.

``memorist import`` (:mod:`memorist.bulk.import_command`) reads with this module and
stores through the operations layer's batch add (or a server's batch route).
The mapping of a LoCoMo conversation is the one ``benchmarks/locomo.py`` uses,
so an import stores the memories the benchmark measures: one add per turn,
``user_id`` = the file's stem (or the sample's ``sample_id`` in a list of
samples), the speaker as the message's ``name``, ``metadata={"dia_id": ...}``,
the session's date and time as ``timestamp``, an image's caption appended as
``[shares ...]``.

A JSONL line is one add: ``messages`` (a list of ``{role, content}``, one such
object, or a string) or ``text`` (one user message), the identifiers
``user_id``/``agent_id``/``run_id``/``app_id``, and optionally ``metadata``,
``timestamp``, ``expiration_date``, ``infer``, ``custom_instructions``,
``includes``, ``excludes``, ``custom_categories``, ``multilingual``. An
unknown key is an error (a typo would otherwise drop data silently).

A line is read as an HTTP body is: JSON nested deeper than :data:`MAX_LINE_DEPTH`
levels, or a string holding an unpaired surrogate escape (``"\\ud800"``, not text:
storing it fails), is a bad line, never a crash half-way through the import.
:func:`read_file` streams a JSONL file line by line, so an import's memory does not
grow with the file; a LoCoMo document is read whole (it is one JSON value).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dateutil import parser as date_parser

from ..operations import AddInput, EntityIds

_SESSION = re.compile(r"^session_(\d+)$")
#: Deepest JSON a line may hold (the HTTP doors' ``limits.max_json_depth`` default).
MAX_LINE_DEPTH = 64
#: Keys a JSONL line may carry besides ``messages`` / ``text``.
LINE_KEYS = frozenset(
    {
        "user_id",
        "agent_id",
        "run_id",
        "app_id",
        "metadata",
        "timestamp",
        "expiration_date",
        "infer",
        "custom_instructions",
        "includes",
        "excludes",
        "custom_categories",
        "multilingual",
    }
)


class BadLine(ValueError):
    """A line (or turn) that is no valid add; ``where`` is ``file:line`` (or ``file:dia_id``)."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


@dataclass(frozen=True)
class Item:
    """One add read from a file, and where it came from (for errors and progress)."""

    where: str
    add: AddInput


@dataclass
class Tally:
    """What an import did so far."""

    adds: int = 0
    stored: int = 0
    merged: int = 0
    skipped: int = 0
    #: Adds a server queued (answered 202) and the import waited for.
    queued: int = 0
    invalid: list[str] = field(default_factory=list)

    def count(self, answer: dict[str, Any]) -> None:
        """One add's answer (the wire shape every door gives: results, merged, skipped)."""
        self.adds += 1
        self.stored += len(answer.get("results") or [])
        self.merged += len(answer.get("merged") or [])
        self.skipped += len(answer.get("skipped") or [])
        self.queued += bool(answer.get("queued"))


#: Stores one batch of adds; answers one wire-shaped add answer per item.
Sink = Callable[[Sequence[Item]], list[dict[str, Any]]]


def turns_of(conversation: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """Every turn with its session's date-time string, in session order (as ``benchmarks/locomo.py``)."""
    sessions = sorted(
        (int(m.group(1)), key)
        for key in conversation
        if (m := _SESSION.match(key)) and isinstance(conversation[key], list)
    )
    out: list[tuple[dict[str, Any], str]] = []
    for number, key in sessions:
        when = conversation.get(f"session_{number}_date_time", "")
        out.extend((turn, when) for turn in conversation[key])
    return out


def turn_text(turn: dict[str, Any]) -> str:
    text = str(turn.get("text", ""))
    if caption := turn.get("blip_caption"):
        text = f"{text} [shares {caption}]"
    return text


def session_time(when: str, where: str) -> str | None:
    """A LoCoMo date-time (``1:56 pm on 8 May, 2023``) as ISO 8601; ``None`` when the session has none."""
    if not when:
        return None
    try:
        return date_parser.parse(when, fuzzy=True).isoformat()
    except (ValueError, OverflowError):
        raise BadLine(where, f"session date {when!r} is not a date") from None


def is_conversation(data: Any) -> bool:
    """A LoCoMo conversation: ``session_N`` lists of turns, at the top or under ``conversation``."""
    if not isinstance(data, dict):
        return False
    inner = data.get("conversation", data)
    return isinstance(inner, dict) and any(_SESSION.match(k) and isinstance(v, list) for k, v in inner.items())


def conversation_items(data: dict[str, Any], user_id: str, name: str, infer: bool = True) -> Iterator[Item | BadLine]:
    """One add per turn of a LoCoMo conversation, in session order (a bad turn yields a :class:`BadLine`)."""
    inner = data.get("conversation", data)
    for turn, when in turns_of(inner):
        if not isinstance(turn, dict) or not isinstance(turn.get("text"), str):
            dia = turn.get("dia_id", "?") if isinstance(turn, dict) else "?"
            yield BadLine(f"{name}:{dia}", "a turn needs 'text' (a string)")
            continue
        where = f"{name}:{turn.get('dia_id', '?')}"
        message: dict[str, Any] = {"role": "user", "content": turn_text(turn)}
        if isinstance(turn.get("speaker"), str):
            message["name"] = turn["speaker"]
        metadata = {"dia_id": turn["dia_id"]} if "dia_id" in turn else None
        try:
            timestamp = session_time(when, where)
        except BadLine as bad:
            yield bad
            continue
        add = AddInput(
            messages=[message], ids=EntityIds(user_id=user_id), metadata=metadata, timestamp=timestamp, infer=infer
        )
        yield Item(where, add)


def _depth(value: Any) -> int:
    """How deeply ``value`` nests (iteratively: a hostile line must not exhaust the stack here)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, level)
            if level <= MAX_LINE_DEPTH:
                stack.extend((child, level + 1) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


def load_json(raw: str, where: str) -> Any:
    """``raw`` parsed, or :class:`BadLine`: not JSON, nested past :data:`MAX_LINE_DEPTH`, or not text."""
    try:
        data = json.loads(raw)
    except RecursionError:
        raise BadLine(where, f"JSON nested deeper than {MAX_LINE_DEPTH} levels (MAX_LINE_DEPTH)") from None
    except json.JSONDecodeError as exc:
        raise BadLine(where, f"not JSON ({exc.msg} at column {exc.colno})") from None
    except ValueError:  # an integer past Python's digit limit
        raise BadLine(where, "a JSON number has too many digits") from None
    if _depth(data) > MAX_LINE_DEPTH:
        raise BadLine(where, f"JSON nested deeper than {MAX_LINE_DEPTH} levels (MAX_LINE_DEPTH)")
    if "\\u" in raw:
        try:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise BadLine(where, "a string holds an unpaired surrogate escape (\\ud800-\\udfff)") from None
    return data


def line_item(raw: str, where: str, infer: bool = True) -> Item:
    """One JSONL line as an add; :class:`BadLine` saying what is wrong with it."""
    data = load_json(raw, where)
    if not isinstance(data, dict):
        raise BadLine(where, "a JSON object is required")
    if "messages" in data and "text" in data:
        raise BadLine(where, "give 'messages' or 'text', not both")
    if "text" in data:
        if not isinstance(data["text"], str):
            raise BadLine(where, "text: a string is required")
        messages: Any = [{"role": "user", "content": data["text"]}]
    elif "messages" in data:
        messages = data["messages"]
    else:
        raise BadLine(where, "messages: required ('messages' or 'text')")
    if unknown := sorted(set(data) - LINE_KEYS - {"messages", "text"}):
        raise BadLine(where, f"{unknown[0]}: unknown field (known: messages, text, {', '.join(sorted(LINE_KEYS))})")
    for key in ("user_id", "agent_id", "run_id", "app_id"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise BadLine(where, f"{key}: a string is required")
    if data.get("metadata") is not None and not isinstance(data["metadata"], dict):
        raise BadLine(where, "metadata: a JSON object is required")
    if not isinstance(data.get("infer", infer), bool):
        raise BadLine(where, "infer: true or false")
    options = {k: data[k] for k in ("custom_instructions", "includes", "excludes", "custom_categories") if k in data}
    add = AddInput(
        messages=messages,
        ids=EntityIds.of(data),
        metadata=data.get("metadata"),
        timestamp=data.get("timestamp"),
        expiration_date=data.get("expiration_date"),
        infer=data.get("infer", infer),
        multilingual=bool(data.get("multilingual", False)),
        **options,
    )
    return Item(where, add)


def read_items(text: str, name: str, *, jsonl: bool | None = None, infer: bool = True) -> Iterator[Item | BadLine]:
    """Every add of one file's ``text``: LoCoMo JSON (one conversation, or a list of samples) or JSONL.

    ``jsonl=None`` decides by content: a document that parses whole as a conversation (or a
    list of them) is LoCoMo, anything else is read line by line. A bad line is yielded as a
    :class:`BadLine` (the caller stops or skips it). ``infer`` is the default of adds that
    do not say (every LoCoMo turn, a JSONL line without ``infer``).
    """
    if jsonl is not True:
        try:
            whole = load_json(text, name)
        except BadLine:
            whole = None
        stem = Path(name).stem
        if is_conversation(whole):
            user = str(whole.get("sample_id") or stem) if "conversation" in whole else stem
            yield from conversation_items(whole, user, name, infer)
            return
        if isinstance(whole, list) and whole and all(is_conversation(c) for c in whole):
            for index, sample in enumerate(whole):
                user = str(sample.get("sample_id") or f"{stem}-{index}")
                yield from conversation_items(sample, user, f"{name}[{index}]", infer)
            return
        if jsonl is False:
            yield BadLine(name, "not a LoCoMo conversation (no session_N lists of turns)")
            return
    yield from _lines(text.splitlines(), name, infer)


def _lines(lines: Iterable[str], name: str, infer: bool) -> Iterator[Item | BadLine]:
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            yield line_item(raw, f"{name}:{number}", infer)
        except BadLine as bad:
            yield bad


def read_file(path: Path, name: str, *, jsonl: bool | None = None, infer: bool = True) -> Iterator[Item | BadLine]:
    """:func:`read_items` of a file, streamed: JSONL is read a line at a time (bounded memory).

    Without ``jsonl``, a file whose first line is a whole JSON value that is not a
    conversation is JSONL; anything else (a pretty-printed or one-line LoCoMo document)
    is read whole, as :func:`read_items` reads it.
    """
    if jsonl is not True:
        with path.open(encoding="utf-8") as handle:
            first = handle.readline()
        try:
            head = load_json(first, name) if first.strip() else None
        except BadLine:
            head = None
        conversation = is_conversation(head) or (isinstance(head, list) and any(is_conversation(c) for c in head))
        if head is None or conversation or jsonl is False:
            yield from read_items(path.read_text(encoding="utf-8"), name, jsonl=jsonl, infer=infer)
            return
    with path.open(encoding="utf-8") as handle:
        yield from _lines(handle, name, infer)
