"""Shared fixtures. Every test gets its own temporary MNEMO_HOME (autouse), so nothing ever
touches a real user folder. The real MiniLM embedder is loaded once per session."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from mnemo.clock import Clock, parse_time
from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.nlp.embedder import HashEmbedder

ROOT = Path(__file__).resolve().parent.parent
T0 = parse_time("2026-03-02T09:00:00Z")


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One ONNX export of the model for the whole session (each home would make its own)."""
    return tmp_path_factory.mktemp("models")


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_cache: Path) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("MNEMO_HOME", str(home))
    for var in list(os.environ):
        if var.startswith("MNEMO_") and var != "MNEMO_HOME":
            monkeypatch.delenv(var)
    monkeypatch.setenv("MNEMO_EMBEDDING_MODEL_CACHE", str(model_cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return home


@pytest.fixture
def home(_isolated_home: Path) -> Path:
    return _isolated_home


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    v = tmp_path / "vault"
    v.mkdir()
    return v


@pytest.fixture(scope="session")
def real_embedder(model_cache: Path):
    """all-MiniLM-L6-v2 from the installed package, loaded once for the whole session."""
    from mnemo.nlp.embedder import make_embedder

    return make_embedder("all-MiniLM-L6-v2", backend="onnx", cache_dir=model_cache)


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture
def engine(home: Path, clock: Clock):
    """An engine with the deterministic hash embedder: for tests of logic, not of quality."""
    settings = load_settings(home=home, overrides={"embedding.model": "hash-64"})
    with Mnemo(settings, clock=clock, embedder=HashEmbedder(64)) as m:
        yield m


@pytest.fixture
def real_engine(home: Path, clock: Clock, real_embedder):
    settings = load_settings(home=home)
    with Mnemo(settings, clock=clock, embedder=real_embedder) as m:
        yield m


def run_cli(*args: str, home: Path | None = None, env: dict[str, str] | None = None, input: str | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the real ``mnemo`` console entry in a subprocess."""
    full_env = dict(os.environ)
    if home is not None:
        full_env["MNEMO_HOME"] = str(home)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "mnemo", *args], capture_output=True, text=True, env=full_env, input=input, timeout=timeout
    )


def invoke_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The real CLI entry point (error handling included), in-process: (exit code, stdout, stderr)."""
    from mnemo.cli import main

    capsys.readouterr()
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@contextmanager
def serving(settings: Any) -> Iterator[Any]:
    """A real daemon, in-process, on a loopback port, its clock starting at T0 and running on."""
    from mnemo.daemon.server import Daemon

    d = Daemon(settings, clock=Clock(T0, running=True))
    d.open()
    d.start_threads()
    try:
        yield d
    finally:
        d.request_stop("test over")
        d.shutdown()
