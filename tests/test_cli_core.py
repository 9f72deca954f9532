"""The core CLI as a user runs it: real subprocesses, real home, JSON on stdout."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT, run_cli

HASH = {"MNEMO_EMBEDDING_MODEL": "hash-64"}
UNRELATED = [
    "The cat sleeps on the sofa every afternoon",
    "Alice prefers dark mode in her editor",
    "The staging deploy failed with a TimeoutError",
    "Lunch with the design team is on Fridays at noon",
    "Bob is on call for the payments service this week",
    "The office plants need water twice a week",
]


def _unshare_works() -> bool:
    if not shutil.which("unshare"):
        return False
    return subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0


def test_save_then_recall_ranks_it_first_with_no_network(tmp_path: Path) -> None:
    """Must-show 2 and 3: the real model, the real CLI, and (where the kernel allows it) no
    network namespace at all, so any download attempt would fail."""
    home = tmp_path / "home"
    jsonl = tmp_path / "other.jsonl"
    jsonl.write_text("\n".join(json.dumps({"content": t}) for t in UNRELATED) + "\n")
    prefix = ["unshare", "-rn"] if _unshare_works() else []
    env = {**os.environ, "MNEMO_HOME": str(home)}

    def mnemo(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*prefix, sys.executable, "-m", "mnemo", *args], capture_output=True, text=True,
                              env=env, timeout=180)

    assert mnemo("import", str(jsonl), "--json").returncode == 0
    saved = mnemo("save", "We decided to use PostgreSQL for the database", "--tag", "db", "--json")
    assert saved.returncode == 0, saved.stderr
    out = json.loads(saved.stdout)
    assert set(out) >= {"id", "type", "tokens"} and out["type"] == "decision"
    rec = mnemo("recall", "which database did we choose?", "--json")
    assert rec.returncode == 0, rec.stderr
    hits = json.loads(rec.stdout)["hits"]
    # The relevance floor may drop the unrelated ones; whatever comes back, ours is first.
    assert hits and hits[0]["id"] == out["id"]
    assert all(h["score"] <= hits[0]["score"] for h in hits)
    assert {"id", "score", "content", "tier", "meta"} <= set(hits[0])
    assert "Traceback" not in rec.stderr


def test_no_hub_model_names_in_the_package() -> None:
    pattern = re.compile(
        r"from_pretrained\(['\"][\w-]+/|SentenceTransformer\(['\"](sentence-transformers/)?all-MiniLM"
        r"|get_encoding\(['\"]cl100k_base['\"]\)|spacy\.load\(['\"]en_core_web_sm['\"]\)"
    )
    offenders = [str(p) for p in (ROOT / "mnemo").rglob("*.py") if pattern.search(p.read_text())]
    assert offenders == []


@pytest.mark.parametrize("args", [["--help"], ["config", "show"], ["config", "show", "--json"], ["recall", "--help"]])
def test_light_commands_import_no_model_stack(args: list[str], tmp_path: Path) -> None:
    code = (
        "import sys\nfrom mnemo.cli import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'spacy', 'chromadb', 'transformers') if m in sys.modules]\n"
        "print('HEAVY=' + ','.join(heavy), file=sys.stderr)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "MNEMO_HOME": str(tmp_path / "h")}, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "HEAVY=\n" in r.stderr or r.stderr.rstrip().endswith("HEAVY=")


def test_config_show_json_reflects_env_and_flags(tmp_path: Path) -> None:
    r = run_cli("--vault", str(tmp_path / "v"), "config", "show", "--json", home=tmp_path / "h",
                env={"MNEMO_RECALL_K": "7"})
    data = json.loads(r.stdout)
    assert data["recall"]["k"] == 7 and data["vault"]["path"] == str(tmp_path / "v")
    assert data["home"] == str(tmp_path / "h")


def test_import_1000_lines_through_the_cli(tmp_path: Path) -> None:
    jsonl = tmp_path / "m.jsonl"
    jsonl.write_text("\n".join(json.dumps({"content": f"memory {i} about subject {i % 13}", "tags": [f"t{i % 5}"]})
                               for i in range(1000)))
    home = tmp_path / "h"
    r = run_cli("import", str(jsonl), "--json", home=home, env=HASH)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["saved"] == 1000
    stats = json.loads(run_cli("stats", "--json", home=home, env=HASH).stdout)
    assert stats["memories"] == 1000


def _fails(r: subprocess.CompletedProcess[str], message: str) -> None:
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert r.stdout == ""
    assert r.stderr.startswith("Error: ") and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_bad_input_gets_a_clear_message_and_nothing_is_written(tmp_path: Path) -> None:
    home = tmp_path / "h"
    _fails(run_cli("save", "   ", home=home, env=HASH), "content is empty")
    _fails(run_cli("save", "-", home=home, env=HASH, input="y" * (64 * 1024 + 10)), "the limit is 65536")
    _fails(run_cli("save", "x", "--meta", "{nope", home=home, env=HASH), "--meta is not valid JSON")
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"content": "fine"}\n{"content": \n')
    _fails(run_cli("import", str(bad), home=home, env=HASH), "line 2: malformed JSON")
    bad.write_bytes(b'{"content": "fine"}\n{"content": "\xc3\x28"}\n')
    _fails(run_cli("import", str(bad), home=home, env=HASH), "line 2: not valid UTF-8")
    _fails(run_cli("import", str(tmp_path / "missing.jsonl"), home=home, env=HASH), "no such file")
    _fails(run_cli("show", "0123456789", home=home, env=HASH), "no memory with id")
    _fails(run_cli("forget", "nope-nope", home=home, env=HASH), "no memory with id")
    stats = json.loads(run_cli("stats", "--json", home=home, env=HASH).stdout)
    assert stats["memories"] == 0
    not_a_dir = tmp_path / "file-home"
    not_a_dir.write_text("I am a file")
    _fails(run_cli("save", "hello", home=not_a_dir / "sub", env=HASH), "cannot create the mnemo home")
    as_file = run_cli("save", "hello", home=not_a_dir, env=HASH)
    assert as_file.returncode == 2 and "is a file" in as_file.stderr
    _fails(run_cli("--now", "yesterday-ish", "stats", home=home, env=HASH), "not an ISO-8601 time")
    usage = run_cli("recall", home=home, env=HASH)
    assert usage.returncode == 2 and "Missing argument" in usage.stderr
