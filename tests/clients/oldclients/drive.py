"""Drive one released ``mem0ai`` ``MemoryClient`` through the memory calls; print what it saw as JSON.

Run as ``python drive.py HOST KEY USER [ORG PROJECT]`` with the release first on ``PYTHONPATH``
(with ORG and PROJECT the client is constructed for that project, as its docs show); the test
(``tests/clients/test_old_clients.py``) asserts on the printed report. The client is used unchanged,
exactly as an application written against that release calls it (0.1.x: ``version="v2"`` for
get_all/search as its docs advise, and its v1 default; 1.x: its v2 defaults).
"""

from __future__ import annotations

import json
import sys
from typing import Any


def results(answer: Any) -> list[dict[str, Any]]:
    """0.1.x returns what the server sends (a bare list or ``{"results"}``); 1.x wraps lists."""
    return list(answer["results"] if isinstance(answer, dict) else answer)


def main(host: str, key: str, user: str, org_id: str | None = None, project_id: str | None = None) -> None:
    import mem0
    from mem0 import MemoryClient

    client = MemoryClient(api_key=key, host=host, org_id=org_id, project_id=project_id)
    report: dict[str, Any] = {"version": mem0.__version__, "project_id": client.project_id}
    messages = [{"role": "user", "content": "I live in Utrecht and my sister is called Noor."}]
    added = client.add(messages, user_id=user, infer=False)
    report["add"] = added
    stored = results(added)
    memory_id = stored[0]["id"]
    client.add([{"role": "user", "content": "My bike is green."}], user_id=user, infer=False)
    if mem0.__version__.startswith("0."):
        report["get_all_v1"] = results(client.get_all(user_id=user))
        report["get_all"] = results(client.get_all(version="v2", filters={"AND": [{"user_id": user}]}))
        report["search_v1"] = results(client.search("Where does she live?", user_id=user))
        report["search"] = results(client.search("Utrecht", version="v2", filters={"AND": [{"user_id": user}]}))
    else:
        report["get_all"] = results(client.get_all(filters={"AND": [{"user_id": user}]}))
        report["search"] = results(client.search("Utrecht", filters={"AND": [{"user_id": user}]}))
    report["get"] = client.get(memory_id)
    report["update"] = client.update(memory_id, text="I live in Amsterdam and my sister is called Noor.")
    report["get_after_update"] = client.get(memory_id)
    report["history"] = client.history(memory_id)
    report["delete"] = client.delete(memory_id)
    try:
        client.get(memory_id)
        report["get_after_delete"] = "found"
    except Exception as exc:  # the release's own error type for a 404
        report["get_after_delete"] = type(exc).__name__
    report["get_all_after_delete"] = results(
        client.get_all(
            **({"version": "v2"} if mem0.__version__.startswith("0.") else {}), filters={"AND": [{"user_id": user}]}
        )
    )
    print(json.dumps(report, default=str))


if __name__ == "__main__":
    main(*sys.argv[1:6])
