"""How two readings' quantities and counts compare, for the supersession rule: a count of one
thing told anew, a quantity that moved from the older's value, another value of one unit, and
a goal beside a value held (two slots).
"""

from __future__ import annotations

from .keywords import terms
from .supersession_reading import Reading
from .supersession_values import ELIDED

__all__ = ["goal_apart", "moved_quantity", "other_count", "other_quantity"]


def other_count(new: Reading, old: Reading) -> bool:
    """Both count one thing a person has, with another number: "has two kids" / "had their
    third child". An additive word stands only beside an ordinal ("third" states the new
    count); "also has two dogs" after "has a dog" is more dogs, not a new count of them."""
    for thing, number, ordinal in new.counts:
        if (ordinal or not new.additive) and any(
            t == thing and n != number and not (n == 1 and old.names) for t, n, _ in old.counts
        ):
            # One thing the older names ("a dog named Rex") is that one, not a count of them:
            # "we got a second dog, Luna!" adds a dog, and Rex is still the user's.
            return True
    return False


def goal_apart(new: Reading, old: Reading) -> bool:
    """One tells a quantity as a goal and the other one of the same unit as held ("Mein Ziel
    sind 85 Kilo" / "bin bei 88,5 Kilo"): a target and the value now are two slots."""
    units = {unit for unit, _ in new.quantities} & {unit for unit, _ in old.quantities}
    return bool(units) and new.goal != old.goal


def moved_quantity(new: Reading, old: Reading) -> bool:
    """The newer says a quantity moved ("down to 76 kg") and the older holds another value of
    that unit ("weighs 82 kg"), neither an event nor a goal beside a value held ("my goal is
    75 kg" / "down to 80 kg"): the older value is where it moved from."""
    if new.anchored or old.anchored or new.goal != old.goal:
        return False
    for unit, value in old.quantities:
        if unit in new.moved and value not in {v for u, v in new.quantities if u == unit}:
            return True
        # "we're down to one" after "has 3 chickens": the newer counts the older's unit in
        # another clause ("two of our chickens") and moves a number told without it.
        named = new.topic | {term for name in new.names for term in terms(name)}  # German nouns: "Hühner"
        if ELIDED in new.moved and unit in named and value not in {v for u, v in new.quantities if u == ELIDED}:
            return True
    return False


def other_quantity(new: Reading, old: Reading) -> bool:
    """Both hold a quantity of one unit, with another value, and neither is an event (a goal
    beside a value held never reaches here: :func:`goal_apart`)."""
    if new.anchored or old.anchored:
        return False
    units = {unit for unit, _ in new.quantities} & {unit for unit, _ in old.quantities}
    return any(
        {v for u, v in new.quantities if u == unit} != {v for u, v in old.quantities if u == unit} for unit in units
    )
