"""Helpers for the dream-cycle tests: engines with a vault, and byte-level snapshots of a home
and a vault."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from mnemo.clock import Clock
from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.nlp.embedder import HashEmbedder


def open_engine(home: Path, vault: Path | None, clock: Clock, embedder: Any = None, **overrides: Any) -> Mnemo:
    if embedder is None:
        embedder = HashEmbedder(64)
        overrides.setdefault("embedding.model", "hash-64")
    settings = load_settings(home=home, vault=vault, overrides=overrides)
    return Mnemo(settings, clock=clock, embedder=embedder)


def tree_hashes(root: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """sha256 of every file under ``root`` (relative path → digest)."""
    out: dict[str, str] = {}
    if not root.exists():
        return out
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and not any(rel == s or rel.startswith(s + "/") for s in skip):
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def state(engine: Mnemo) -> dict[str, Any]:
    """Everything a dream run may change, in comparable form: the store's tables (not the
    journal itself), the vector index's ids and metadata, the vault's and the history's files."""
    q = engine.core.store.query
    out: dict[str, Any] = {
        "memories": [dict(r) for r in q("SELECT * FROM memories ORDER BY id")],
        "links": [tuple(r) for r in q("SELECT * FROM links ORDER BY src, dst, rel, dir")],
        "uses": [tuple(r) for r in q("SELECT memory_id, at, kind, context FROM uses ORDER BY memory_id, at, kind")],
        "clusters": [tuple(r) for r in q("SELECT * FROM dream_clusters ORDER BY id")],
        "notes": [tuple(r) for r in q("SELECT path, mnemo_id, content_hash FROM notes ORDER BY path")],
        "runs": [tuple(r) for r in q("SELECT id, status, report_path FROM dream_runs ORDER BY id")],
        "ops": [tuple(r) for r in q("SELECT run_id, seq, kind, key, status, result FROM dream_ops ORDER BY run_id, seq")],
    }
    col = engine.core.index.collection("memories")
    got = col.get(include=["metadatas"])
    out["vectors"] = sorted((i, json.dumps(m, sort_keys=True)) for i, m in zip(got["ids"], got["metadatas"], strict=True))
    vault = engine.settings.vault
    out["vault"] = tree_hashes(vault) if vault else {}
    out["history"] = tree_hashes(engine.home / "dream-history")
    return out
