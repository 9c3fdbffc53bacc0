"""Configuration: YAML < environment < overrides, secrets, and one line per problem."""

from __future__ import annotations

from pathlib import Path

import pytest
from memorist.config.settings import load_settings
from memorist.errors import ConfigurationError

ROOT = Path(__file__).resolve().parents[3]


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_yaml_file_is_read(tmp_path: Path) -> None:
    cfg = write(tmp_path / "c.yaml", "embedder:\n  provider: hashing\n  options: {dimension: 32}\n")
    settings = load_settings(cfg)
    assert settings.embedder.provider == "hashing"
    assert settings.embedder.options == {"dimension": 32}
    assert settings.vector_store.provider == "lancedb"  # untouched default


def test_config_path_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = write(tmp_path / "c.yaml", "server:\n  port: 9123\n")
    monkeypatch.setenv("MEMORIST_CONFIG", str(cfg))
    assert load_settings().server.port == 9123


def test_environment_overrides_yaml_deeply(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = write(
        tmp_path / "c.yaml",
        "embedder:\n  provider: sentence-transformers\n  options:\n    model: m1\n    batch_size: 8\n"
        "server:\n  port: 9000\n  host: 0.0.0.0\n",
    )
    monkeypatch.setenv("MEMORIST_EMBEDDER__OPTIONS__BATCH_SIZE", "64")
    monkeypatch.setenv("MEMORIST_SERVER__PORT", "9001")
    monkeypatch.setenv("MEMORIST_DATA_DIR", str(tmp_path / "d"))
    settings = load_settings(cfg)
    assert settings.embedder.options == {"model": "m1", "batch_size": "64"}
    assert settings.server.port == 9001
    assert settings.server.host == "0.0.0.0"  # sibling from YAML kept
    assert settings.data_dir == tmp_path / "d"


def test_overrides_win_over_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORIST_SERVER__PORT", "9001")
    settings = load_settings(None, {"server": {"port": 9002}})
    assert settings.server.port == 9002


def test_every_problem_is_one_line_naming_the_key(tmp_path: Path) -> None:
    cfg = write(tmp_path / "c.yaml", "server:\n  port: eighty\n  workers: 0\nembeder:\n  provider: x\n")
    with pytest.raises(ConfigurationError) as err:
        load_settings(cfg)
    problems = err.value.problems
    assert len(problems) == 3
    assert any(p.startswith("server.port: ") for p in problems)
    assert any(p.startswith("server.workers: ") for p in problems)
    assert "embeder: unknown option; did you mean embedder?" in problems


def test_yaml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    cfg = write(tmp_path / "bad.yaml", "server:\n  port: 8000\n   host: x\n")
    with pytest.raises(ConfigurationError) as err:
        load_settings(cfg)
    assert len(err.value.problems) == 1
    assert str(cfg) in err.value.problems[0] and "line 3" in err.value.problems[0]


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="nope.yaml: No such file"):
        load_settings(tmp_path / "nope.yaml")


def test_secrets_are_refused_in_the_yaml_file(tmp_path: Path) -> None:
    cfg = write(
        tmp_path / "c.yaml",
        "language_model:\n  provider: openai\n  options:\n    api_key: sk-123\n",
    )
    with pytest.raises(ConfigurationError) as err:
        load_settings(cfg)
    assert err.value.problems[0].startswith("language_model.options.api_key: secrets are not read")


def test_secret_reference_by_env_name_is_allowed(tmp_path: Path) -> None:
    cfg = write(
        tmp_path / "c.yaml",
        "language_model:\n  provider: openai\n  options:\n    api_key_env: MY_KEY\n",
    )
    assert load_settings(cfg).language_model.options == {"api_key_env": "MY_KEY"}


def test_values_from_a_secrets_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "memorist_data_dir").write_text(str(tmp_path / "from-secret"))
    monkeypatch.setenv("MEMORIST_SECRETS_DIR", str(secrets))
    assert load_settings().data_dir == tmp_path / "from-secret"


@pytest.mark.parametrize("name", ["default", "fast", "openai", "ollama"])
def test_shipped_configs_validate(name: str) -> None:
    from click.testing import CliRunner
    from memorist.cli import cli

    result = CliRunner().invoke(cli, ["config", "check", "--config", str(ROOT / "configs" / f"{name}.yaml")])
    assert result.exit_code == 0, result.output
    assert "configuration ok" in result.stdout


def test_cli_reports_bad_config_without_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner
    from memorist.cli import cli

    cfg = write(
        tmp_path / "c.yaml",
        "vector_store:\n  provider: lancdb\nembedder:\n  provider: sentence-transformers\n  options:\n    modle: x\n",
    )
    monkeypatch.chdir(tmp_path)  # the default data directory is ./memorist-data: never the checkout's
    result = CliRunner().invoke(cli, ["serve", "--config", str(cfg)], catch_exceptions=False)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert lines == [
        "error: embedder.options.modle: unknown option; did you mean model?",
        "error: vector_store.provider 'lancdb' is not installed; installed: lancedb, pgvector",
    ]


def test_yaml_typos_name_the_closest_setting(tmp_path: Path) -> None:
    """A misspelled key anywhere in the file (top level, a section, a provider's options) names its fix."""
    from memorist.cli import cli

    cfg = write(
        tmp_path / "c.yaml",
        "serever:\n  port: 9000\nserver:\n  wrokers: 2\nembedder:\n  options:\n    batch_sise: 8\n"
        "reranker:\n  provider: mmr\n  options:\n    lamda: 0.5\n",
    )
    with pytest.raises(ConfigurationError) as err:
        load_settings(cfg)
    assert sorted(err.value.problems) == [
        "serever: unknown option; did you mean server?",
        "server.wrokers: unknown option; did you mean workers?",
    ]
    from click.testing import CliRunner

    result = CliRunner().invoke(cli, ["config", "check", "--config", str(cfg), "--data-dir", str(tmp_path / "d")])
    assert result.exit_code == 2
    for line in (
        "error: serever: unknown option; did you mean server?",
        "error: server.wrokers: unknown option; did you mean workers?",
        "error: embedder.options.batch_sise: unknown option; did you mean batch_size?",
        "error: reranker.options.lamda: unknown option; did you mean lambda?",
    ):
        assert line in result.stderr.splitlines(), result.stderr
    unlike = write(tmp_path / "u.yaml", "server:\n  zzz: 1\n")
    with pytest.raises(ConfigurationError) as err:
        load_settings(unlike)
    assert err.value.problems == ["server.zzz: unknown option"]  # nothing close: no guess


def test_one_option_from_the_environment_keeps_the_default_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORIST_EMBEDDER__OPTIONS__THREADS", "1")
    settings = load_settings()
    assert settings.embedder.provider == "sentence-transformers"
    assert settings.embedder.options == {"threads": "1"}
