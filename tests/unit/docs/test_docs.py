"""The documentation site builds strictly, and its generated OpenAPI reference is current."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_openapi", DOCS / "gen_openapi.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.process  # starts another Python process
def test_mkdocs_build_strict(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "api-reference" / "index.html").is_file()
    assert (tmp_path / "site" / "openapi.json").is_file()


def test_every_page_is_in_the_nav() -> None:
    """A page left out of the nav is easy to miss; ``mkdocs --strict`` only warns about it."""

    def pages(items: list) -> set[str]:
        found: set[str] = set()
        for item in items:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            found |= pages(value) if isinstance(value, list) else {value}
        return found

    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)
    on_disk = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert pages(config["nav"]) == on_disk


def test_openapi_reference_is_current() -> None:
    json_text, markdown = _generator().generated()
    hint = "the app's routes changed: run `python docs/gen_openapi.py` and commit docs/openapi.json, api-reference.md"
    assert (DOCS / "openapi.json").read_text() == json_text, hint
    assert (DOCS / "api-reference.md").read_text() == markdown, hint
