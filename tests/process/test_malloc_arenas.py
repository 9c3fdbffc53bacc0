"""``server.malloc_arena_max``: ``memorist serve`` caps glibc's malloc arenas before forking.

Counted in a fresh interpreter: threads that allocate at the same time each get an
arena of their own unless capped; ``malloc_info`` lists one ``<heap>`` per arena.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc only")

COUNT_ARENAS = r"""
import ctypes, ctypes.util, os, sys, tempfile, threading
from memorist.serve.malloc_arenas import limit_malloc_arenas
applied = limit_malloc_arenas(int(sys.argv[1]))
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
start = threading.Barrier(12)
def churn():
    start.wait()
    for _ in range(20000):
        libc.free(libc.malloc(4096))
threads = [threading.Thread(target=churn) for _ in range(12)]
[t.start() for t in threads]
[t.join() for t in threads]
libc.fopen.restype = ctypes.c_void_p
path = tempfile.mktemp()
stream = libc.fopen(path.encode(), b"w")
libc.malloc_info(0, ctypes.c_void_p(stream))
libc.fclose(ctypes.c_void_p(stream))
print(applied, open(path).read().count("<heap nr="))
os.unlink(path)
"""


def arenas_after_threads(cap: int, env: dict[str, str] | None = None) -> tuple[bool, int]:
    environment = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"} | (env or {})
    out = subprocess.run(
        [sys.executable, "-c", COUNT_ARENAS, str(cap)], capture_output=True, text=True, env=environment, check=True
    ).stdout.split()
    return out[0] == "True", int(out[1])


def test_the_default_cap_keeps_a_process_to_two_arenas() -> None:
    applied, arenas = arenas_after_threads(2)
    assert applied and arenas <= 2


def test_zero_keeps_glibcs_default_of_many_arenas() -> None:
    applied, arenas = arenas_after_threads(0)
    assert not applied and arenas > 2  # what the cap is for: 12 threads, more arenas than two


def test_a_malloc_arena_max_in_the_environment_wins() -> None:
    applied, arenas = arenas_after_threads(2, {"MALLOC_ARENA_MAX": "3"})
    assert not applied and arenas == 3


def test_serve_applies_the_setting_before_gunicorn_starts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from memorist.config.settings import Settings
    from memorist.serve import gunicorn_app as server

    # run_gunicorn puts prometheus-client in multiprocess mode for the workers it forks; in this
    # test process that would outlive the test and change how later tests' /metrics read.
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path / "metrics"))
    seen: list[int] = []
    monkeypatch.setattr(server, "limit_malloc_arenas", seen.append)
    monkeypatch.setattr(server.MemoristGunicorn, "run", lambda self: seen.append(-1))
    server.run_gunicorn(Settings.model_validate({"server": {"malloc_arena_max": 4}}))
    assert seen == [4, -1]
