"""Chroma server mode against a real ``chroma run`` (one server for the module): recall, forget
and restore, reindex, moving an index there and back, several homes on one server, and the
errors a user sees when the server is missing, wrong or dies mid-session."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemo.clock import Clock
from mnemo.config import load_settings
from mnemo.engine import Mnemo
from mnemo.errors import ConfigError, InvalidInput, StorageError
from mnemo.index.chroma_server import parse_url, probe
from mnemo.index.move import config_with_url
from mnemo.nlp.embedder import HashEmbedder

from .chroma_server import ChromaServer, free_port
from .conftest import T0, invoke_main

FACTS = [
    "We decided to use PostgreSQL for the main database",
    "The cat sleeps on the sofa every afternoon",
    "Alice prefers dark mode in her editor",
    "The staging deploy failed with a TimeoutError",
    "Lunch with the design team is on Fridays at noon",
]


invoke = invoke_main


class CountingEmbedder(HashEmbedder):
    """The hash embedder, counting the texts it embeds (a move must embed none)."""

    def __init__(self) -> None:
        super().__init__(64)
        self.embedded = 0

    def embed(self, texts):  # noqa: ANN001, ANN201
        self.embedded += len(texts)
        return super().embed(texts)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    srv = ChromaServer(tmp_path_factory.mktemp("chroma") / "data").start()
    yield srv
    srv.stop()


def open_engine(home: Path, url: str | None, embedder=None, **overrides) -> Mnemo:  # noqa: ANN001
    embedder = embedder or HashEmbedder(64)
    model = "all-MiniLM-L6-v2" if not isinstance(embedder, HashEmbedder) else "hash-64"
    ov = {"embedding.model": model, **overrides}
    if url:
        ov["index.chroma_url"] = url
    return Mnemo(load_settings(home=home, overrides=ov), clock=Clock(T0), embedder=embedder)


def test_recall_forget_restore_on_a_server(server: ChromaServer, home: Path, real_embedder) -> None:
    """The recall path with the real model, its vectors on the server, none in the home."""
    with open_engine(home, server.url, real_embedder) as m:
        ids = [m.save(t).memory.id for t in FACTS]
        hits = m.recall("which database did we choose?", k=3)
        assert hits[0].id == ids[0] and hits[0].vector_rank == 1
        m.forget(ids[0])
        assert ids[0] not in [h.id for h in m.recall("which database did we choose?", k=5)]
        m.restore(ids[0])
        assert m.recall("which database did we choose?", k=3)[0].id == ids[0]
        col = m.core.index.client.get_collection(m.core.index._name("memories"))
        assert col.count() == len(FACTS) and col.name.startswith("h")
        assert m.doctor()["ok"]
    assert not (home / "chroma").exists()


def test_reindex_rebuilds_the_server_collection(server: ChromaServer, home: Path) -> None:
    with open_engine(home, server.url) as m:
        ids = [m.save(t).memory.id for t in FACTS]
        m.core.index.delete("memories", ids[:2])  # damage the derived index
        assert m.core.index.count("memories") == 3
        assert m.reindex() == {"fts": 5, "vectors": 5}
        assert m.core.index.count("memories") == 5
        assert m.recall("PostgreSQL database", k=1, touch=False)[0].id == ids[0]


def test_homes_sharing_a_server_do_not_see_each_other(server: ChromaServer, tmp_path: Path) -> None:
    with open_engine(tmp_path / "a", server.url) as a, open_engine(tmp_path / "b", server.url) as b:
        ida = a.save("Project alpha ships on Monday").memory.id
        idb = b.save("Project alpha ships on Tuesday").memory.id
        assert a.core.index.prefix != b.core.index.prefix
        assert [h.id for h in a.recall("project alpha ships", k=5)] == [ida]
        assert [h.id for h in b.recall("project alpha ships", k=5)] == [idb]


def test_move_to_a_server_copies_vectors_and_records_the_url(server: ChromaServer, home: Path) -> None:
    emb = CountingEmbedder()
    with open_engine(home, None, emb) as m:
        ids = [r.memory.id for r in m.save_many([{"content": f"note {i} about topic {i % 7}"} for i in range(120)])]
        # Two note chunks, as the vault index writes them (a vector with no chunk row is an
        # orphan, which the next open deletes).
        m.core.index.upsert("chunks", ["n1:0", "n1:1"], HashEmbedder(64).embed(["a chunk", "another"]), [{"path": "A.md"}] * 2)
        with m.core.store.tx() as conn:
            conn.execute("INSERT INTO notes (path, uid, title, content_hash, mtime, size, indexed_at) "
                         "VALUES ('A.md', 'n1', 'A', 'h', 0, 0, 0)")
            conn.executemany("INSERT INTO chunks (id, note_uid, ord, heading, content, hash, words) VALUES (?, 'n1', ?, NULL, ?, 'x', 2)",
                             [("n1:0", 0, "a chunk"), ("n1:1", 1, "another")])
        before = emb.embedded
        ticks: list[int] = []
        result = m.move_index(server.url, progress=ticks.append)
        assert emb.embedded == before, "a move copies vectors, it does not re-embed"
        assert (result["method"], result["memories"], result["chunks"]) == ("copied", 120, 2)
        assert sum(ticks) == 120
        assert m.core.index.url == server.url
        assert m.recall("note 17 about topic 3", k=1, touch=False)[0].id == ids[17]
    cfg = (home / "config.toml").read_text()
    assert f'chroma_url = "{server.url}"' in cfg
    # A fresh open reads the URL from config.toml and finds everything there.
    with Mnemo(load_settings(home=home, overrides={"embedding.model": "hash-64"}), embedder=HashEmbedder(64)) as m:
        assert m.settings.index.chroma_url == server.url
        assert m.core.index.count("memories") == 120 and m.core.index.count("chunks") == 2
        assert m.doctor()["ok"]
        back = m.move_index("embedded")
        assert (back["method"], back["memories"]) == ("copied", 120)
    assert "chroma_url" not in (home / "config.toml").read_text()
    with open_engine(home, None) as m:
        assert m.core.index.url is None and m.core.index.count("memories") == 120


def test_move_refuses_the_place_it_is_already(server: ChromaServer, home: Path) -> None:
    with open_engine(home, server.url) as m:
        m.save("something to index")
        with pytest.raises(InvalidInput, match="already at"):
            m.move_index(server.url)
        with pytest.raises(InvalidInput, match="already on"):  # the same server, spelled differently
            m.move_index(f"http://localhost:{server.port}")
        assert m.core.index.count("memories") == 1


def test_reindex_to_from_the_cli(server: ChromaServer, home: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNEMO_EMBEDDING_MODEL", "hash-64")
    assert invoke(capsys, "save", "We moved the index to a server")[0] == 0
    code, out, err = invoke(capsys, "reindex", "--to", server.url, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert (data["method"], data["memories"], data["to"]) == ("copied", 1, server.url)
    code, out, _ = invoke(capsys, "recall", "index server", "--json")
    assert json.loads(out)["hits"][0]["content"] == "We moved the index to a server"
    code, out, err = invoke(capsys, "reindex", "--to", "ftp://nowhere")
    assert (code, out) == (1, "")
    assert err.startswith("Error: index.chroma_url 'ftp://nowhere' is not an http(s) URL\nHint: e.g. http://")


def test_no_server_is_a_clear_error_and_nothing_is_written(home: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("MNEMO_EMBEDDING_MODEL", "hash-64")
    monkeypatch.setenv("MNEMO_INDEX_CHROMA_URL", url)
    code, out, err = invoke(capsys, "save", "this cannot be indexed")
    assert (code, out) == (1, "")
    assert err.startswith(f"Error: cannot reach the Chroma server at {url}: ")
    assert "\nHint: start the server (`chroma run" in err and "Traceback" not in err
    monkeypatch.delenv("MNEMO_INDEX_CHROMA_URL")
    with open_engine(home, None) as m:
        assert m.core.store.count() == 0


class _NotChroma(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        body = b"<html>hello</html>" if self.path == "/api/v2/heartbeat" else b""
        self.send_response(200 if body else 404)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_something_else_on_the_port_is_named_as_such(home: Path) -> None:
    httpd = http.server.HTTPServer(("127.0.0.1", 0), _NotChroma)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with pytest.raises(StorageError, match="not as a Chroma server") as err:
            probe(f"http://127.0.0.1:{httpd.server_port}")
        assert "check the host and port" in (err.value.hint or "")
    finally:
        httpd.shutdown()


def test_a_server_that_dies_loses_nothing(tmp_path: Path) -> None:
    """Kill the server mid-session: reads and writes fail with a StorageError (no raw httpx
    error); the memory saved meanwhile is in the store and is indexed once the server is back.
    A move off a dead server re-embeds from the store."""
    srv = ChromaServer(tmp_path / "chroma").start()
    home = tmp_path / "home"
    try:
        m = open_engine(home, srv.url)
        try:
            first = m.save("The payments service runs on port 8443").memory.id
            second = m.save("Invoices are sent on the first of the month").memory.id
            srv.stop()
            with pytest.raises(StorageError, match="Chroma server .* failed while querying") as err:
                m.recall("payments port", touch=False)
            assert "indexed again when the server answers" in (err.value.hint or "")
            with pytest.raises(StorageError):  # fails before the store is written: nothing half-done
                m.save("Refunds take five days")
            assert m.core.store.count() == 2
            with pytest.raises(StorageError, match="failed while updating"):
                m.forget(second)  # the store commits first (the truth), the index write fails
            assert m.get(second).status.value == "archived"
        finally:
            m.close()
        srv.start()
        with open_engine(home, srv.url) as m:
            # The failed write left the index marked dirty: opening it rewrote the stale status.
            assert m.doctor()["ok"]
            assert m.core.index.collection("memories").get(ids=[second])["metadatas"][0]["status"] == "archived"
            assert [h.id for h in m.recall("payments invoices", k=5, touch=False)] == [first]
        srv.stop()
        with open_engine(home, srv.url) as m:
            result = m.move_index("embedded")
            assert (result["method"], result["memories"]) == ("re-embedded", 2)
            assert "cannot reach the Chroma server" in result["source_error"]
        with open_engine(home, None) as m:
            assert m.core.index.url is None and m.doctor()["ok"]
    finally:
        srv.stop()


@pytest.mark.parametrize(
    ("url", "normal"),
    [("http://127.0.0.1:8000", "http://127.0.0.1:8000"), ("127.0.0.1:9000", "http://127.0.0.1:9000"),
     ("https://chroma.lan", "https://chroma.lan:443"), ("http://[::1]:8001/", "http://[::1]:8001")],
)
def test_server_urls_are_normalised(url: str, normal: str) -> None:
    assert parse_url(url).url == normal


@pytest.mark.parametrize("url", ["ftp://h:1", "http://", "http://h:99999", "http://h:8000/api", "http://u@h:8000"])
def test_bad_server_urls_are_config_errors(url: str) -> None:
    with pytest.raises(ConfigError):
        parse_url(url)


def test_config_edit_keeps_everything_else(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('# mine\n[vault]\npath = "/v"\n\n[index] # the index\nbatch = 100\nchroma_url = "http://old:1"\n[recall]\nk = 3')
    new = config_with_url(cfg, "http://new:2")
    assert new == ('# mine\n[vault]\npath = "/v"\n\n[index] # the index\nbatch = 100\nchroma_url = "http://new:2"\n'
                   "[recall]\nk = 3\n")
    cfg.write_text(new)
    assert "chroma_url" not in config_with_url(cfg, None)
    cfg.write_text('index.chroma_url = "http://x:1"\n')  # a dotted key this editor does not rewrite
    with pytest.raises(ConfigError, match="nothing was moved"):
        config_with_url(cfg, "http://new:2")


def test_a_server_that_lost_its_data_is_refilled_from_the_store(tmp_path: Path) -> None:
    """The server comes back on the same port with an empty folder: the next open notices the
    index is short and embeds every memory again from the store."""
    srv = ChromaServer(tmp_path / "chroma").start()
    home = tmp_path / "home"
    try:
        with open_engine(home, srv.url) as m:
            ids = [r.memory.id for r in m.save_many([{"content": f"server fact {i}"} for i in range(40)])]
        srv.stop()
        srv.path = tmp_path / "chroma-empty"
        srv.start()
        with open_engine(home, srv.url) as m:
            assert m.core.index.count("memories") == 40
            assert m.recall("server fact 7", k=1, touch=False)[0].id == ids[7]
            assert m.doctor()["ok"]
    finally:
        srv.stop()
