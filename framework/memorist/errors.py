"""Domain errors. Each carries the HTTP status the one error path answers with.

The engine and providers raise these; the HTTP layer never guesses a status
from an exception's type name, and the CLI prints ``str(error)`` on one line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pydantic


class MemoristError(Exception):
    """Base of every error Memorist raises on purpose."""

    status: int = 500

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ConfigurationError(MemoristError, ValueError):
    """Settings or provider options are invalid. ``problems`` holds one line each."""

    status = 400

    def __init__(self, problems: list[str] | str) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("; ".join(self.problems))


class UnknownProviderError(ConfigurationError):
    """A configuration names a provider no installed plugin registers."""


class PluginError(MemoristError):
    """A plugin failed to load or implements a hook that does not exist."""


class DimensionMismatchError(MemoristError):
    """A vector store holds vectors of another dimension than the embedder makes."""

    status = 409


class InvalidFilterError(MemoristError, ValueError):
    """A search or list filter names an unknown field or operator.

    Also a ``ValueError``, as the invalid-argument errors of mem0's ``Memory`` are
    (code written for it catches that); the same holds for the two below.
    """

    status = 400


class NotFoundError(MemoristError, ValueError):
    status = 404


class ValidationError(MemoristError, ValueError):
    status = 400


class ProviderError(MemoristError):
    """A provider (e.g. a hosted language model) failed after its retries."""

    status = 502


class CapabilityError(MemoristError):
    """A provider was asked for something it cannot do (e.g. free text from the heuristic)."""

    status = 400


def format_validation_error(
    exc: pydantic.ValidationError, prefix: str = "", model: type[pydantic.BaseModel] | None = None
) -> list[str]:
    """One ``key.path: message`` line per problem, the way every config error is shown.

    With the ``model`` that was validated, an unknown key gets the closest known one as a hint
    (``embedder.options.modle: unknown option; did you mean model?``): a typo in a YAML file or
    an override then names its fix, as ``memorist config check`` does for environment variables.
    """
    lines = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        key = f"{prefix}.{loc}" if prefix and loc else (prefix or loc)
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown option"
            guess = closest_field(model, err["loc"]) if model is not None else None
            if guess:
                msg += f"; did you mean {guess}?"
        elif err["type"] == "missing":
            msg = "field required"
        lines.append(f"{key}: {msg}")
    return lines


def closest_field(model: type[pydantic.BaseModel], loc: tuple[int | str, ...]) -> str | None:
    """The field name nearest to ``loc``'s last part among the fields of the model at ``loc[:-1]``."""
    import difflib

    fields = _fields_at(model, loc[:-1])
    if not fields or not loc:
        return None
    guess = difflib.get_close_matches(str(loc[-1]), sorted(fields), n=1, cutoff=0.6)
    return guess[0] if guess else None


def _fields_at(model: type[pydantic.BaseModel], path: tuple[int | str, ...]) -> set[str]:
    """The field names of the (nested) model that ``path`` leads to; empty when it leads elsewhere."""
    current: Any = model
    for part in path:
        info = getattr(current, "model_fields", {}).get(str(part))
        if info is None:
            return set()
        current = _model_in(info.annotation)
        if current is None:
            return set()
    # The name a file writes: a field's alias where it has one (``lambda`` for ``lambda_``).
    return {info.alias or name for name, info in getattr(current, "model_fields", {}).items()}


def _model_in(annotation: Any) -> Any:
    """The pydantic model an annotation holds (``Model``, ``Model | None``), else None."""
    import typing

    import pydantic

    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


class Busy(MemoristError):
    """The server is doing this very thing for another request; ``retry_after`` seconds later it
    will not be (one ``POST /configure`` builds an engine at a time)."""

    status = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class RequestTimeout(MemoristError):
    """The client did not send its request (headers or body) in time; the connection is closed."""

    status = 408


class InputTooLarge(MemoristError):
    """More input in one request than the server can process in time (split it into several)."""

    status = 413
