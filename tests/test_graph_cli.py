"""The real ``mnemo`` process: ingest a conversation, then ``mnemo chain`` on its decision shows
the causes and the consequences in order; link / unlink / graph / enrich; clear errors."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import run_cli

CONVERSATIONS = Path(__file__).parent / "conversations"
ENV = {"MNEMO_EMBEDDING_MODEL": "hash-64", "MNEMO_NOW": "2026-03-02T09:00:00Z"}


def test_ingest_then_chain_on_the_decision(home: Path) -> None:
    r = run_cli("ingest", str(CONVERSATIONS / "checkout_incident.json"), "--json", home=home, env=ENV)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)  # stdout carries only the payload
    assert out["kept"] == 6 and out["turns"] == 8 and out["turns_per_second"] > 0
    decision = next(m for m in out["memories"] if m["type"] == "decision")
    assert decision["fingerprint"]["decision"] == "Put PgBouncer in front of the orders database"

    r = run_cli("chain", decision["id"][:8], "--consequences", "--json", home=home, env=ENV)
    assert r.returncode == 0, r.stderr
    chain = json.loads(r.stdout)
    causes = [c["content"] for c in chain["causes"]]
    assert causes == [
        "Maya: Black Friday traffic tripled the request rate on the checkout service.",
        "Maya: Because of the Black Friday traffic, the checkout service exhausted its database connection pool.",
        "Maya: The exhausted connection pool caused checkout outages for 20 minutes.",
    ]
    assert [c["content"] for c in chain["consequences"]] == [
        "Maya: After putting PgBouncer in front of the orders database, the checkout latency dropped to 80 ms.",
        "Maya: The lower checkout latency led to a 4% increase in completed orders.",
    ]

    text = run_cli("chain", decision["id"], "--consequences", home=home, env=ENV).stdout
    lines = text.splitlines()
    assert lines[0] == "causes (root cause first):"
    marker = next(i for i, ln in enumerate(lines) if ln.startswith("▶"))
    assert "Black Friday traffic tripled" in lines[1] and "checkout outages" in lines[marker - 1]
    assert lines[marker + 1] == "consequences (nearest first):"
    assert "After putting PgBouncer" in lines[marker + 2] and "4% increase" in lines[marker + 3]


def test_link_unlink_graph_enrich_and_errors(home: Path, tmp_path: Path, clock) -> None:
    from mnemo.config import load_settings
    from mnemo.engine import Mnemo
    from mnemo.nlp.embedder import HashEmbedder

    # A bulk write leaves its memories pending; `mnemo enrich` links them.
    settings = load_settings(home=home, overrides={"embedding.model": "hash-64"})
    with Mnemo(settings, clock=clock, embedder=HashEmbedder(64)) as m:
        a, b = (r.id for r in m.save_many([
            {"content": "The Jenkins build nodes run out of disk space every Monday."},
            {"content": "We decided to add a nightly cleanup job to the Jenkins build nodes."},
        ]))
    r = run_cli("enrich", "--json", home=home, env=ENV)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["enriched"] == 2

    r = run_cli("link", a, b, "--rel", "triggered", "--json", home=home, env=ENV)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["origin"] == "person"
    g = json.loads(run_cli("graph", b, "--json", home=home, env=ENV).stdout)
    assert {(e["src"], e["rel"], e["dst"]) for e in g["edges"]} == {(a, "triggered", b), (b, "shares_entity:Jenkins", a)}
    r = run_cli("unlink", a, b, "--rel", "triggered", "--json", home=home, env=ENV)
    assert json.loads(r.stdout) == {"removed": 1}

    r = run_cli("link", a, b, "--rel", "likes", home=home, env=ENV)
    assert r.returncode == 1 and r.stderr.startswith("Error: unknown link type 'likes'") and "Hint:" in r.stderr
    assert "Traceback" not in r.stderr
    r = run_cli("ingest", str(tmp_path / "nope.json"), home=home, env=ENV)
    assert r.returncode == 1 and "Error: no such file" in r.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('[{"role": "user", "content": "We decided to use Redis."}, {"role": 5}]', encoding="utf-8")
    r = run_cli("ingest", str(bad), home=home, env=ENV)
    assert r.returncode == 1 and "turn 2" in r.stderr and "Traceback" not in r.stderr
