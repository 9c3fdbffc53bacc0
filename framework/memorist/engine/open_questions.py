"""The question a conversation's last add ended on, for a reply that comes in the next add.

A client that adds each exchange as it happens (the user's message, then the
assistant's) sends "Do you have any dietary restrictions?" at the end of one add
and "Vegetarian." at the start of the next. Alone, "Vegetarian." is filler; as
the answer to that question it is the user's diet. So an add whose last message
ends on a question (the extractor says which: :attr:`Extraction.open_question`)
leaves it here, under the conversation's scope key (its run, else its user,
agent or app), and the next add's extractor may ask for it
(``question`` in :meth:`~memorist.plugin.contracts.LanguageModel.context_wanted`): only an add whose
first message could be such an answer reads it, so other adds pay nothing.

The question stays open only while nothing else happened in the conversation:
it is kept with the scope's generation (:mod:`.generations`) after the add that
asked it, and a later add that stored anything, a delete or a reset moves the
generation on, which closes it; so does :data:`MAX_AGE`. It lives in the
relational database, so the reply may reach any worker or node. A delete of the
conversation's memories, a project's purge and a reset remove the rows too:
the question's text may hold what the user said.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from ..db import Database
from ..db.schema import open_questions
from ..records import Extraction, Message, Scope, utcnow
from .generations import Generation, ScopeGenerations, generation_key

log = logging.getLogger(__name__)

#: An open question older than this answers nothing: the reply is to something else.
MAX_AGE = timedelta(hours=1)
#: The scope a conversation is kept under: the most specific id the add carries.
_CONVERSATION_FIELDS = ("run_id", "user_id", "agent_id", "app_id")


def conversation_key(scope: Scope) -> str | None:
    """The key of the conversation ``scope`` is in (None without an entity id)."""
    for field in _CONVERSATION_FIELDS:
        value = getattr(scope, field)
        if value is not None:
            return generation_key(scope.org_id, scope.project_id, field, value)
    return None


class OpenQuestions:
    """Reads and writes each conversation's open question (table ``open_questions``)."""

    def __init__(self, db: Database, generations: ScopeGenerations) -> None:
        self._db = db
        self._generations = generations

    def open(self, scope: Scope, now: datetime | None = None) -> Message | None:
        """The question the conversation's last add ended on, while it is still open."""
        key = conversation_key(scope)
        if key is None:
            return None
        with self._db.connect() as conn:
            row = conn.execute(select(open_questions).where(open_questions.c.scope_key == key)).mappings().first()
        if row is None:
            return None
        now = now or utcnow()
        asked_at = row["asked_at"]
        if asked_at.tzinfo is None:  # SQLite returns naive datetimes
            asked_at = asked_at.replace(tzinfo=now.tzinfo)
        if now - asked_at > MAX_AGE:
            return None
        if self._generations.read(key) != (row["generation"], row["everything"]):
            return None  # something was stored, deleted or reset since
        return Message(role=row["role"], content=row["question"], name=row["name"])

    def note(self, scope: Scope, question: Message | None, bumped: dict[str, int]) -> None:
        """After an add: keep ``question`` (the add's open question) as the conversation's.
        ``bumped``: the generations the add's transaction wrote, if it stored anything.

        Best effort: the add is stored and acknowledged already; a failure here only loses
        the question (logged), never the add's answer.
        """
        key = conversation_key(scope)
        if question is None or key is None:
            return
        try:
            self._note(key, question, bumped)
        except (SQLAlchemyError, sqlite3.Error) as error:
            log.warning("could not keep the open question of %s: %s", key, error)

    def _note(self, key: str, question: Message, bumped: dict[str, int]) -> None:
        generation: Generation = (bumped[key], bumped.get("*", 0)) if key in bumped else self._generations.read(key)
        values = {
            "role": question.role,
            "name": question.name,
            "question": question.content,
            "generation": generation[0],
            "everything": generation[1],
            "asked_at": utcnow(),
        }
        with self._db.begin() as conn:
            if conn.execute(open_questions.update().where(open_questions.c.scope_key == key).values(**values)).rowcount:
                return
            try:
                with conn.begin_nested():
                    conn.execute(open_questions.insert().values(scope_key=key, **values))
            except IntegrityError:  # asked concurrently in the same conversation: the later wins
                conn.execute(open_questions.update().where(open_questions.c.scope_key == key).values(**values))

    def forget(self, keys: Iterable[str]) -> None:
        """Remove the open questions of these conversations (their memories were deleted)."""
        keys = sorted(set(keys))
        if keys:
            with self._db.begin() as conn:
                conn.execute(delete(open_questions).where(open_questions.c.scope_key.in_(keys)))

    def forget_project(self, org_id: str, project_id: str) -> None:
        """Remove every open question of a project (ids cannot hold '/': the prefix is exact)."""
        prefix = f"{org_id}/{project_id}/"
        with self._db.begin() as conn:
            conn.execute(delete(open_questions).where(open_questions.c.scope_key.startswith(prefix, autoescape=True)))

    def clear(self) -> None:
        """Remove every open question (a reset)."""
        with self._db.begin() as conn:
            conn.execute(delete(open_questions))


def asked_reader(
    questions: OpenQuestions | None, scope: Scope, batch: dict[str, Message | None] | None = None
) -> Callable[[], Message | None]:
    """What an add's extraction calls to read its conversation's open question (only if the
    language model wants it). In a batch (``Memory.add_many``), ``batch`` holds what the
    batch's earlier requests left (:func:`left_open`), which stands for the stored question:
    an earlier request of the batch may have answered or replaced it."""

    def asked() -> Message | None:
        conversation = conversation_key(scope)
        if batch is not None and conversation in batch:
            return batch[conversation]
        return questions.open(scope) if questions is not None else None

    return asked


def left_open(batch: dict[str, Message | None], scope: Scope, extraction: Extraction) -> None:
    """Record in ``batch`` the question a batch's request leaves its conversation with: the
    one it ended on; None (closed) when it proposed facts without ending on one; unchanged
    when it proposed nothing (as a lone add that stores nothing leaves the question open)."""
    conversation = conversation_key(scope)
    if conversation is not None and (extraction.facts or extraction.open_question is not None):
        batch[conversation] = extraction.open_question
