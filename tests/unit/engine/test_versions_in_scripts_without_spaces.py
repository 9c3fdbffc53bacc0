"""Versions of one fact in scripts written without spaces (Chinese, Japanese, Korean, Thai).

A run of such a script is a whole clause, not a word: read as one word, any two facts
"differ in one word" ("The user: 火曜日はジムに行きます。" / "The user: 兄は大阪に住んでいます。")
and the newer was put first, over the answer. There they are versions only when equal once
their values (numbers) are masked; English keeps its one-word versions.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from memorist.engine.hits import SearchHit
from memorist.engine.versions import current_first, newest_versions_first, version_key
from memorist.python.engine import Engine
from memorist.records import MemoryRecord


def _hits(*texts: str) -> list[SearchHit]:
    """Hits in the given order, scored 0.9, 0.8, ...; the later in the list, the newer."""
    out = []
    for rank, text in enumerate(texts):
        when = datetime(2024, 5, 1 + rank, tzinfo=UTC)
        record = MemoryRecord(
            id=f"m{rank}", text=text, hash=text, user_id="u", observed_at=when, created_at=when, updated_at=when
        )
        out.append(SearchHit(record, 0.9 - rank / 10, details={"score": 0.9 - rank / 10}))
    return out


@pytest.mark.parametrize(
    ("answer", "unrelated"),
    [
        ("The user: 兄は大阪に住んでいます。", "The user: 火曜日はジムに行きます。"),
        ("The user: 我哥哥住在北京。", "The user: 我每周二去健身房。"),
        ("The user: 제 형은 부산에 살아요.", "The user: 저는 화요일에 헬스장에 가요."),
        ("The user: พี่ชายของฉันอยู่ที่เชียงใหม่", "The user: ฉันไปยิมวันอังคาร"),
    ],
)
def test_two_unrelated_facts_without_spaces_are_not_versions(answer: str, unrelated: str) -> None:
    given = _hits(answer, unrelated)  # the unrelated fact is newer and scores lower
    ranked = current_first(given, "")
    assert [h.record.id for h in ranked] == ["m0", "m1"]
    assert all("reordered" not in (h.details or {}) for h in ranked)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The user: 私の電話番号は090-1234-5678です。", "The user: 私の電話番号は080-9999-0000です。"),
        ("The user: 我的电话号码是13800001111。", "The user: 我的电话号码是13900002222。"),
    ],
)
def test_a_changed_number_without_spaces_is_still_a_newer_version(old: str, new: str) -> None:
    assert version_key(old) == version_key(new)
    ranked = newest_versions_first(_hits(old, new))
    assert [h.record.id for h in ranked] == ["m1", "m0"]
    assert (ranked[0].details or {}).get("reordered") == "newer_version"


def test_english_short_facts_differing_in_one_word_stay_versions() -> None:
    ranked = newest_versions_first(_hits("The user's favorite color is green.", "The user's favorite color is blue."))
    assert [h.record.id for h in ranked] == ["m1", "m0"]


def test_a_japanese_question_finds_its_answer_first(tmp_path: Path) -> None:
    """The measured case: "Where does my brother live?" in Japanese, through the engine."""
    mem = Engine.from_config({"data_dir": str(tmp_path)})
    try:
        mem.add("兄は大阪に住んでいます。", user_id="ken")
        mem.add("火曜日はジムに行きます。", user_id="ken")
        hits = mem.search("兄はどこに住んでいますか？", user_id="ken", top_k=2)
        assert "大阪" in hits[0].record.text, [h.record.text for h in hits]
    finally:
        mem.close()
