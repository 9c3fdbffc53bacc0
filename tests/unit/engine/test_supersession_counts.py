"""A new count of a thing a person has replaces the older count (the lexicons'
``counted_things``, ``number_words`` / ``count_words`` and ``ordinal_words``; the rule in
:mod:`memorist.engine.supersession_rule`), also when told as an event ("our third child")."""

from __future__ import annotations

import pytest
from memorist.engine.supersession_rule import supersedes

from tests.supersession_pairs import record as _record


@pytest.mark.parametrize(
    ("older", "newer", "replaces"),
    [
        ("The user has three grandkids.", "The user's fourth grandchild was born in May.", True),
        ("The user has 2 cats.", "The user has 3 cats now.", True),
        ("The user: Tengo dos hijas.", "The user: Nació nuestro tercer hijo en abril.", True),
        ("The user: Tengo un perro.", "The user: Ahora tenemos dos perros.", True),
        # More of another thing, or more told as an addition: both stay current.
        ("The user has two kids.", "The user also has three cats.", False),
        ("The user has a dog.", "The user also has two dogs.", False),
        ("The user: Tengo un gato.", "The user: También tengo dos perros.", False),
        # Someone else's count is not the user's.
        ("The user has two kids.", "The user's sister has three kids.", False),
        # The same count again changes nothing.
        ("The user has two kids.", "The user's two kids love soccer.", False),
    ],
)
def test_a_new_count_replaces_the_older(older: str, newer: str, replaces: bool) -> None:
    assert supersedes(_record(newer, 6), _record(older, 2)) is replaces
