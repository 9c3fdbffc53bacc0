"""Numbers written in Han numerals ("三千五", "四千二", "一万二", "十五") as digits.

Chinese (and Japanese) tell a number in characters as often as in digits: a user says "房租三千五"
and the assistant confirms "3500元". Reading both as digits lets a comparison of the two see one
value. The numerals are a closed set and their grammar a rule, not a dictionary: digits
(一 ... 九, 两, 零/〇), the units 十, 百, 千 within a group of four places, and 万, 亿 closing a
group; a digit after a unit with nothing between takes the next lower place, the colloquial
elision ("三千五" is 3500, "一万二" is 12000).
"""

from __future__ import annotations

__all__ = ["han_counts", "han_digits"]

_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_UNITS = {"十": 10, "百": 100, "千": 1000}
_GROUPS = {"万": 10_000, "亿": 100_000_000}
#: Every numeral character; a run of them is read as a number only when it holds a unit or
#: group (a lone digit character, "一家", "三明治", is a word's part as often as a number).
_NUMERALS = frozenset(_DIGITS) | frozenset(_UNITS) | frozenset(_GROUPS)


def _value(run: str) -> int:
    total = section = number = 0
    place = 1  # the unit last read, for a digit elided after it
    for char in run:
        if char in _DIGITS:
            number = _DIGITS[char]
        elif char in _UNITS:
            place = _UNITS[char]
            section += (number or 1) * place
            number = 0
        else:
            place = _GROUPS[char]
            total += (section + number) * place
            section = number = 0
    if number and place >= 100 and len(run) > 1 and (run[-2] in _UNITS or run[-2] in _GROUPS):
        number *= place // 10  # "三千五": the five right after the thousands is hundreds
    return total + section + number


def han_digits(text: str) -> str:
    """``text`` with each run of Han numerals that holds a unit written as digits."""
    out: list[str] = []
    start = 0
    while start < len(text):
        end = start
        while end < len(text) and text[end] in _NUMERALS:
            end += 1
        if end == start:
            out.append(text[start])
            start += 1
            continue
        run = text[start:end]
        out.append(str(_value(run)) if any(c in _UNITS or c in _GROUPS for c in run) else run)
        start = end
    return "".join(out)


def han_counts(text: str, units: tuple[str, ...]) -> str:
    """``text`` with each lone Han digit written right before one of ``units`` (a language's
    unit words: "小时", "个小时", "公斤") as its digit: "三个小时" is 3 hours, though "一家" or
    "三明治" hold a digit character that counts nothing. One character for one, so positions
    in ``text`` stay where they were."""
    out = list(text)
    for i, char in enumerate(text):
        if char not in _DIGITS or (i and text[i - 1] in _NUMERALS):
            continue
        if i + 1 < len(text) and text[i + 1] not in _NUMERALS and any(text.startswith(u, i + 1) for u in units):
            out[i] = str(_DIGITS[char])
    return "".join(out)
