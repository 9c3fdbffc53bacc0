"""The one segmenter: sentences and clauses in every script the lexicons cover, by the kind
of boundary each reader parts at."""

from __future__ import annotations

import pytest
from memorist.language import (
    Boundary,
    at_sentence_start,
    boundaries,
    has_boundary,
    join_sentences,
    opening_break,
    sentences,
    split,
)
from memorist.language.segments import abbreviations

#: The kinds the keyword index detects a clause's language by.
CLAUSES = Boundary.LINE | Boundary.SENTENCE | Boundary.CLAUSE | Boundary.COLON
#: The kinds the supersession rule reads a later clause's subject after.
PHRASES = Boundary.CLAUSE | Boundary.COLON | Boundary.PHRASE


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "We saw Dr. Patel and Mrs. Ng at 9 a.m. yesterday. It went well, e.g. no waiting.",
            ["We saw Dr. Patel and Mrs. Ng at 9 a.m. yesterday.", "It went well, e.g. no waiting."],
        ),
        ('She said "Done." Then she left!', ['She said "Done."', "Then she left!"]),
        ("It cost 3.5 euros... and then? Nothing.", ["It cost 3.5 euros... and then?", "Nothing."]),
        ("Ich wohne in Berlin. Mein Bruder lebt in Hamburg!", ["Ich wohne in Berlin.", "Mein Bruder lebt in Hamburg!"]),
        (
            "私は東京で働いています。猫が好きです！週末は何をしますか？",
            ["私は東京で働いています。", "猫が好きです！", "週末は何をしますか？"],
        ),
        ("我住在上海。我喜欢喝茶！你呢？", ["我住在上海。", "我喜欢喝茶！", "你呢？"]),
        ("أعيش في القاهرة. هل تحب الشاي؟ نعم، أحبه كثيرا.", ["أعيش في القاهرة.", "هل تحب الشاي؟", "نعم، أحبه كثيرا."]),
        ("मैं दिल्ली में रहता हूँ। मुझे चाय पसंद है।", ["मैं दिल्ली में रहता हूँ।", "मुझे चाय पसंद है।"]),
        ("ฉันอาศัยอยู่ที่กรุงเทพ\nฉันชอบกินข้าวผัด", ["ฉันอาศัยอยู่ที่กรุงเทพ", "ฉันชอบกินข้าวผัด"]),
    ],
)
def test_sentences_in_every_script(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


def test_a_line_break_always_ends_a_sentence_and_blank_lines_vanish() -> None:
    assert sentences("  I moved to Porto\n\n  my sister lives in Lisbon  \n") == [
        "I moved to Porto",
        "my sister lives in Lisbon",
    ]


def test_a_full_stop_before_a_lower_case_word_ends_no_sentence() -> None:
    # A name or a title with a dot inside a sentence ("St. louis" typed carelessly, "v. small").
    assert sentences("The box was v. small. We sent it back.") == ["The box was v. small.", "We sent it back."]


def test_abbreviations_are_read_in_any_case_as_whole_words() -> None:
    assert sentences("Ask DR. Lee about it. Then call me.") == ["Ask DR. Lee about it.", "Then call me."]
    # "Mr." inside another word is no title: "Humr. Then" is a full stop.
    assert sentences("I stayed in Humr. Then I flew home.") == ["I stayed in Humr.", "Then I flew home."]
    assert "dr." in abbreviations() and all(word.endswith(".") for word in abbreviations())


def test_a_japanese_quote_stays_in_its_sentence() -> None:
    # "「はい。」と言った" is one sentence: what follows the quote continues it.
    assert sentences("彼は「はい。」と言った。明日また来ます。") == ["彼は「はい。」と言った。", "明日また来ます。"]


def test_thai_has_no_sentence_mark_so_a_line_is_one_sentence() -> None:
    assert sentences("ฉันอาศัยอยู่ที่กรุงเทพ ฉันชอบกินข้าวผัด") == ["ฉันอาศัยอยู่ที่กรุงเทพ ฉันชอบกินข้าวผัด"]


@pytest.mark.parametrize(
    ("mark", "kind"),
    [
        ("。", Boundary.SENTENCE),
        ("！", Boundary.SENTENCE),
        ("？", Boundary.SENTENCE),
        ("؟", Boundary.SENTENCE),
        ("।", Boundary.SENTENCE),
        ("॥", Boundary.SENTENCE),
        ("።", Boundary.SENTENCE),
        ("…", Boundary.SENTENCE),
        ("；", Boundary.CLAUSE),
        ("؛", Boundary.CLAUSE),
        ("：", Boundary.COLON),
        ("،", Boundary.PHRASE),
        ("、", Boundary.PHRASE),
        ("，", Boundary.PHRASE),
        ("—", Boundary.DASH),
        ("(", Boundary.BRACKET),
    ],
)
def test_each_scripts_marks_have_their_kind(mark: str, kind: Boundary) -> None:
    text = f"a{mark} b"
    assert has_boundary(text, kind)
    others = ~kind & ~Boundary.LINE
    assert not has_boundary(text, others), f"{mark!r} is a {kind!r} only"


def test_western_marks_part_only_before_a_space() -> None:
    text = "We met at 10:30, paid 1,200.50 euros; e.g. cash: all of it."
    assert split(text, PHRASES) == ["We met at 10:30", "paid 1,200.50 euros", "e.g. cash", "all of it."]
    # The keyword index reads an address in pieces: its "com" is no word of the sentence.
    assert split("Mi correo es ana.gomez@gmail.com.", CLAUSES, within_words=True) == [
        "Mi correo es ana",
        "gomez@gmail",
        "com",
        "",
    ]


def test_full_width_marks_part_where_they_stand() -> None:
    text = "我住在上海，在一家银行工作；周末去爬山。"
    assert split(text, Boundary.CLAUSE) == ["我住在上海，在一家银行工作", "周末去爬山。"]
    assert split(text, Boundary.PHRASE | Boundary.CLAUSE | Boundary.SENTENCE) == [
        "我住在上海",
        "在一家银行工作",
        "周末去爬山",
        "",
    ]
    assert split("東京：晴れ、大阪：雨", Boundary.COLON) == ["東京", "晴れ、大阪", "雨"]


def test_a_reader_parts_only_at_the_kinds_it_asks_for() -> None:
    fact = "The user: David passed away in January; the user is a widow, and lives in Ohio."
    assert split(fact, PHRASES) == [
        "The user",
        "David passed away in January",
        "the user is a widow",
        "and lives in Ohio.",
    ]
    assert split(fact, Boundary.CLAUSE) == [
        "The user: David passed away in January",
        "the user is a widow, and lives in Ohio.",
    ]
    assert split("Ich lebe in Köln: seit 2019, mit Anna.", Boundary.SENTENCE) == [
        "Ich lebe in Köln: seit 2019, mit Anna",
        "",
    ]


def test_dashes_brackets_and_a_spaced_hyphen_are_asides() -> None:
    assert split("I live in Porto—for now (maybe longer)", Boundary.DASH | Boundary.BRACKET) == [
        "I live in Porto",
        "for now ",  # a space before a mark stays with its piece
        "maybe longer",
        "",
    ]
    assert split("I'm keen on mental health - I'd love to help.", Boundary.HYPHEN) == [
        "I'm keen on mental health ",
        "I'd love to help.",
    ]
    assert not has_boundary("a well-known 9-5 job", Boundary.HYPHEN | Boundary.DASH)


def test_boundaries_are_spans_of_the_marks_with_their_spaces() -> None:
    text = "Hola, soy Ana؛ vivo en Madrid."
    assert [text[a:b] for a, b in boundaries(text, PHRASES)] == [", ", "؛ "]


@pytest.mark.parametrize(
    ("rest", "opens"),
    [
        (", and my partner is joining", "my partner is joining"),
        (" because the venue changed", "the venue changed"),
        (" — and so we moved it", "we moved it"),
        ("; so, my budget grew", "my budget grew"),
        (" per month", None),
        (" android phones", None),  # "and" only as a word of its own
    ],
)
def test_opening_break_reads_marks_and_joiner_words(rest: str, opens: str | None) -> None:
    kinds = Boundary.CLAUSE | Boundary.COLON | Boundary.PHRASE | Boundary.DASH | Boundary.HYPHEN
    end = opening_break(rest, kinds, frozenset({"and", "because", "so"}))
    assert (rest[end:] if end else None) == opens


def test_sentences_join_without_a_space_after_a_full_width_stop() -> None:
    # A message's kept sentences become one memory again: Japanese writes no space after "。".
    assert join_sentences("私は東京に住んでいます。", "猫が好きです。") == "私は東京に住んでいます。猫が好きです。"
    assert join_sentences("I live in Tokyo.", "I like cats.") == "I live in Tokyo. I like cats."
    assert join_sentences("", "Ich wohne in Köln.") == "Ich wohne in Köln."


@pytest.mark.parametrize(
    ("text", "word", "opens"),
    [
        ("I met Dr. Okafor yesterday. you know him?", "Okafor", False),  # after an abbreviation
        ("I met Dr. Okafor yesterday. you know him?", "you", True),
        ("We met at 5 p.m. you were late.", "you", False),
        ('She said: "you rock"', "you", True),  # after an opening quote
        ("Sure\n  you can", "you", True),  # after a line break
        ("Hallo, ich bin Ana", "ich", False),
        ("ありがとう！私は大阪出身です。", "私", True),
        ("شكرا؟ أنا من القاهرة", "أنا", True),
        ("धन्यवाद। मैं दिल्ली से हूँ", "मैं", True),
    ],
)
def test_at_sentence_start(text: str, word: str, opens: bool) -> None:
    assert at_sentence_start(text, text.index(word)) is opens
    assert at_sentence_start(text, 0)
