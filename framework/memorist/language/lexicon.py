"""Word lists per language, read from data files (``lexicons/<code>.yaml``).

The engine and the heuristic extractor read language through these lists, never through
word alternations written into code: a phrasing learned is a row of data, and a language
is a file. A list is either words (separated by spaces) or phrases (separated by ``|``);
both are lower case, with the straight apostrophe (curly ones are folded when text is
matched against them, see :func:`fold`).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

#: The language whose lists are used when a text's language is not known.
DEFAULT = "en"


def fold(text: str) -> str:
    """``text`` lower-cased with curly apostrophes straightened, as lexicon entries are."""
    return text.replace("’", "'").replace("‘", "'").casefold()


class Lexicon:
    """One language's lists, loaded once (see :func:`lexicon`)."""

    def __init__(self, code: str, data: dict[str, Any]) -> None:
        self.code = code
        self.data = data
        self.scripts: tuple[str, ...] = tuple(data.get("scripts", ()))
        #: Lists already split, by (kind, path): a rule reads its list on every sentence.
        self._cache: dict[tuple[str, ...], Any] = {}

    def get(self, *path: str) -> Any:
        """The raw entry at ``path`` (None when absent)."""
        node: Any = self.data
        for key in path:
            if not isinstance(node, dict) or key not in node:
                return None
            node = node[key]
        return node

    def words(self, *path: str) -> frozenset[str]:
        """A word list (space-separated; ``|`` separates too) as a set of folded words."""
        key = ("words", *path)
        if key not in self._cache:
            self._cache[key] = frozenset(_split(self.get(*path), words=True))
        return self._cache[key]  # type: ignore[no-any-return]

    def ordered_words(self, *path: str) -> tuple[str, ...]:
        """A word list in the file's order (months, weekdays)."""
        return tuple(_split(self.get(*path), words=True))

    def phrases(self, *path: str) -> tuple[str, ...]:
        """A phrase list (``|``-separated), longest first: a matcher tries "good morning"
        before "good"."""
        key = ("phrases", *path)
        if key not in self._cache:
            self._cache[key] = tuple(sorted(set(_split(self.get(*path), words=False)), key=lambda p: (-len(p), p)))
        return self._cache[key]  # type: ignore[no-any-return]

    def rows(self, *path: str) -> list[list[str]]:
        """A table: a list of rows of strings."""
        return [list(map(str, row)) for row in self.get(*path) or []]

    def mapping(self, *path: str) -> dict[str, Any]:
        raw = self.get(*path) or {}
        return {fold(str(k)): v for k, v in raw.items()}


def _split(raw: Any, *, words: bool) -> list[str]:
    if raw is None:
        return []
    if isinstance(raw, list):
        items = [str(item) for item in raw]
    elif words:
        items = str(raw).replace("|", " ").split()
    else:
        items = [variant for item in _top_level(str(raw)) for variant in expand(item)]
    return [" ".join(fold(item).split()) for item in items if item.strip()]


def _top_level(raw: str) -> list[str]:
    """``raw`` split at the ``|`` outside braces."""
    out, depth, current = [], 0, ""
    for char in raw:
        depth += (char == "{") - (char == "}")
        if char == "|" and depth == 0:
            out.append(current)
            current = ""
        else:
            current += char
    return [*out, current]


def expand(phrase: str) -> list[str]:
    """Every phrase a pattern stands for: ``{a/b/}`` is one of a, b or nothing
    ("{i/we} {do /}agree" -> "i agree", "i do agree", "we agree", "we do agree")."""
    start = phrase.find("{")
    if start < 0:
        return [phrase]
    end = phrase.index("}", start)
    head, tail = phrase[:start], phrase[end + 1 :]
    return [v for option in phrase[start + 1 : end].split("/") for v in expand(head + option + tail)]


#: libyaml's safe loader where PyYAML has it: the same data, parsed ~4x faster (the lexicons
#: are read by every process that validates a configuration, ``memorist serve`` before it listens).
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@lru_cache(maxsize=64)
def lexicon(code: str = DEFAULT) -> Lexicon:
    """The lexicon of language ``code`` (ISO 639-1); an empty one for a language without
    a file, so rules written for other languages simply find nothing."""
    path = resources.files(__package__).joinpath("lexicons", f"{code}.yaml")
    if not path.is_file():
        return Lexicon(code, {"language": code})
    return Lexicon(code, yaml.load(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER) or {})


def lexicons_path() -> Path:
    """The folder of the lexicon files: the one place word lists live."""
    return Path(str(resources.files(__package__).joinpath("lexicons")))


@lru_cache(maxsize=1)
def languages() -> tuple[str, ...]:
    """The codes of every language with a lexicon file."""
    folder = resources.files(__package__).joinpath("lexicons")
    return tuple(sorted(p.name.removesuffix(".yaml") for p in folder.iterdir() if p.name.endswith(".yaml")))
