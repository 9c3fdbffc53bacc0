"""The query-kind gate follows the languages the embedder reads (issue 35).

Ranking an agent's turn by meaning alone (``engine.query_kind``) is right only where the
embedder reads the query: the default English MiniLM puts every Korean, Chinese or Arabic
memory near a question in that language, and there the keyword index must keep carrying
the ranking. The embedder declares what it reads (``Embedder.languages``: the model card's
``language`` for a local model, USE's sixteen, configurable for an OpenAI-compatible one).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from memorist import Engine as Memory
from memorist.engine.query_kind import embedder_reads
from memorist.plugin_api import ProviderContext
from memorist_openai.embedder import OpenAIEmbedder
from memorist_sentence_transformers.model_card import card_languages, normalized
from memorist_sentence_transformers.multilingual_use import LANGUAGES as USE_LANGUAGES


@pytest.mark.parametrize(
    ("query", "english_reads"),
    [
        ("Can you suggest a dinner recipe for tonight?", True),
        ("What should I bring to the office potluck?", True),
        ("딸은 언제 졸업하나요?", False),
        ("用户对什么过敏？", False),
        ("ما اللغة التي يتعلمها؟", False),
        ("仕事はどこですか？", False),
        ("Was soll ich zum Mittagessen im Büro mitbringen?", False),
        ("Какая у меня работа?", False),
    ],
)
def test_an_english_embedder_reads_english_queries_only(query: str, english_reads: bool) -> None:
    assert embedder_reads(frozenset({"en"}), query) is english_reads
    assert embedder_reads(None, query)  # an embedder that reads every language
    assert embedder_reads(USE_LANGUAGES, query)  # USE reads all of these


def test_the_model_card_names_the_languages(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("---\nlanguage: en\nlicense: apache-2.0\n---\n# A model\n")
    assert card_languages(tmp_path) == frozenset({"en"})
    (tmp_path / "README.md").write_text("---\nlanguage:\n- de\n- fr\n- zh-TW\n---\n")
    assert card_languages(tmp_path) == frozenset({"de", "fr", "zh"})
    (tmp_path / "README.md").write_text("---\nlanguage: multilingual\n---\n")
    assert card_languages(tmp_path) is None  # every language
    (tmp_path / "README.md").write_text("# No front matter\nlanguage: en\n")
    assert card_languages(tmp_path) is None
    (tmp_path / "README.md").write_text("---\nlanguage: [unclosed\n---\n")
    assert card_languages(tmp_path) is None
    assert card_languages(tmp_path / "missing") is None
    assert normalized(["EN", "pt_BR"]) == frozenset({"en", "pt"})


def test_the_default_embedder_declares_english_and_a_configured_list_wins(tmp_path: Path) -> None:
    engine = Memory.from_config({"data_dir": str(tmp_path / "default")})
    try:
        assert engine.components.embedder.languages == frozenset({"en"})  # all-MiniLM-L6-v2's card
    finally:
        engine.close()
    engine = Memory.from_config(
        {"data_dir": str(tmp_path / "listed"), "embedder": {"options": {"languages": ["en", "de"]}}}
    )
    try:
        assert engine.components.embedder.languages == frozenset({"en", "de"})
    finally:
        engine.close()


def test_an_openai_compatible_embedder_reads_every_language_unless_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # never used: nothing is embedded here
    context = ProviderContext(data_dir=tmp_path)
    options: dict[str, Any] = {"model": "an-embedder", "base_url": "http://127.0.0.1:9/v1", "dimensions": 8}
    assert OpenAIEmbedder(OpenAIEmbedder.Options(**options), context).languages is None
    local = OpenAIEmbedder(OpenAIEmbedder.Options(**options, languages=["en"]), context)
    assert local.languages == frozenset({"en"})


#: (memories one user stated, a question in their language, the memory that answers it).
#: Each question names no entity, shares its words with the answer only, and the English
#: MiniLM, which does not read the language, ranks another memory of it first by cosine.
NOT_READ = [
    (
        (
            "저는 서울에서 디자이너로 일하고 있어요.",
            "주말마다 등산을 가요.",
            "저는 부산에서 태어났어요.",
            "요즘 스페인어를 배우고 있어요.",
            "저는 땅콩 알레르기가 있어요.",
            "딸이 다음 달에 대학을 졸업해요.",
            "매일 아침 요가를 해요.",
        ),
        "딸은 언제 졸업하나요?",
        "딸이 다음 달에 대학을 졸업해요.",
    ),
    (
        (
            "我在上海的一家医院当护士。",
            "我儿子叫小明，今年八岁。",
            "我每天早上喝一杯咖啡。",
            "我对海鲜过敏。",
            "我最喜欢的运动是羽毛球。",
            "我住在北京的朝阳区。",
            "我正在学习弹吉他。",
        ),
        "用户对什么过敏？",
        "我对海鲜过敏。",
    ),
    (
        (
            "أعيش في القاهرة مع عائلتي.",
            "أعمل مهندسًا في شركة نفط.",
            "أحب كرة القدم وأشجع نادي الأهلي.",
            "أشرب الشاي بالنعناع كل مساء.",
            "عندي حساسية من الغبار.",
            "أتعلم اللغة الألمانية في المساء.",
            "أخي طبيب أسنان في دبي.",
        ),
        "ما اللغة التي يتعلمها؟",
        "أتعلم اللغة الألمانية في المساء.",
    ),
]


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    engine = Memory.from_config({"data_dir": str(tmp_path), "engine": {"query_kind": True}})
    try:
        yield engine
    finally:
        engine.close()


@pytest.mark.parametrize(("said", "question", "answer"), NOT_READ, ids=["ko", "zh", "ar"])
def test_a_question_the_embedder_does_not_read_keeps_its_keyword_ranking(
    memory: Memory, said: tuple[str, ...], question: str, answer: str
) -> None:
    for text in said:
        memory.add([{"role": "user", "content": text}], user_id="mina")
    hits = memory.search(question, user_id="mina", top_k=3, explain=True)
    assert hits[0].record.text.endswith(answer), [(h.record.text, h.score) for h in hits]
    details = hits[0].details
    assert details is not None and details["keyword"] > 0
