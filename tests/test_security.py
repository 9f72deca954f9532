"""File modes in MNEMO_HOME: every file 0600 and every folder 0700, walked for real after the
engine, the vault setup and the daemon have written there; the process umask is left alone."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

from mnemo.clock import Clock
from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.nlp.embedder import HashEmbedder
from mnemo.security import PrivateRotatingFileHandler, loose_modes, tighten_tree
from mnemo.setup import init_home

from .conftest import T0


def modes(root: Path) -> dict[str, int]:
    out = {}
    for base, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            p = Path(base, name)
            out[str(p.relative_to(root))] = stat.S_IMODE(os.lstat(p).st_mode)
    return out


def assert_private(root: Path) -> dict[str, int]:
    found = modes(root)
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    bad = {p: oct(m) for p, m in found.items() if m & 0o077}
    assert not bad, f"readable by others: {bad}"
    assert loose_modes(root) == []
    return found


def test_engine_files_are_private_while_open_and_after(home: Path, vault: Path) -> None:
    umask = os.umask(0o022)
    os.umask(umask)
    settings = load_settings(home=home, vault=vault, overrides={"embedding.model": "hash-64"})
    init_home(settings)  # writes config.toml
    with Mnemo(settings, clock=Clock(T0), embedder=HashEmbedder(64)) as m:
        m.save_many([{"content": f"memory {i} about the private home"} for i in range(30)])
        m.recall("private home")
        open_modes = assert_private(home)
        # SQLite's write-ahead log holds recent memories: it must be as private as the database.
        assert open_modes["mnemo.db"] == open_modes["mnemo.db-wal"] == open_modes["mnemo.db-shm"] == 0o600
        assert open_modes["config.toml"] == open_modes["owner.lock"] == 0o600
        assert open_modes["chroma"] == 0o700 and open_modes["chroma/chroma.sqlite3"] == 0o600
        assert any(p.startswith("chroma/") and p.endswith(".bin") for p in open_modes)  # HNSW segment files
    assert_private(home)
    assert os.umask(umask) == umask, "the process umask must not change (it would change the vault's notes)"


def test_daemon_files_are_private(home: Path) -> None:
    from mnemo.client import RemoteMnemo
    from mnemo.daemon.server import Daemon, configure_logging

    logger = logging.getLogger("mnemo")
    saved = (list(logger.handlers), logger.level)
    settings = load_settings(home=home, overrides={"embedding.model": "hash-64", "daemon.gc_interval": 0,
                                                   "daemon.dream_interval": 0, "daemon.promote_interval": 0})
    configure_logging(home, to_stderr=False)
    d = Daemon(settings, clock=Clock(T0, running=True))
    try:
        d.open()
        d.start_threads()
        client = RemoteMnemo.connect(home)
        assert client is not None
        client.save("the daemon keeps its token private")
        found = assert_private(home)
        assert found["daemon.json"] == found["daemon.log"] == 0o600
    finally:
        d.request_stop("test over")
        d.shutdown()
        for h in list(logger.handlers):
            logger.removeHandler(h)
            h.close()
        for h in saved[0]:
            logger.addHandler(h)
        logger.setLevel(saved[1])
    assert_private(home)


def test_log_rollover_keeps_the_new_log_private(tmp_path: Path) -> None:
    path = tmp_path / "daemon.log"
    h = PrivateRotatingFileHandler(path, maxBytes=100, backupCount=2, encoding="utf-8")
    try:
        for i in range(20):
            h.emit(logging.LogRecord("mnemo", logging.INFO, __file__, 1, f"line {i} " * 5, None, None))
    finally:
        h.close()
    assert (tmp_path / "daemon.log.2").exists()
    assert {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in tmp_path.iterdir()} == {
        "daemon.log": "0o600", "daemon.log.1": "0o600", "daemon.log.2": "0o600"}


def test_a_loosened_home_is_tightened(tmp_path: Path) -> None:
    root = tmp_path / "h"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "f").write_text("x")
    (root / "g").write_text("y")
    os.symlink("/etc/hostname", root / "link")  # never followed, never chmod-ed
    os.chmod(root, 0o755)
    os.chmod(root / "sub", 0o775)
    os.chmod(root / "g", 0o644)
    assert sorted(Path(p).name for p in loose_modes(root)) == ["f", "g", "h", "sub"]
    assert tighten_tree(root) == 4
    assert loose_modes(root) == []
    assert stat.S_IMODE(os.stat("/etc/hostname").st_mode) & 0o004  # the link's target is untouched
