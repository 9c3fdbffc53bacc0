"""Month and weekday names of each language, from the Unicode CLDR through Babel.

A number before one is a date ("9 mei", "23 мая", "14 June"): a plan's time, not a quantity a
person holds. The lexicons list English's; CLDR has every language's, in the forms a date
takes in text (a Polish or Russian month in the genitive: "czerwca", "мая") and abbreviated
("dic.", "Mo").
"""

from __future__ import annotations

from functools import lru_cache

from babel import Locale, UnknownLocaleError

from .lexicon import fold

#: The widths of a name that are words of text (not the one-letter "narrow" forms).
_WIDTHS = ("wide", "abbreviated")
#: The contexts CLDR names them in: inside a date ("9 czerwca") and alone ("czerwiec").
_CONTEXTS = ("format", "stand-alone")


@lru_cache(maxsize=64)
def calendar_words(code: str, widths: tuple[str, ...] = _WIDTHS) -> frozenset[str]:
    """The month and weekday names of the language ``code``, folded, without a closing dot;
    only one-word names with no digit ("1月" and "Tháng 1" are numbers with a counter).
    ``widths``: the CLDR widths read; ``("wide",)`` leaves out abbreviations, which are
    common words in running text ("so", "do", "mar")."""
    try:
        locale = Locale.parse(code)
    except (UnknownLocaleError, ValueError):
        return frozenset()
    names = {
        name
        for table in (locale.months, locale.days)
        for context in _CONTEXTS
        for width in widths
        for name in table[context][width].values()
    }
    folded = {fold(name).rstrip(".") for name in names}
    return frozenset(w for w in folded if w and " " not in w and not any(c.isdigit() for c in w))


#: The CLDR fields whose relative names ("last month", "geçen ay", "先月") are time words.
_RELATIVE_FIELDS = ("day", "week", "month", "year")


@lru_cache(maxsize=64)
def relative_time_phrases(code: str) -> frozenset[str]:
    """The language ``code``'s names of a day, week, month or year relative to now ("yesterday",
    "last month", "geçen ay", "в прошлом месяце", "先月"), folded: a time told beside a value,
    never a value itself."""
    try:
        fields = Locale.parse(code)._data["date_fields"]
    except (UnknownLocaleError, ValueError, KeyError):
        return frozenset()
    return frozenset(
        fold(name) for field in _RELATIVE_FIELDS if field in fields for name in fields[field]["relative"].values()
    )
