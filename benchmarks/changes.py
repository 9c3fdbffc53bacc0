"""Changed facts over separate adds: does ``latest_only`` return exactly what is current?

    python benchmarks/changes.py [--set tune|holdout|holdout2|...|holdout32|all] [--config FILE] [--verbose]

Replays the hand-written sequences of ``benchmarks/changes/<set>.yaml`` through the
Python API, one add per statement a day apart, each sequence in its own user's memory
(the embedded default unless ``--config``: heuristic extractor, all-MiniLM-L6-v2,
LanceDB, SQLite, in a temporary directory). Prints, per set:

- ``current exact``: among sequences where a fact changes, the share where a
  ``latest_only`` list holds exactly the memories of the still-current statements;
- ``additive superseded``: among the facts of sequences where nothing changes
  ("I have a dog." / "I also have a cat."), the share ``latest_only`` wrongly hides;

then the failed sequences counted by kind, and the failures themselves with ``--verbose``
(for the tune set: a held-out set's failures are read as counts, never as phrasings to
copy). ``tune.yaml`` is the development set; ``holdout.yaml`` was written with it,
before the rule was tuned, and read once at the end (76%); ``holdout2.yaml`` was written
after that and before the rule changed again, and is read only to check those changes;
``holdout3.yaml`` (English, Spanish, French) was written before the next round of
changes and is only reported on; ``holdout4.yaml`` (English, German, French, Spanish,
Italian) was written before the third round's tuning and is read to check it;
``holdout5.yaml`` (English, German, Spanish, French, Italian) was written before the
fourth round's tuning and is read to check it; ``holdout6.yaml`` (English, German,
Spanish, French, Portuguese, Russian, Japanese; terse chat, long chatty messages and
assistant turns stating a fact) was written before the fifth round's changes and is
read to check them; ``holdout7.yaml`` (eight languages) was written in that round after
holdout6's failures had been read, before its last changes, and is read once to report them; ``holdout8.yaml`` (eleven
languages, additive controls of every kind) was written blind before round 6 of that
work and is read once to report it; ``holdout9.yaml`` (ten languages, additive controls of
most kinds) was written blind before round 7 and is read once to report it;
``holdout10.yaml`` (ten languages, 15 additive controls) was written blind before round 8
and is read once to report it; ``holdout11.yaml`` (ten languages, 20 additive controls) was
written blind before the eighth round's changes and is read once to report them;
``holdout12.yaml`` (thirteen languages, 22 additive controls, a quarter of the facts in
assistant turns) was written blind after the eighth round and is read once to report the ninth;
``holdout13.yaml`` (thirteen languages, 19 additive controls, a quarter of the facts in
assistant turns) was written blind after the ninth round and the new lexicons and is read
once to measure that code on unseen phrasings; ``holdout14.yaml`` (twenty-three languages,
among them Ukrainian, Greek, Hebrew, Indonesian, Vietnamese, Czech and Danish; 21 additive
controls; a quarter of the adds with an assistant turn) was written blind after the tenth
round and is read once to measure its code on unseen phrasings and languages;
``holdout15.yaml`` (twenty-three languages, under a quarter English; 22 additive controls;
every sequence holds one or two unrelated facts, a pet, a sibling, an allergy, beside the
fact that changes) was written blind during the eleventh round and read (``--verbose``) in
the thirteenth, so its figure is a tune figure since; ``holdout16.yaml`` (twenty-three languages, 14 of
66 sequences English; 20 additive controls; a quarter of the adds with an assistant turn;
unrelated facts beside each change) was written blind during the twelfth and thirteenth
rounds and read once to measure the same across languages; holdout14 and holdout16 were
read (``--verbose``) in the fourteenth round, so their figures are tune figures since;
``holdout17.yaml``
(twenty-three languages, 12 of 67 sequences English; 21 additive controls; each add one
exchange of an agent loop, other topics and answered questions between a fact and its
change, changes told indirectly or as a correction of the assistant) was written blind
during the fourteenth round and read once to measure whether a change hides unrelated
facts across languages, then read (``--verbose``) in the fifteenth round, so its figure is a
tune figure since; ``holdout18.yaml`` (twenty-three languages, 14 of 64 sequences
English; 21 additive controls; about a quarter of the adds with an assistant turn; chattier
messages, changes told with time words, numbers that move, plans moved or called off) was
written blind during the fifteenth round and is read once to measure the same;
``holdout19.yaml`` (twenty-three languages, 14 of 64 sequences English; 19 additive
controls; a relative's or friend's fact that changes beside the user's own fact on the same
topic, messages as typed on a phone, code-switching, changes told by negation, a correction
of the assistant or an end, numbers with units) was written blind during the sixteenth
round and is read once to measure the same; ``holdout20.yaml`` (twenty-three languages,
17 of 64 sequences English; 20 additive controls; the same focus on people around the user,
phone-typed messages, code-switching, negation, corrections, ends and numbers with units, with
each changing fact in an add of its own) was written blind after the sixteenth round and is
read once to measure whether a change hides unrelated facts across languages;
``holdout21.yaml`` (twenty-three languages, 15 of 64 sequences English; 20 additive
controls; over a quarter of the adds with an assistant turn; long chatty messages, changes
told in the past tense, with a date or as a request to update, the assistant's recollection
corrected, numbers with units and plan dates that move, facts about the people around the
user) was written blind during the eighteenth round, run once on that round's first merges
and on the code before it, then read (``--verbose``) in the round, so its figure is a tune
figure since; ``holdout22.yaml`` (twenty-three languages, 15 of 64 sequences English; 28
additive controls that look like changes; about a quarter of the adds with an assistant
turn; the same agent-chat focus as holdout21) was written blind during the eighteenth
round after holdout21 and is read once to report it; ``holdout23.yaml`` (twenty-three
languages, 15 of 64 sequences English; 28 additive controls that look like changes, a second
home, job, phone or pet, a trip, a wish, a negated change, a plan for someone else; about a
quarter of the adds with an assistant turn; terse, typo-ridden or emoji-laden chat, changes
told indirectly, numbers that move beside numbers that do not) was written blind during the
nineteenth round after holdout22 and is read once to report it; ``holdout24.yaml``
(twenty-three languages, 15 of 64 sequences English; 28 additive controls that look like
changes, someone else's move or job, a visit, a second appointment or habit, an offer
turned down, a wish, the same value confirmed; about a quarter of the adds with an
assistant turn; facts about several people at once with the same attribute as the user's,
changes told as news, as a correction of the assistant or with the old value, plans and
numbers that move beside ones that are added) was written blind during the nineteenth
round after holdout23 and is read once to report it; ``holdout25.yaml`` (twenty-three
languages, 15 of 64 sequences English; 28 additive controls that look like changes, a second
language, a doctor for another problem, another subscription, a trip, a past job, an offer
turned down, an application unanswered, a plan only considered, a friend's move, a recurring
event again; about a third of the adds with an assistant turn; long chatty messages carrying
several facts of which one changes, changes told through consequences or dates, corrections
of the assistant and answers to its questions, numbers that move beside numbers that do not)
was written blind during the twentieth round after holdout24 and is read once to report it;
``holdout26.yaml`` (twenty-three languages, 15 of 64 sequences English; 28 additive controls
that look like changes, a second medication or allergy, a hospital stay, a trip, a one-off
session, someone else's new job or home, a past home or job, a plan only considered, another
amount in the same unit, a check-up again, a second shift; about a third of the adds with an
assistant turn; the everyday facts of a year, health and routines, home, money, school and
work, family and tastes, changes told only by the new state or an event, corrections of the
assistant, one person's value moving beside another's) was written blind during the twentieth
round after holdout25 and is read once to report it; ``holdout27.yaml`` (twenty-three
languages, 15 of 64 sequences English; 28 additive controls that look like changes, a new
hobby beside an old one, a second pet, an extra work phone, a temporary stay, a trip, a past
home or job, a friend's or sibling's change, a plan only considered, a habit repeated, a bill
paid or a score, a child's favourite; about a third of the adds with an assistant turn; terse
phone-typed chat with lowercase, shorthand, emoji, typos and code-switching, changes told only
by the new state, by negation, by a before/after pair, by a question back or as a typo
correction, one person's attributes changing at once beside another's same attribute) was
written blind during the twenty-first round after holdout26 and is read once to report it;
``holdout28.yaml`` (twenty-three languages, 15 of 64 sequences English; 28 additive controls
that look like changes, a second home or car, a visit, a holiday, a temporary arrangement, a
past home recalled, a friend's or colleague's news, a plan only considered, an offer refused,
a one-off bill, bonus or fine beside a recurring amount, a repeated event, another person's
value of the same attribute; about a third of the adds with an assistant turn that confirms,
summarises or asks back; an ordinary year told to an assistant used for everything, home,
job, school, partner, contacts, doctors, appointments, diet, medication, subscriptions, car,
salary, rent, weight and goals, changes told directly, through an event, by the new value
only or as a correction of the assistant, other people's facts changing beside the user's
own and the other way round) was written blind during the twenty-first round after holdout27
and is read once to report it; ``holdout29.yaml`` (twenty-three languages, 15 of 64 sequences
English; 28 additive controls, a paragraph repeating an old fact beside new ones, a holiday
home or a parent's address, a list growing by one item, a colleague's, sibling's or
neighbour's change, a plan, a past home recalled, a one-off amount beside a recurring one, a
correction of something unrelated, a relative's favourite; about a third of the adds with an
assistant turn, some restating a profile in the third person; longer messages and structured
notes, life updates of a paragraph, bullet lists, key-value profile lines, an e-mail signature,
a shopping list, a calendar line, a diary, in which the changing fact sits among new ones and
is told formally, by a date, in the passive or in reported speech, while the old value stands
alone in its own add) was written blind during the twenty-second round after holdout28 and is
read once to report it; ``holdout30.yaml`` (twenty-three languages, 15 of 64 sequences
English; 28 additive controls, small talk repeating an old fact, a question about it, a
hypothetical, a friend's or sibling's change, a second pet, car or phone, a trip, a hotel or a
loaner car, a plan that may not happen, an old fact recalled, a joke; casual, messy chat as agent
frameworks log it, lowercase, typos, shorthand, emoji, a fact split over two short user
messages, numbers with spaces or dots, multi-turn adds with the changing fact in answer to the
assistant's question or confirmed with a yes, code-switching, changes told indirectly, while the
old value stands alone in its own add) was written blind during the twenty-third round after
holdout29 and is read once to report it; ``holdout31.yaml`` (twenty-three languages, 15 of 64
sequences English; 28 additive controls, a dictated errand list naming a place, a friend's
number read out, an amount spent once beside a recurring one, a habit on another day, a past
value corrected for the record only, a relative's address, a second job on weekends; dictated
speech as voice assistants transcribe it, no punctuation or capitals, filler words,
self-repairs in mid-sentence, numbers, times and dates spelled out, run-on sentences; Russian
and Ukrainian in translit, Hindi as Hinglish, Arabic as Arabizi, Greek as Greeklish; changes
told through their effect and changes that undo an earlier one, while the old value stands
alone in its own add) was written blind during the twenty-third round after holdout30 and is
read once to report it; ``holdout32.yaml`` (twenty-three languages, 15 of 64 sequences
English; 28 additive controls, an offer or suggestion turned down, a look-up for a friend or
relative, a second booking beside the first, a booking for someone else, a stored fact
repeated unchanged, a one-off reminder beside a recurring one, options listed, a past value
mentioned for context; facts told by the agent side, 90 of 143 adds with an assistant
turn that confirms an action it took, summarises the user back or reports a tool result,
changes made by the assistant on request, corrections of its recap and third-person agent
notes, while the old value stands alone in its own add) was written blind during the
twenty-fourth round after holdout31 and is read once to report it.
An add is a statement or a list of chat messages
(``{role, content}``), passed to ``add`` as it stands.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).with_name("changes")

from memorist.config.settings import load_settings  # noqa: E402
from memorist.python.engine import Engine  # noqa: E402

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def replay(memory: Engine, user: str, adds: list[Any]) -> tuple[dict[str, int], list[str]]:
    """Each statement added alone; ``{memory id: index of its add}`` and the stored texts."""
    origin: dict[str, int] = {}
    for index, text in enumerate(adds):
        when = (START + timedelta(days=index)).isoformat()
        for record in memory.add(text, user_id=user, timestamp=when):
            origin[record.id] = index
    return origin, [r.text for r in memory.list(user_id=user, page_size=100).records]


def measure(memory: Engine, name: str, sequences: list[dict[str, Any]], verbose: bool) -> dict[str, float]:
    changed = exact = additive_facts = hidden = 0
    failures: list[str] = []
    missed: dict[str, int] = {}
    for n, sequence in enumerate(sequences):
        user = f"{name}-{n}"
        origin, stored = replay(memory, user, sequence["adds"])
        latest = memory.list(user_id=user, latest_only=True, page_size=100).records
        shown = {origin[r.id] for r in latest if r.id in origin}
        want = set(sequence["current"])
        if sequence["kind"] == "additive":
            additive_facts += len(sequence["adds"])
            missing = set(range(len(sequence["adds"]))) - shown
            hidden += len(missing)
            ok = not missing
        else:
            changed += 1
            ok = shown == want and len(latest) == len([i for i in origin.values() if i in want])
            exact += ok
        if not ok:
            missed[sequence["kind"]] = missed.get(sequence["kind"], 0) + 1
            failures.append(
                f"  [{sequence['kind']}] want {sorted(want)}, got {sorted(shown)}\n"
                + "".join(f"      {i}: {t}\n" for i, t in enumerate(sequence["adds"]))
                + "      stored: "
                + " | ".join(stored)
            )
    result = {
        "sequences": len(sequences),
        "changed": changed,
        "current_exact": exact / changed if changed else 1.0,
        "additive_facts": additive_facts,
        "additive_superseded": hidden / additive_facts if additive_facts else 0.0,
    }
    print(
        f"{name}: {len(sequences)} sequences; current exact {exact}/{changed} = {result['current_exact']:.1%}; "
        f"additive superseded {hidden}/{additive_facts} = {result['additive_superseded']:.1%}"
    )
    if missed:
        print("  failed by kind: " + ", ".join(f"{kind} {count}" for kind, count in sorted(missed.items())))
    if verbose and failures:
        print("\n".join(failures))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sets = (
        "tune",
        "holdout",
        "holdout2",
        "holdout3",
        "holdout4",
        "holdout5",
        "holdout6",
        "holdout7",
        "holdout8",
        "holdout9",
        "holdout10",
        "holdout11",
        "holdout12",
        "holdout13",
        "holdout14",
        "holdout15",
        "holdout16",
        "holdout17",
        "holdout18",
        "holdout19",
        "holdout20",
        "holdout21",
        "holdout22",
        "holdout23",
        "holdout24",
        "holdout25",
        "holdout26",
        "holdout27",
        "holdout28",
        "holdout29",
        "holdout30",
        "holdout31",
        "holdout32",
    )
    parser.add_argument("--set", choices=(*sets, "all"), default="tune")
    parser.add_argument("--config", type=Path, default=None)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    names = sets if args.set == "all" else (args.set,)
    with tempfile.TemporaryDirectory() as data_dir:
        settings = load_settings(args.config, {"data_dir": data_dir, "request_log": {"enabled": False}})
        memory = Engine.from_settings(settings)
        try:
            for name in names:
                sequences = yaml.safe_load((DATA / f"{name}.yaml").read_text(encoding="utf-8"))
                measure(memory, name, sequences, args.verbose)
        finally:
            memory.close()


if __name__ == "__main__":
    sys.exit(main())
