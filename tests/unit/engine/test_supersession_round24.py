"""The twenty-fourth round's mechanisms (each positive case failed on the code before):

- the speaker asking the listener to keep what follows ("save my buddy Jake's number: ...",
  "Note le numéro de ma copine Léa", "Запиши номер моей сестры"; a `record_requests` row in
  nineteen lexicons, counted where a clause opens, past interjections) is no part of the
  fact: the fact after it is read, and a friend's or relative's number or address kept for
  the speaker replaces none of the speaker's own;
- a relative named in the possessive after the speaker's word for them ("the user's mate
  Tom's number"), in a language's genitive with no apostrophe ("min vens nummer", a
  `genitive_suffixes` row), or after the preposition a language puts before an owner ("die
  Nummer von meinem Kumpel", "numer do siostry") owns the thing;
- dictated speech runs its sentences on with "and then": the additive word of the piece after
  it ("... and then I also joined a gym") adds only that piece's fact;
- another language's additive word that the statement's own grammar uses otherwise (German
  "also", so) adds nothing;
- a fact told again after a newer one replaced it ("I live in Lisbon" after "I moved to
  Porto") is current again: it is stored anew, not merged into its replaced version, in a
  batch as in one add after another;
- in a text typed without capitals, a word no lexicon lists may be a name: "ankara olmadı
  bursaya döndük" is no paraphrase of "ankaraya taşındık", however close their vectors;
- a name in the possessive opening a statement behind the label ("The assistant: Saved Tom's
  number as ...") owns the thing: the listener's note of a friend's number is the friend's;
- an offer of the listener's turned down ('The assistant asked "Shall I switch you to
  Vodafone?" The user replied: nah, Three is fine') changes nothing: `offer_questions` and
  `declining_replies` rows in every lexicon.
"""

from __future__ import annotations

from typing import Any

import pytest
from memorist.engine.dedup import values_agree
from memorist.engine.supersession_offers import declined_reply
from memorist.engine.supersession_reports import told

from tests.supersession_pairs import current_adds, replaces_as_told


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user's number is 0412 555 019.", "can you save the user's buddy jake's number? it's 0413 222 981"),
        ("The user lives at 5 Park Lane, Leeds.", "um note down the user's grandma's address, 12 Hill Street, Dover"),
        (
            "The user: Meine Nummer ist 0171 2345678.",
            "The user: Speicher mal die Nummer von meinem Kumpel Jonas: 0160 998877",
        ),
        (
            "The user: Mon numéro est le 06 11 22 33 44.",
            "The user: euh note le numéro de mon pote Karim : 06 55 66 77 88",
        ),
        ("The user: Mi número es el 612 345 678.", "The user: Apunta el número de mi amiga Carla: 699 111 222"),
        ("The user: Mój numer to 501 203 405.", "The user: Zapisz numer do kumpla Marka: 606 700 800"),
        ("The user: Mit nummer er 20 30 40 50.", "The user: Gem lige min vens nummer, det er 22 68 10 45"),
        ("The user: Мой номер 8 912 345-67-89.", "The user: Запиши номер моей сестры: 8 913 111-22-33"),
        ("The user: אני גר ברחוב הרצל 8 ברחובות.", "The user: תרשום את הכתובת של אמא שלי, רחוב ויצמן 22 בכפר סבא"),
    ],
)
def test_a_number_or_address_kept_for_someone_else_replaces_nothing(older: str, newer: str) -> None:
    assert not replaces_as_told(older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user's number is 0412 555 019.", "save the user's new number: 0413 999 111"),
        ("The user: Mój numer to 501 203 405.", "The user: Zapisz mój nowy numer: 606 700 800"),
        ("The user: Mon numéro est le 06 11 22 33 44.", "The user: Note mon nouveau numéro : 06 55 66 77 88"),
    ],
)
def test_a_request_to_keep_the_speakers_own_new_value_replaces_it(older: str, newer: str) -> None:
    assert replaces_as_told(older, newer)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("uh save the user's mate tom's number it's 0770", "the user's mate tom's number it's 0770"),
        ("The user: euh note le numéro de mon pote : 06 55", "The user: le numéro de mon pote : 06 55"),
        ("The user: Zapisz numer do siostry: 606 700 800", "The user: numer do siostry: 606 700 800"),
        # Only where a clause opens: elsewhere the words are the fact's own.
        ("The user wants to save money for a flat", "The user wants to save money for a flat"),
    ],
)
def test_a_request_to_keep_is_unwrapped_where_a_clause_opens(text: str, fact: str) -> None:
    assert told(text) == fact


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user weighs 92 kilos.", "so the user is down to 86 kilos and then they also joined a gym"),
        ("The user: Ich wiege 97 Kilo.", "The user: also ich wiege jetzt 89 kilo"),
        (
            "The user: Ich wiege 97 Kilo.",
            "The user: äh also ich hab abgenommen ich wiege jetzt nur noch 89 kilo und dann hab ich auch "
            "mit dem Joggen angefangen",
        ),
    ],
)
def test_an_and_then_piece_or_a_german_also_adds_nothing_to_a_moved_weight(older: str, newer: str) -> None:
    assert replaces_as_told(older, newer)


def test_an_additive_word_in_its_own_sentence_still_adds() -> None:
    # "also" adds the second weight-free fact; the first keeps the older weight as it was.
    assert not replaces_as_told("The user weighs 92 kilos.", "The user also weighs their luggage before flights.")


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        (["I live in Lisbon.", "I moved to Porto.", "I live in Lisbon."], [2]),
        (["My phone number is 555-1234.", "My new number is 555-9876.", "My phone number is 555-1234."], [2]),
        (["Ich wohne in Köln.", "Ich bin nach Bonn gezogen.", "Ich wohne in Köln."], [2]),
        # Told again while it is still current, it stays one memory.
        (["I live in Lisbon.", "I live in Lisbon."], [0]),
    ],
)
def test_a_fact_told_again_after_it_was_replaced_is_current_again(
    engine: Any, adds: list[str], current: list[int]
) -> None:
    user = f"r24-again-{len(adds)}-" + adds[1].split()[-1].strip(".")
    assert current_adds(engine, user, adds) == current


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("The user: ankara olmadı bursaya döndük nilüferde oturuyoruz", "The user: ankaraya taşındık", False),
        ("the user moved back to leeds from york", "the user moved to york", False),
        ("the user loves hiking", "The user loves hiking", True),
    ],
)
def test_a_word_typed_without_capitals_may_be_a_name(a: str, b: str, same: bool) -> None:
    assert values_agree(a, b) is same


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user's phone number is 07400 123 987.", "The assistant: Saved Tom's number as 07700 556 3121."),
        ("The user lives in Sants.", "The user: Ana's flat is in Gràcia now."),
    ],
)
def test_a_named_owner_opening_the_statement_keeps_the_speakers_own(older: str, newer: str) -> None:
    assert not replaces_as_told(older, newer)


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        (
            [
                "My mobile provider is Three.",
                [
                    {"role": "assistant", "content": "Shall I switch you to Vodafone? Their plan is £5 cheaper."},
                    {"role": "user", "content": "nah, Three is fine"},
                ],
            ],
            [0, 1],
        ),
        (
            [
                "I take the 7:40 train to work.",
                [
                    {"role": "assistant", "content": "Want me to set your commute to the 8:10 train instead?"},
                    {"role": "user", "content": "no"},
                ],
            ],
            [0, 1],
        ),
        # Accepted, the offer is a change.
        (
            [
                "I take the 7:40 train to work.",
                [
                    {"role": "assistant", "content": "Want me to set your commute to the 8:10 train instead?"},
                    {"role": "user", "content": "yes please, I take the 8:10 train now"},
                ],
            ],
            [1],
        ),
    ],
)
def test_an_offer_turned_down_changes_nothing(engine: Any, adds: list[Any], current: list[int]) -> None:
    user = f"r24-offer-{len(current)}-" + adds[0].split()[-1].strip(".")
    assert current_adds(engine, user, adds, every_add_stored=True) == current


@pytest.mark.parametrize(
    ("text", "rest"),
    [
        ('The assistant asked "Shall I switch you to Vodafone?" The user replied: nah, Three is fine', "Three is fine"),
        ('The assistant asked "Soll ich dir lieber Bolt buchen?" The user replied: nein danke', ""),
        ('The assistant asked "Voulez-vous que je passe chez Orange ?" The user replied: non merci', ""),
        ('The assistant asked "Хотите, чтобы я перенёс запись на пятницу?" The user replied: нет, не надо', "не надо"),
        # A question that offers nothing, answered no, may tell a change ("no, I moved").
        ('The assistant asked "Are you still in York?" The user replied: no, I moved to Leeds', None),
        ('The assistant asked "Shall I switch you to Vodafone?" The user replied: yes please', None),
    ],
)
def test_an_offer_is_declined_by_its_reply(text: str, rest: str | None) -> None:
    assert declined_reply(text) == rest


@pytest.mark.parametrize(
    "newer",
    [
        # An offer to keep, turned down, is a change.
        'The assistant asked "Shall I keep Mads as your emergency contact?" The user replied: no, it\'s Sofie now',
        # A refusal that goes on to tell a change of its own.
        'The assistant asked "Shall I switch your contact to Lars?" The user replied: no, I changed it to Sofie',
    ],
)
def test_a_refusal_that_tells_a_change_of_its_own_replaces(newer: str) -> None:
    assert replaces_as_told("The user's emergency contact is Mads.", newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user is allergic to peanuts.", "The user is allergic to shellfish."),
        ("The user: Ich bin allergisch gegen Nüsse.", "The user: Ich bin allergisch gegen Katzen."),
        ("The user: 私は卵アレルギーです", "The user: 私はそばアレルギーです"),
    ],
)
def test_a_second_allergy_adds_to_the_first(older: str, newer: str) -> None:
    assert not replaces_as_told(older, newer)


def test_an_allergy_said_to_be_gone_is_replaced() -> None:
    older = "The user is allergic to peanuts."
    assert replaces_as_told(older, "The user is no longer allergic to peanuts, only to shellfish now.")


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        (["I work at the Manchester office."], [0]),
        (
            [
                "I work at the Manchester office.",
                [
                    {"role": "assistant", "content": "Got it, so you're based at the Manchester office."},
                    {"role": "user", "content": "no, it's the Leeds office now"},
                ],
            ],
            [1],
        ),
        (
            [
                "Mijn huisarts is dokter Jansen.",
                [
                    {"role": "assistant", "content": "Ik heb je huisarts bijgewerkt naar dokter de Vries."},
                    {"role": "user", "content": "top, dank je"},
                ],
            ],
            [1],
        ),
        (
            [
                [
                    {"role": "user", "content": "私の住所は大阪市北区1-2-3です"},
                    {"role": "assistant", "content": "登録しました。"},
                ],
                [
                    {"role": "user", "content": "住所を京都市左京区4-5-6に変更してください"},
                    {"role": "assistant", "content": "住所を京都市左京区4-5-6に変更しました。"},
                ],
            ],
            [1],
        ),
    ],
)
def test_a_change_told_through_the_assistant_is_current(engine: Any, adds: list[Any], current: list[int]) -> None:
    user = f"r24-agent-{len(adds)}-{len(str(adds))}"
    assert current_adds(engine, user, adds, every_add_stored=True) == current


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # "work" qualifies the e-mail or phone after it: no employer of the user's.
        ("The user works at Microsoft now.", "The user's work email is alice@example.org."),
        ("The user works at Microsoft now.", "The user's work phone is 020 7946 0000."),
        # The partner's name is the partner's, not the user's own.
        ("The user's name is Alice Moreau.", "The user's husband is called Mark."),
    ],
)
def test_a_qualifier_or_a_partners_name_names_no_attribute_of_the_users(older: str, newer: str) -> None:
    assert not replaces_as_told(older, newer)
