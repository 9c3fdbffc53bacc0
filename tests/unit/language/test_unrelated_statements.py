"""The lexicons' ``unrelated_statements``: the data ``benchmarks/chance_levels.py`` measures a
language's chance-level cosine with (docs/language.md). Each list is six to eight distinct
short statements written in its language's own script."""

from __future__ import annotations

import pytest
from memorist.language import lexicon, main_script, words

CODES = "en de fr es it pt ru nl sv pl tr ar hi ja zh ko el he th".split()


@pytest.mark.parametrize("code", CODES)
def test_each_list_holds_short_distinct_statements_in_its_script(code: str) -> None:
    statements = [str(s) for s in lexicon(code).get("unrelated_statements") or ()]
    assert 6 <= len(statements) <= 8, code
    assert len(set(statements)) == len(statements)
    scripts = set(lexicon(code).scripts)
    for statement in statements:
        assert main_script(statement) in scripts, statement
        assert len(words(statement)) <= 20, statement
