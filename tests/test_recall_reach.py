"""What recall leaves unloaded changes nothing it returns (``candidates.within_reach``): on a
real store (real model, SQLite, Chroma), the results equal those of loading every candidate's
whole memory, and a query that names someone loads whole memories only for the candidates still
within reach after the names step (their texts alone are read for it)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mnemo.recall.pipeline as pipeline
from mnemo.clock import Clock
from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.recall.pipeline import search

from .conftest import T0

PEOPLE = ["Alice", "Bob", "Chen", "Dana", "Emeka", "Farah"]
PROJECTS = ["billing service", "mobile app", "search index", "payments API", "backup job", "release pipeline"]
ACTIONS = ["decided to migrate the {p} to PostgreSQL", "found a memory leak in the {p}", "rewrote the tests of the {p}",
           "asked for a budget review of the {p}", "fixed the timeout in the {p}", "rolled back the last release of the {p}",
           "measured the latency of the {p} under load", "documented the deploy steps of the {p}"]
TIMES = ["on Monday", "last week", "after the outage", "before the audit", "in March", "at the retro"]
QUERIES = [
    "what did Alice decide about the billing service",  # names someone the store knows
    "who fixed the timeout in the payments API",
    "Bob Chen release pipeline rollback",  # two names
    "memory leak in the mobile app",
    "when was the backup job rolled back",
    "Dana budget review",
    # Named queries whose best matches mostly name someone else: the names step lowers them and
    # lifts memories from beyond the first bound (what its slack is for).
    *[f"{who} {what}" for who in PEOPLE for what in ("rewrote the tests", "deploy steps documented", "latency under load")],
]


def _corpus(n: int) -> list[dict[str, Any]]:
    rng = random.Random(4)
    out = []
    for i in range(n):
        text = f"{rng.choice(PEOPLE)} {rng.choice(ACTIONS).format(p=rng.choice(PROJECTS))} {rng.choice(TIMES)}."
        # Some memories name no one: the names step lowers them, it never drops them.
        if i % 5 == 0:
            text = "We " + text.split(" ", 1)[1]
        out.append({"content": text, "tags": ["ops"] if i % 3 == 0 else [], "created_at": T0 - (n - i) * 3600.0,
                    "session_id": f"s{i // 20}"})
    return out


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, real_embedder: Any) -> Iterator[Mnemo]:
    home: Path = tmp_path_factory.mktemp("reach")
    settings = load_settings(home=home, overrides={"embedding.model": "all-MiniLM-L6-v2"})
    with Mnemo(settings, clock=Clock(T0), embedder=real_embedder) as m:
        m.save_many(_corpus(600))
        yield m


def _ranked(m: Mnemo, query: str, **filters: Any) -> list[tuple[str, float, str]]:
    found = search(m.core, query, k=10, **filters)
    return [(c.id, round(c.score, 9), c.reason) for c in found.hits]


@pytest.mark.parametrize("filters", [{}, {"tag": "ops"}], ids=["all", "tagged"])
def test_results_equal_those_of_loading_every_candidate(store: Mnemo, filters: dict[str, Any],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    bounded = {q: _ranked(store, q, **filters) for q in QUERIES}
    assert all(len(r) == 10 for r in bounded.values())
    monkeypatch.setattr(pipeline, "within_reach", lambda ranked, *a, **kw: list(ranked))
    loaded_all = {q: _ranked(store, q, **filters) for q in QUERIES}
    assert bounded == loaded_all


def test_a_named_query_loads_whole_memories_only_within_reach(store: Mnemo, monkeypatch: pytest.MonkeyPatch) -> None:
    texts: list[str] = []
    loaded: list[str] = []
    real_texts, real_memories = store.core.store.light_texts, store.core.store.get_memories

    def spy_texts(ids: list[str]) -> Any:
        texts.extend(ids)
        return real_texts(ids)

    def spy_memories(ids: list[str]) -> Any:
        loaded.extend(ids)
        return real_memories(ids)

    monkeypatch.setattr(store.core.store, "light_texts", spy_texts)
    monkeypatch.setattr(store.core.store, "get_memories", spy_memories)
    found = search(store.core, "what did Alice decide about the billing service", k=10)
    hits = [c.id for c in found.hits]
    assert len(hits) == 10 and set(hits) <= set(loaded)
    # The names step read texts for every candidate it could lower; those it lowered out of reach
    # (most of them name someone else) were never loaded whole.
    assert set(loaded) < set(texts)
    contents = {i: r["content"] for i, r in real_texts(texts).items()}
    skipped = set(texts) - set(loaded)
    assert sum("Alice" not in contents[i] for i in skipped) > len(skipped) / 2

    texts.clear()
    loaded.clear()
    # No name: the specificity alone reads the texts (recall/specific.py) ...
    search(store.core, "memory leak in the mobile app", k=10)
    assert loaded and set(loaded) <= set(texts)
    texts.clear()
    loaded.clear()
    # ... and with it off, no text is read.
    monkeypatch.setattr(store.settings.recall, "specificity", 0.0)
    search(store.core, "memory leak in the mobile app", k=10)
    assert texts == [] and loaded
