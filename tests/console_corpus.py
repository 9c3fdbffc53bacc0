"""A few thousand natural memories of one user, for the console's scale test and benchmark.

Each memory is a short sentence about people, places, organizations and things, in English,
German, French, Spanish and Portuguese, dated over two years, some with a ``topic`` metadata
key: enough variety for the entity graph to have hubs (Maria, Porto, Google) and long tails.
Deterministic: the same ``n`` gives the same memories.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

PEOPLE = ["Maria", "Tomás", "Aiko", "Jonas", "Fatima", "Lucas", "Ingrid", "Ravi", "Chloé", "Diego", "Olga", "Kwame"]
PLACES = ["Porto", "Lisbon", "Berlin", "Lyon", "Madrid", "Osaka", "Nairobi", "Toronto", "Oslo", "Kraków"]
ORGS = ["Google", "Siemens", "Airbus", "Mercadona", "Toyota", "Spotify", "the Red Cross", "Nubank"]
TEMPLATES = [
    "{p} lives in {c} and works at {o}.",
    "My friend {p} is moving to {c} next spring.",
    "{p} recommended a bakery in {c}.",
    "I met {p} at the {o} office in {c}.",
    "{p} arbeitet seit März bei {o} in {c}.",
    "{p} trinkt jeden Morgen Kaffee in {c}.",
    "{p} a trouvé un appartement à {c}.",
    "{p} travaille chez {o} depuis deux ans.",
    "{p} viaja a {c} cada verano con su familia.",
    "{p} trabaja en {o} y vive cerca de {c}.",
    "{p} mudou-se para {c} por causa da {o}.",
    "I am learning to cook with {p}; we tried a recipe from {c}.",
    "{p} gave me a book about the history of {c}.",
    "Remind me to call {p} about the {o} interview.",
]
TOPICS = ["family", "work", "travel", "food", "health"]


def corpus(n: int, user_id: str = "maria-user", seed: int = 41, numbered: bool = True) -> list[dict[str, Any]]:
    """``n`` add bodies (``infer`` off: stored verbatim) for ``POST /memories/batch`` or ``add_many``;
    ``numbered``: each text ends with "(note i)", so every text is distinct and a test can find one."""
    rng = random.Random(seed)
    start = datetime(2024, 11, 1, tzinfo=UTC)
    items = []
    for i in range(n):
        text = rng.choice(TEMPLATES).format(p=rng.choice(PEOPLE), c=rng.choice(PLACES), o=rng.choice(ORGS))
        when = start + timedelta(minutes=int(i * 2 * 365 * 24 * 60 / max(n, 1)))
        body: dict[str, Any] = {
            "messages": [{"role": "user", "content": f"{text} (note {i})" if numbered else text}],
            "user_id": user_id,
            "infer": False,
            "timestamp": when.isoformat(),
        }
        if i % 3 == 0:
            body["metadata"] = {"topic": TOPICS[i % len(TOPICS)]}
        items.append(body)
    return items
