"""The language reading from each lexicon's evidence, on close neighbours.

Each positive case reads a sentence whose language is told by a letter of its alphabet
that its lexicon now lists (Turkish "ç", "ü"; Polish "ó"; Swedish "ä", "ö"; Danish "å"),
or by letters alone when the text has no default-language word at all. English sentences
with a loanword stay English.
"""

import pytest
from memorist.language import language_of


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Üç çocuğum var.", "tr"),  # tr/sv: "var" is Swedish's word too
        ("İki çocuğum var.", "tr"),
        ("Kör försiktigt, vägen är hal.", "sv"),
        ("Tandläkarbesöket har flyttats till torsdag.", "sv"),  # sv/de: ä and ö
        ("Tandlægen er på tirsdag nu.", "da"),  # da/sv: æ and å
    ],
)
def test_a_letter_of_the_alphabet_tells_the_language(text: str, expected: str) -> None:
    assert language_of(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "See you mañana at the café.",
        "I had a jalapeño burger and a crème brûlée for dinner.",
        "My friend from Göteborg is visiting next week.",
        "We ordered döner kebab after the show.",
        "Le Guin.",  # ASCII, no English word: the margin keeps the default
        "Can you recommend a science fiction book?",
    ],
)
def test_english_with_a_loanword_stays_english(text: str) -> None:
    assert language_of(text) == "en"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ça va.", "fr"),  # ç is Turkish's too now: letters lead with no English word
        ("Ça marche.", "fr"),
        ("Kötü günler geçti.", "tr"),
        ("Mój brat mieszka w Krakowie od roku.", "pl"),
        ("Je m'appelle Élodie et j'habite à Lyon.", "fr"),
        ("Eu moro em São Paulo com a minha família.", "pt"),
        ("Yo vivo en Sevilla con mi hermana.", "es"),
        ("Я живу в Києві з дружиною.", "uk"),
        ("Я живу в Москве с женой.", "ru"),
        ("Ich wohne seit zwei Jahren in München.", "de"),
    ],
)
def test_neighbours_keep_their_reading(text: str, expected: str) -> None:
    assert language_of(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A short statement of a fact with no function word of its own: the word naming what it
        # is about (an address, a move, a phone number) is its language's.
        ("Nuovo indirizzo: via Roma 5.", "it"),
        ("Trasloco a Bari.", "it"),
        ("On a déménagé à Nantes.", "fr"),
        ("Nowy numer telefonu: 600 100 200.", "pl"),
        ("Nueva dirección: calle Mayor 3.", "es"),
    ],
)
def test_an_attribute_word_tells_a_short_facts_language(text: str, expected: str) -> None:
    assert language_of.__wrapped__(text) == expected


@pytest.mark.parametrize("text", ["I moved to Leeds.", "My phone broke.", "Our new address is 5 Elm Street."])
def test_english_facts_stay_english(text: str) -> None:
    assert language_of.__wrapped__(text) == "en"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("New email: ana@mail.io", "en"),  # "io" is Italian "I", but not inside an address
        ("Send it to luis@correo.es please", "en"),
        ("check out www.ilpost.it later", "en"),
        ("Mi correo nuevo es ana@mail.io", "es"),
    ],
)
def test_an_address_is_no_word_of_the_language(text: str, expected: str) -> None:
    assert language_of(text) == expected
