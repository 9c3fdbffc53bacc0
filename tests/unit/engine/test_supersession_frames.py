"""The ninth round's mechanisms, each in several languages, each positive case failing on the
eighth round's code.

- a role is read past an adverb of time between the copula and the role ("is now a store
  manager at ...", "soy ahora cocinero en ...", "suis désormais cuisinier dans ...");
- a household "we" with its verb's clitic ("we've moved", "we're based") is the speaker;
- a change told around a noun object ("moved the team lunch to Monday", "movieron la cena
  al domingo") makes the object what the fact is about, whoever moved it;
- a "no longer" told around its verb ("je ne mange plus", "non bevo più", "não como mais")
  and a French stop verb on the older fact's object ("j'ai arrêté le vin") are changes;
- a moved count told in words, its unit elided ("so we're down to two", "jetzt nur noch
  vier") moves the count the fact names elsewhere; cardinals are lexicon rows per language;
- a listener's report ("will remember that", "je retiens que", "と覚えておきます") is read as
  the fact it wraps, and what the assistant reports of the user's person is the user's fact,
  as is what it says to its listener ("tu habites", "du arbeitest");
- a newer fact that keeps the older value beside a new one ("both guitar and piano", "Gitarre
  und Klavier") replaces nothing, unless a replacement marker or a change word ties them.
"""

from __future__ import annotations

import pytest
from memorist.engine.supersession_reports import reported
from memorist.engine.supersession_rule import supersedes
from memorist.python.engine import Engine

from tests.supersession_pairs import current_adds, record, replaces


@pytest.mark.parametrize(
    ("older", "newer", "expected"),
    [
        # A role past an adverb of time (the Romance frames take a role without an article, so
        # "Soy ahora cocinero en un restaurante" was read before; the adverb rows keep its words).
        ("The user works as a cashier at Target.", "The user is now a store manager at Costco.", True),
        ("The user works as a line cook at Nando's.", "The user is currently a sous chef at The Ivy.", True),
        # A household "we" with a clitic, in a clause of a long message.
        (
            "The user lives in York.",
            "Quick catch-up: work has been hectic, the user's sister visited, and we've moved to Leeds, "
            "so send any post there now. Also the user joined a choir on Mondays.",
            True,
        ),
        (
            "The user lives in Denver.",
            "Big news: the kids changed schools, and we've moved to Austin, so it's all new.",
            True,
        ),
        # A change around a noun object: the older fact's thing, whoever moved it.
        (
            "Brunch with the user's in-laws is Sunday at 11.",
            "The user's in-laws want to push brunch to Saturday at 10.",
            True,
        ),
        ("The user's piano lesson is Wednesday at 4pm.", "The teacher moved the piano lesson to Friday at 5pm.", True),
        ("The user: La cena con mis padres es el sábado.", "The user: Mis padres movieron la cena al domingo.", True),
        (
            "The user: Le dîner avec mes parents est samedi.",
            "The user: Mes parents ont décalé le dîner à dimanche.",
            True,
        ),
        ("The user: Team lunch is Friday at noon.", "The user: We moved the couch to the living room.", False),
        # "No longer" around its verb; a French stop verb on the older fact's object.
        ("The user: Je mange de la viande.", "The user: Je ne mange plus de viande.", True),
        ("The user: Bevo il caffè ogni mattina.", "The user: Non bevo più caffè.", True),
        ("The user: Eu como carne.", "The user: Não como mais carne.", True),
        ("The user: Je bois du vin le soir.", "The user: J'ai arrêté le vin.", True),
        ("The user: Je bois du thé.", "The user: Je ne mange plus de sucre.", False),
        # A moved count in words, its unit told in another clause.
        ("The user has 4 cats.", "The user: the neighbours adopted two of the cats, so the user is down to two.", True),
        ("The user: Tengo 5 gallinas.", "The user: Un zorro se llevó dos gallinas, así que nos quedan tres.", True),
        ("The user: Wir haben 6 Hühner.", "The user: Der Fuchs hat zwei Hühner geholt, wir haben nur noch vier.", True),
        ("The user has 4 cats.", "The user: the vet said the cats are down to one meal a day.", False),
        # A value kept beside a new one replaces nothing ...
        ("The user speaks Spanish.", "The user now speaks both Spanish and Italian.", False),
        ("The user: Juego al fútbol.", "The user: Ahora juego al fútbol y al pádel.", False),
        ("The user: Ich spiele Gitarre.", "The user: Jetzt spiele ich Gitarre und Klavier.", False),
        ("The user: Je parle anglais.", "The user: Maintenant je parle anglais et espagnol.", False),
        ("The user: Я играю в теннис.", "The user: Теперь я играю в теннис и в сквош.", False),
        # ... unless a replacement marker or a change word before it ties them.
        ("The user plays tennis.", "The user switched from tennis to squash and padel now.", True),
        ("The user is employed at a bank in Zurich.", "The user left the bank and joined a fintech startup.", True),
        (
            "The user: Ich arbeite als Krankenpfleger.",
            "The user: Ich habe gekündigt und arbeite jetzt als Lehrer.",
            True,
        ),
    ],
)
def test_the_rule_reads_the_rounds_kinds(older: str, newer: str, expected: bool) -> None:
    assert replaces(older, newer) is expected


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (
            "The assistant will remember that the user's manager is now Angela Kim.",
            "the user's manager is now Angela Kim.",
        ),
        ("The assistant: Noted, the user's gym is FitZone.", "The assistant: the user's gym is FitZone."),
        ("The assistant: Me acordaré de que tu jefa es Marta.", "The assistant: tu jefa es Marta."),
        ("The assistant: Je retiens que tu vis à Lyon.", "The assistant: tu vis à Lyon."),
        ("The assistant: Ich merke mir, dass du in Köln wohnst.", "The assistant: du in Köln wohnst."),
        ("The assistant: Запомню, что ты живёшь в Казани.", "The assistant: ты живёшь в Казани."),
        ("The assistant: Vou lembrar que o seu chefe é o Rui.", "The assistant: o seu chefe é o Rui."),
        ("The assistant: 上司は田中さんだと覚えておきます。", "The assistant: 上司は田中さんだ"),
        # A report's word inside a fact is no frame.
        ("The user got it from a friend in Rome.", "The user got it from a friend in Rome."),
        ("The user noted that the train was late.", "The user noted that the train was late."),
    ],
)
def test_a_report_is_read_as_the_fact_it_wraps(text: str, fact: str) -> None:
    assert reported(text) == fact


@pytest.mark.parametrize(
    ("older", "newer", "expected"),
    [
        (
            "The user's dentist is Dr. Patel.",
            "The assistant will remember that the user's dentist is now Dr. Moreno.",
            True,
        ),
        (
            "The user's manager is Tom Whitaker.",
            "The assistant has noted that the user's manager is now Angela Kim.",
            True,
        ),
        # The listener's words in what the assistant says name the user.
        ("The user: J'habite à Lyon.", "The assistant: Noté, tu habites maintenant à Grenoble.", True),
        ("The user: Ich arbeite bei Siemens.", "The assistant: Verstanden, du arbeitest jetzt bei Bosch.", True),
        ("The user: Abito a Torino.", "The assistant: Capito, ora tu abiti a Bologna.", True),
        # The assistant's own fact stays apart from the user's.
        ("The user's dentist is Dr. Patel.", "The assistant will remember to ask about the new clinic.", False),
    ],
)
def test_the_assistants_report_of_the_users_person_replaces(older: str, newer: str, expected: bool) -> None:
    assert supersedes(record(newer, 6, "assistant"), record(older, 2, "user")) is expected


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        # Stored (a negation is no duplicate of what it negates) and replacing.
        (["Je mange de la viande.", "Je ne mange plus de viande."], [1]),
        (["Ich esse Fleisch.", "Ich esse kein Fleisch mehr."], [1]),
        (["We have 4 cats.", "The neighbours adopted two of our cats, so we're down to two."], [1]),
        (["Tengo 5 gallinas.", "Un zorro se llevó dos gallinas, así que nos quedan tres."], [1]),
        (
            [
                "I speak Spanish.",
                [
                    {"role": "user", "content": "I started Italian classes last month!"},
                    {"role": "assistant", "content": "Great, so you speak both Spanish and Italian now."},
                ],
            ],
            [0, 1],
        ),
        (
            [
                "My dentist is Dr. Patel.",
                [
                    {"role": "user", "content": "Quick update on the dental side of things."},
                    {"role": "assistant", "content": "Got it, I'll remember that your dentist is now Dr. Moreno."},
                ],
            ],
            [1],
        ),
    ],
)
def test_latest_only_lists_the_current_version(engine: Engine, adds: list[object], current: list[int]) -> None:
    assert current_adds(engine, f"f{abs(hash(repr(adds)))}", adds) == current
