"""What opening a LanceDB store created on disk, so a store that never serves can take it back.

Why: ``POST /configure`` builds the new engine before checking it, and opening a
store creates its directory, its table and its journal file. A switch to another
table or path is refused (409) when that store holds no memory while the current
one holds some, and without this the refused request left a stray empty table (and
directory) behind. The store notes what did not exist before it opened
(:class:`Created`); :meth:`Created.remove` removes exactly that, and only while the
table holds no row: never a table that existed before, never one another process
has written to meanwhile. Nothing here runs on the add or search paths.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def first_missing(path: Path) -> Path | None:
    """The topmost of ``path`` and its ancestors that does not exist yet (what a
    ``mkdir(parents=True)`` of ``path`` creates first); None when ``path`` exists."""
    missing = None
    for candidate in (path, *path.parents):
        if candidate.exists():
            break
        missing = candidate
    return missing


@dataclass(frozen=True)
class Created:
    """What one opening of a store created: each field is None (or empty) for what existed."""

    #: The store's directory.
    path: Path
    #: The topmost directory the opening made (``path`` or one of its ancestors).
    top: Path | None
    #: The table the opening made.
    table: str | None
    #: Journal files the opening made (see ``Journal.files``).
    files: tuple[Path, ...]

    def remove(self, db: Any) -> None:
        """Drop the table if it is still empty, then the files and the directories that are
        empty; a table holding rows keeps everything."""
        if self.table is not None and not _drop_if_empty(db, self.table):
            log.info("lancedb table '%s' at %s holds rows; kept", self.table, self.path)
            return
        for file in self.files:
            file.unlink(missing_ok=True)
        if self.top is not None:
            _remove_empty_directories(self.path, self.top)


def _drop_if_empty(db: Any, name: str) -> bool:
    """Drop table ``name`` unless it holds a row; True when it is gone."""
    try:
        table = db.open_table(name)
    except ValueError:  # not found: nothing to drop
        return True
    if table.count_rows() > 0:
        return False
    db.drop_table(name)
    return True


def _remove_empty_directories(path: Path, top: Path) -> None:
    """Remove ``path`` and its ancestors up to ``top`` while they are empty."""
    for directory in (path, *path.parents):
        try:
            directory.rmdir()
        except OSError:  # not empty (or already gone): what is left is not only ours
            return
        if directory == top:
            return
