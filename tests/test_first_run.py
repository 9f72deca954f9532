"""A newcomer's first steps are clean: ``mnemo init && mnemo doctor`` exits 0 (init indexes the
notes it puts into the vault), and building the package prints no warning from the build
backend (``project.license`` is an SPDX string)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from .conftest import ROOT


def test_init_then_doctor_exits_0(tmp_path: Path) -> None:
    env = {**os.environ, "MNEMO_HOME": str(tmp_path / "home"), "MNEMO_EMBEDDING_MODEL": "hash-64", "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": str(ROOT)}
    mnemo = f"{sys.executable} -m mnemo"
    run = subprocess.run(["bash", "-c", f"{mnemo} init --vault {tmp_path / 'vault'} && {mnemo} doctor"],
                         capture_output=True, text=True, env=env, timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert any(ln.startswith("indexed:") and "mnemo README.md" in ln for ln in run.stdout.splitlines())
    assert run.stdout.rstrip().endswith("clean")
    # The README note is found at once.
    hits = subprocess.run([sys.executable, "-m", "mnemo", "recall", "mnemo README", "--tier", "ltm", "--no-touch"],
                          capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
    assert "mnemo README.md" in hits.stdout


def test_package_builds_without_backend_warnings(tmp_path: Path) -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert isinstance(meta["project"]["license"], str)
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for name in ("mnemo", "vault_template"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w",
                            str(tmp_path / "dist"), str(src)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr
    out = build.stdout + build.stderr
    assert "Warning" not in out and "deprecated" not in out, out
    assert list((tmp_path / "dist").glob("mnemo-*.whl"))
