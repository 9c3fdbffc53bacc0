"""The plugin author guide must list exactly the hookspecs, with signatures.

The README links to the guide; the guide itself is a page of the documentation site
(``docs/plugins.md``), so the check follows the README's link there.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from memorist.plugin import hookspecs

ROOT = Path(__file__).resolve().parents[3]
README = ROOT / "README.md"
GUIDE_LINK = "docs/plugins.md"


def hookspec_signatures() -> set[str]:
    found = set()
    for name, fn in inspect.getmembers(hookspecs, inspect.isfunction):
        if not hasattr(fn, f"{hookspecs.PROJECT_NAME}_spec"):
            continue
        sig = inspect.signature(fn)
        params = ", ".join(f"{p.name}: {p.annotation}" for p in sig.parameters.values())
        found.add(f"{name}({params}) -> {sig.return_annotation}")
    return found


def guide_path() -> Path:
    """The guide the README links to (a broken link fails here, not silently)."""
    assert f"]({GUIDE_LINK})" in README.read_text(), f"README no longer links to {GUIDE_LINK}"
    return ROOT / GUIDE_LINK


def readme_hook_signatures() -> set[str]:
    text = guide_path().read_text()
    section = text.split("# Plugin author guide", 1)[1]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    return {
        line[len("def ") :].rstrip(":").strip()
        for block in blocks
        for line in block.splitlines()
        if line.startswith("def ") and " -> " in line  # the reference block, not the example
    }


def test_guide_lists_exactly_the_hookspecs() -> None:
    specs = hookspec_signatures()
    assert len(specs) == 14
    assert readme_hook_signatures() == specs


def test_every_hookspec_is_documented_in_code() -> None:
    for name, fn in inspect.getmembers(hookspecs, inspect.isfunction):
        if hasattr(fn, f"{hookspecs.PROJECT_NAME}_spec"):
            assert fn.__doc__ and fn.__doc__.strip(), name
            assert "return" in inspect.get_annotations(fn), name
