"""The pluggable judge: deterministic by default; an OpenAI-compatible endpoint when
configured (here a real HTTP server on loopback answering like a model would); the rules
decide whenever the endpoint fails."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler

import pytest

from mnemo.config import load_settings
from mnemo.judge import HttpJudge, RuleJudge, make_judge
from mnemo.models import Link, Memory, MemoryType

from .loopback import serving


class _Model(BaseHTTPRequestHandler):
    answer = "none"
    seen: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": type(self).answer}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def model_server():
    _Model.seen = []
    with serving(_Model) as url:
        yield url


OLD = Memory(id="old", content="The checkout service exhausted its connection pool.", type=MemoryType.FACT)
NEW = Memory(id="new", content="Because of the exhausted pool, we decided to add PgBouncer.", type=MemoryType.DECISION)
PROPOSED = Link("old", "new", "because", "rule", 0.7, 5.0)


def test_default_judge_is_the_rules(home) -> None:
    judge = make_judge(load_settings(home=home))
    assert isinstance(judge, RuleJudge)
    assert judge.relation(NEW, OLD, PROPOSED) is PROPOSED
    a = Memory(id="a", content="We deploy the API on Fly.io every Friday.")
    b = Memory(id="b", content="We deploy the API on Fly.io every Friday!")
    c = Memory(id="c", content="We never deploy the API on Fly.io on Friday.")
    assert judge.same(a, b) and not judge.same(a, c)


def test_http_judge_asks_the_endpoint_and_follows_its_answer(home, model_server) -> None:
    settings = load_settings(home=home, overrides={"judge.url": model_server, "judge.api_key": "k-1"})
    judge = make_judge(settings)
    assert isinstance(judge, HttpJudge)
    _Model.answer = "none"
    assert judge.relation(NEW, OLD, PROPOSED) is None
    req = _Model.seen[-1]
    assert req["path"] == "/v1/chat/completions" and req["auth"] == "Bearer k-1"
    assert "because" in req["body"]["messages"][1]["content"] and req["body"]["temperature"] == 0
    _Model.answer = "Triggered."
    got = judge.relation(NEW, OLD, PROPOSED)
    assert (got.src, got.dst, got.rel, got.origin) == ("old", "new", "triggered", "model")
    _Model.answer = "supersedes"
    got = judge.relation(NEW, OLD, PROPOSED)
    assert (got.src, got.dst, got.rel) == ("new", "old", "supersedes")  # versions run new → old
    _Model.answer = "no idea, sorry"
    assert judge.relation(NEW, OLD, PROPOSED) is PROPOSED  # unusable answer: the rules decide
    _Model.answer = "yes"
    assert judge.same(OLD, NEW) is True


def test_links_made_through_the_http_judge(home, clock, model_server) -> None:
    from mnemo.engine import Mnemo
    from mnemo.nlp.embedder import HashEmbedder

    settings = load_settings(home=home, overrides={"embedding.model": "hash-64", "judge.url": model_server})
    _Model.answer = "none"
    with Mnemo(settings, clock=clock, embedder=HashEmbedder(64)) as m:
        a = m.save("The nightly backup job fails with a PermissionError on the NFS share.").id
        b = m.save("We fixed the PermissionError on the NFS share by remounting it as the backup user.").id
        rels = {x.rel for x in m.core.store.links_of(b)}
        assert "resolves" not in rels  # the model said no relation
        assert any(r.startswith("shares_entity:") for r in rels)  # structural links need no judge
        _Model.answer = "resolves"
        c = m.save("We fixed the PermissionError on the NFS share for good with a dedicated service account.").id
        model_links = [x for x in m.core.store.links_of(c, direction="in") if x.origin == "model"]
        assert [x.rel for x in model_links] == ["resolves"] and model_links[0].src in (a, b)
        assert model_links[0].weight == 0.8


def test_an_unreachable_endpoint_leaves_the_rules_in_charge(home) -> None:
    judge = HttpJudge("http://127.0.0.1:9/v1", timeout=0.5)
    assert judge.relation(NEW, OLD, PROPOSED) is PROPOSED
    assert judge.same(OLD, OLD) is True
