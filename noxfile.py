"""Developer sessions: lint, typecheck, tests, serve, benchmarks.

Every session installs with constraints.txt so torch stays the CPU build.
"""

from __future__ import annotations

import nox

nox.options.sessions = ["lint", "tests"]
CONSTRAINTS = ("-c", "constraints.txt")


def install(session: nox.Session, extras: str = "dev") -> None:
    session.install(*CONSTRAINTS, "-e", f".[{extras}]")


@nox.session(python="3.11")
def lint(session: nox.Session) -> None:
    session.install("ruff")
    session.run("ruff", "check", "framework", "plugins", "tests", "benchmarks")


@nox.session(python="3.11")
def typecheck(session: nox.Session) -> None:
    install(session)
    session.run("mypy", "framework/memorist", "plugins")


@nox.session(python="3.11")
def tests(session: nox.Session) -> None:
    install(session)
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session(python="3.11")
def serve(session: nox.Session) -> None:
    """A development server on the embedded default: ``nox -s serve -- --port 8001``."""
    install(session)
    session.run("memorist", "serve", "--config", "configs/default.yaml", *session.posargs)


@nox.session(python="3.11")
def benchmarks(session: nox.Session) -> None:
    """Retrieval benchmark on ../shared/data/locomo (pass options after ``--``)."""
    install(session)
    session.run("python", "benchmarks/locomo.py", *session.posargs)


@nox.session(python="3.11")
def fuzz(session: nox.Session) -> None:
    """Long schemathesis run against a live server: ``nox -s fuzz -- 500`` (examples per operation)."""
    import random

    install(session)
    examples = session.posargs[0] if session.posargs else "300"
    session.run(
        "python",
        "-m",
        "pytest",
        "tests/process/test_fuzz_schema.py",
        "-q",
        "-s",
        "--timeout=0",
        env={
            "MEMORIST_FUZZ_EXAMPLES": examples,
            "MEMORIST_FUZZ_SEED": str(random.randrange(2**31)),
            "MEMORIST_FUZZ_TIMEOUT": "3600",
        },
    )


@nox.session(python="3.11")
def soak(session: nox.Session) -> None:
    """Soak test with faults: ``nox -s soak -- --seconds 300 --kill-worker --restart``."""
    install(session)
    session.run("python", "benchmarks/soak.py", *session.posargs)


@nox.session(python=False)
def old_clients_env(session: nox.Session) -> None:
    """Build the older platform clients' environments (mem0ai 0.1.118, 1.0.11; npm mem0ai 2.1.38 and 2.4.6).

    One directory per release under ``.nox/old_clients`` (``MEMORIST_OLD_CLIENTS_DIR`` overrides),
    each kept once built: pip-installed with ``--target`` by the interpreter running nox (CI:
    ``.venv/bin/python``), the npm client with ``npm install``. ``.ci/run`` runs this before pytest,
    so ``tests/clients/test_old_clients.py`` spends no test time installing (tests/clients/oldclients/envs.py).
    """
    import sys

    session.run(sys.executable, "tests/clients/oldclients/envs.py", *session.posargs)


@nox.session(python=False)
def old_clients(session: nox.Session) -> None:
    """Released platform clients of older lines against the app: builds their environments, then runs the test.

    Runs in the current environment (the one with Memorist installed, e.g. CI's ``.venv``); each
    release is driven from its own interpreter with only that release on the path, the npm client by
    Node (tests/clients/test_old_clients.py).
    """
    import sys

    session.run(sys.executable, "tests/clients/oldclients/envs.py")
    session.run(
        sys.executable,  # the interpreter running nox (CI: .venv/bin/python), not whatever is on PATH
        "-m",
        "pytest",
        "tests/clients/test_old_clients.py",
        "-q",
        *session.posargs,
        env={"HF_HUB_OFFLINE": "1"},
    )


@nox.session(python=False)
def integrations_env(session: nox.Session) -> None:
    """Build the integration recipes' environments: ``nox -s integrations_env [-- NAME ...]``.

    One directory per integration under ``.nox/integrations`` (``MEMORIST_INTEGRATIONS_DIR``
    overrides), kept between runs: a Python integration in its own venv (pip with constraints.txt),
    an npm one with ``npm install`` (tests/clients/integrations/envs.py has the pinned versions).
    """
    import sys

    session.run(sys.executable, "tests/clients/integrations/envs.py", *session.posargs)


@nox.session(python=False)
def integrations(session: nox.Session) -> None:
    """The nightly tier: install each published integration, then drive it against a real server.

    ``nox -s integrations`` builds what is missing (tests/clients/integrations/envs.py), then runs
    ``pytest -m integration`` in the current environment (the one with Memorist installed); each
    recipe of docs/integrations/ runs in its own package's environment. Not part of ``.ci/run``:
    a cold install of all of them takes ~20 minutes (docs/testing.md).
    """
    import sys

    session.run(sys.executable, "tests/clients/integrations/envs.py")
    session.run(
        sys.executable,
        "-m",
        "pytest",
        "tests/clients/integrations",
        "-m",
        "integration",
        "-q",
        "-p",
        "no:cacheprovider",
        *session.posargs,
        env={"HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"},
    )
