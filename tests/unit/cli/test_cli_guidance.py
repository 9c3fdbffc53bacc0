"""Errors that guide: one line, exit status 2, no traceback, naming what to do.

``config check`` runs in-process (click's runner); ``serve`` runs as a real process where the
behaviour is the process's own (a busy port, an unusable data directory).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result
from memorist.cli import cli
from memorist.cli.config_check import CHECKS, Problem, register_check, run_checks
from memorist.config.settings import load_settings

ROOT = Path(__file__).resolve().parents[3]


def invoke(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> Result:
    runner = CliRunner()
    old = Path.cwd()
    if cwd:
        os.chdir(cwd)
    try:
        return runner.invoke(cli, list(args), env=env, catch_exceptions=False)
    finally:
        os.chdir(old)


def write(path: Path, data: dict) -> Path:
    path.write_text(yaml.safe_dump(data))
    return path


def test_config_check_reports_every_problem_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = write(
        tmp_path / "bad.yaml",
        {
            "data_dir": str(tmp_path / "data"),
            "server": {"port": 99999},
            "embedder": {"provider": "sentence-transformers", "options": {"modle": "x"}},
            "language_model": {"provider": "openai", "options": {"api_key": "sk-123"}},
        },
    )
    monkeypatch.setenv("MEMORIST_EMBEDER__OPTIONS__BATCH_SIZE", "64")
    monkeypatch.setenv("MEMORIST_DATADIR", "/tmp/x")
    monkeypatch.setenv("AUTH_DISABLE", "true")
    result = invoke("config", "check", "--config", str(config))
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert "Traceback" not in result.output
    expected = [
        "error: server.port: Input should be less than or equal to 65535",
        "error: embedder.options.modle: unknown option; did you mean model?",
        "error: MEMORIST_DATADIR: no setting reads this variable; did you mean MEMORIST_DATA_DIR?",
        "error: MEMORIST_EMBEDER__OPTIONS__BATCH_SIZE: no setting reads this variable; "
        "did you mean MEMORIST_EMBEDDER__OPTIONS__BATCH_SIZE?",
        "error: AUTH_DISABLE: not read; did you mean AUTH_DISABLED?",
    ]
    for line in expected:
        assert line in lines, f"{line!r} not in {lines}"
    secret = [line for line in lines if line.startswith("error: language_model.options.api_key:")]
    assert secret and "language_model.options.api_key_env" in secret[0]


def test_the_secrets_advice_names_an_accepted_setting(tmp_path: Path) -> None:
    """Following the advice (``api_key_env``) gives a configuration that validates."""
    config = write(
        tmp_path / "ok.yaml",
        {"data_dir": str(tmp_path / "d"), "language_model": {"provider": "openai", "options": {"api_key_env": "K"}}},
    )
    _, problems = run_checks(str(config), environ={})
    assert [p for p in problems if p.level == "error"] == []


def test_auth_without_a_secret(tmp_path: Path) -> None:
    settings_sqlite = {"data_dir": str(tmp_path / "d")}
    _, problems = run_checks(None, settings_sqlite, environ={})
    warning = [p for p in problems if "JWT_SECRET" in p.message]
    assert warning and warning[0].level == "warning" and "memorist serve` will generate one" in warning[0].message

    # A shared database is no error any more: the generated secret lives in it (issue 39).
    shared = {"data_dir": str(tmp_path / "d"), "database": {"url": "postgresql+psycopg://u@db/memorist"}}
    _, problems = run_checks(None, shared, environ={})
    found = [p for p in problems if "JWT_SECRET" in p.message]
    assert found and found[0].level == "warning" and "every node" in found[0].message

    _, problems = run_checks(None, {**shared, "auth": {"jwt_secret": "x" * 40}}, environ={})
    assert not [p for p in problems if "JWT_SECRET" in p.message]


def test_uncreatable_data_dir(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = invoke("config", "check", "--data-dir", str(blocker / "data"))
    assert result.exit_code == 2
    assert f"error: data_dir {blocker / 'data'}: {blocker} is not a directory, so it cannot be created" in (
        result.stderr.splitlines()
    )


def test_clean_config_is_ok(tmp_path: Path) -> None:
    result = invoke("config", "check", "--data-dir", str(tmp_path / "d"), env={"JWT_SECRET": "s" * 48})
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().splitlines()[-1] == "configuration ok"
    assert result.stderr == ""


def test_a_check_is_one_function() -> None:
    def no_foo(context: object) -> list[Problem]:
        return [Problem("foo: always wrong", "warning")]

    register_check(no_foo)
    try:
        _, problems = run_checks(None, environ={})
        assert Problem("foo: always wrong", "warning") in problems
    finally:
        CHECKS.remove(no_foo)


def test_config_by_name_from_any_directory(tmp_path: Path) -> None:
    for name in ("default", "default.yaml", "configs/default.yaml"):
        settings = load_settings(name, environ={})
        assert settings.embedder.provider == "sentence-transformers"
    result = invoke("config", "show", "--config", "configs/default.yaml", "--data-dir", str(tmp_path), cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["vector_store"]["options"] == {"table": "memories"}


def test_data_dir_on_every_command(tmp_path: Path) -> None:
    data = tmp_path / "elsewhere"
    assert invoke("db", "upgrade", "--data-dir", str(data)).exit_code == 0
    assert (data / "memorist.db").is_file()
    shown = invoke("config", "show", "--data-dir", str(data))
    assert json.loads(shown.stdout)["data_dir"] == str(data)
    listed = invoke("admin", "list-keys", "--data-dir", str(data))
    assert listed.exit_code == 0 and json.loads(listed.stdout) == []
    for command in (["worker"], ["admin", "create-org"], ["config", "check"], ["db", "upgrade"], ["init"]):
        assert "--data-dir" in invoke(*command, "--help").stdout, command


def test_admin_commands_have_help() -> None:
    out = invoke("admin", "--help").stdout
    for command in ("create-org", "create-project", "create-user", "add-member", "create-key", "list-keys"):
        line = next(line for line in out.splitlines() if line.strip().startswith(command))
        assert len(line.split(None, 1)) == 2, f"{command} has no help text"


def test_config_show_includes_runtime_overrides(tmp_path: Path) -> None:
    from memorist.db import Database
    from memorist.db.schema import kv
    from memorist.records import utcnow
    from sqlalchemy import insert

    db = Database(f"sqlite:///{tmp_path / 'memorist.db'}")
    db.upgrade()
    with db.begin() as conn:
        conn.execute(
            insert(kv).values(key="runtime_overrides", value={"engine": {"semantic_weight": 0.5}}, updated_at=utcnow())
        )
    db.dispose()
    shown = json.loads(invoke("config", "show", "--data-dir", str(tmp_path)).stdout)
    assert shown["engine"]["semantic_weight"] == 0.5
    assert shown["runtime_overrides"] == {"engine": {"semantic_weight": 0.5}}


def test_init_creates_the_admin_once(tmp_path: Path) -> None:
    first = invoke("init", "--data-dir", str(tmp_path))
    assert first.exit_code == 0
    assert first.stdout.strip().startswith("svcsk_") and len(first.stdout.strip().splitlines()) == 1
    assert first.stderr.startswith("created the admin account admin@localhost with password ")
    again = invoke("init", "--data-dir", str(tmp_path))
    assert again.stderr.strip() == "added an API key to the existing account admin@localhost"
    assert again.stdout.strip() != first.stdout.strip()


def test_init_reuses_the_admin_the_dashboard_registered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The dashboard's first-run setup registered an admin: ``memorist init`` gives that account a
    new key (which works) instead of creating ``admin@localhost`` beside it."""
    from falcon.testing import TestClient
    from memorist.http.app import create_app

    from tests.conftest import fast_settings

    monkeypatch.setenv("MEMORIST_PLUGIN_MODULES", "tests.plugins.hashing")
    monkeypatch.setenv("JWT_SECRET", "s" * 40)
    settings = load_settings(None, fast_settings(tmp_path, queue={"workers": 0}))
    client = TestClient(create_app(settings))
    first = {"name": "Maria", "email": "maria@example.org", "password": "correct horse battery"}
    assert client.simulate_post("/auth/register", json=first).status_code in (200, 201)
    config = write(tmp_path / "c.yaml", fast_settings(tmp_path))
    done = invoke("init", "--config", str(config))
    assert done.exit_code == 0, done.output
    assert done.stderr.strip() == "added an API key to the existing account maria@example.org"
    key = done.stdout.strip()
    me = client.simulate_get("/memories", params={"user_id": "x"}, headers={"X-API-Key": key})
    assert me.status_code == 200, me.text
    from memorist.auth.users import UserStore
    from memorist.db import Database

    db = Database(settings.database_url)
    try:
        assert [u.email for u in UserStore(db).list()] == ["maria@example.org"]
    finally:
        db.dispose()
    other = invoke("init", "--config", str(config), "--email", "ops@example.org")
    assert other.stderr.startswith("created the admin account ops@example.org with password ")


def memorist_process(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MEMORIST_")} | (env or {})
    return subprocess.run(
        [sys.executable, "-m", "memorist.cli", *args], cwd=cwd, env=clean, capture_output=True, text=True, timeout=60
    )


@pytest.mark.process  # starts another Python process
def test_port_in_use_is_one_line_at_once(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        started = time.monotonic()
        done = memorist_process("serve", "--port", str(port), "--data-dir", str(tmp_path / "d"), cwd=tmp_path)
        elapsed = time.monotonic() - started
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"error: port {port} on 127.0.0.1 is already in use (another memorist serve?): "
        "stop that process or choose another port with --port"
    ]
    assert elapsed < 6, elapsed  # gunicorn alone retries for 10 s (shared, loaded machine: usually < 2 s)


@pytest.mark.process  # starts another Python process
def test_serve_checks_the_configuration_before_the_port(tmp_path: Path) -> None:
    """A second ``memorist serve`` beside a running one with a typo in its file: the typo is named
    (before: only "port in use", and fixing the port then revealed the typo)."""
    config = write(tmp_path / "c.yaml", {"embedder": {"options": {"modle": "x"}}})
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = memorist_process("serve", "--config", str(config), "--port", str(port), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["error: embedder.options.modle: unknown option; did you mean model?"]
    assert not (tmp_path / "memorist-data").exists()


@pytest.mark.process  # starts another Python process
def test_serve_warns_about_misspelled_variables(tmp_path: Path) -> None:
    """``MEMORIST_EMBEDER__PROVIDER`` would silently leave the default embedder: serve names it, as
    ``config check`` does, then goes on (here to the busy port, which ends it at once)."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = memorist_process(
            "serve",
            "--port",
            str(port),
            "--data-dir",
            str(tmp_path / "d"),
            cwd=tmp_path,
            env={"MEMORIST_EMBEDER__PROVIDER": "hashing", "AUTH_DISABLE": "true"},
        )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "warning: MEMORIST_EMBEDER__PROVIDER: no setting reads this variable; "
        "did you mean MEMORIST_EMBEDDER__PROVIDER?",
        "warning: AUTH_DISABLE: not read; did you mean AUTH_DISABLED?",
        f"error: port {port} on 127.0.0.1 is already in use (another memorist serve?): "
        "stop that process or choose another port with --port",
    ]


@pytest.mark.process  # starts another Python process
def test_unusable_data_dir_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = memorist_process("serve", "--data-dir", str(blocker / "data"), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"error: data_dir {blocker / 'data'}: {blocker} is not a directory, so it cannot be created"
    ]


def test_unauthenticated_answer_says_how_to_get_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from falcon.testing import TestClient
    from memorist.http.app import create_app

    from tests.conftest import fast_settings

    monkeypatch.setenv("MEMORIST_PLUGIN_MODULES", "tests.plugins.hashing")
    settings = load_settings(None, fast_settings(tmp_path, queue={"workers": 0}), environ={})
    body = TestClient(create_app(settings)).simulate_post("/memories", json={}).json
    for hint in ("/auth/register", "memorist init", "X-API-Key", "/api-keys", "AUTH_DISABLED=true"):
        assert hint in body["detail"], hint


@pytest.mark.process  # starts another Python process
def test_help_lists_plugin_commands_without_importing_the_engine() -> None:
    """``memorist --help`` loads every plugin (for its commands), but no plugin loads its providers,
    the database layer or Alembic just to be read: the published plugin API imports each name on
    first use and the built-in plugins import their providers when a hook registers them."""
    heavy = ("alembic", "mako", "pygments", "sqlalchemy", "numpy", "pyarrow", "lancedb", "onnxruntime")
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from memorist.cli import cli\n"
        "answer = CliRunner().invoke(cli, ['--help'])\n"
        "assert answer.exit_code == 0 and 'serve' in answer.output, answer.output\n"
        f"loaded = sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r})\n"
        "loaded += sorted(m for m in ('memorist.db', 'memorist.plugin.contracts', 'memorist.kernel.context')"
        " if m in sys.modules)\n"
        "assert not loaded, loaded\n"
        "import memorist.plugin.manager\n"
        "names = {name for name, _ in memorist.plugin.manager.load_plugins().manager.list_name_plugin()}\n"
        "assert {'lancedb', 'webhooks', 'openai'} <= names, names\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
