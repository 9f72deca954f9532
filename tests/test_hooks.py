"""Client hooks end to end: hand-made Claude Code payloads and transcripts (tests/claude_code/,
written from the client's documented schema) through ``mnemo hook EVENT`` against a real daemon
(real loopback socket, SQLite, Chroma, spaCy; the hash embedder, as quality is not the point)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mnemo.capture import project_of, used_ids
from mnemo.client import RemoteMnemo
from mnemo.clock import Clock
from mnemo.config import load_settings
from mnemo.daemon.server import Daemon
from mnemo.hooks.run import LOG_NAME, run_hook
from mnemo.nlp.tokens import count_tokens
from mnemo.sources import claude_code

from . import test_daemon_api as api
from .conftest import T0, run_cli

daemon, client = api.daemon, api.client  # the same real daemon (in this process) and its client
FIXTURES = Path(__file__).parent / "claude_code"
SESSION = "5c0ffee0-1111-4a2b-9c3d-000000000001"
NO_JOBS = api.NO_JOBS
QUIET = {"hooks.start_daemon": False, "hooks.capture_fallback": False}


def _settings(home: Path, **extra: object):
    return load_settings(home=home, overrides={"embedding.model": "hash-64", **NO_JOBS, **QUIET, **extra})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "src" / "harbor"
    (root / ".git").mkdir(parents=True)
    (root / "workers").mkdir()
    return root


def _payload(event: str, cwd: Path, transcript: Path | None = None, **extra: object) -> bytes:
    data = {"session_id": SESSION, "transcript_path": str(transcript or cwd / "missing.jsonl"), "cwd": str(cwd),
            "permission_mode": "default", "hook_event_name": event, **extra}
    return json.dumps(data).encode()


def _log(home: Path) -> str:
    return (home / LOG_NAME).read_text(encoding="utf-8")


# -- the transcript reader ---------------------------------------------------------------------
def test_reader_keeps_text_and_skips_tools_sidechains_and_meta() -> None:
    t = claude_code.read(FIXTURES / "session.jsonl")
    assert t.session_id == SESSION and t.cwd == "/home/dev/src/harbor"
    assert t.title == "Queue backend choice for harbor"
    assert [x["role"] for x in t.turns] == ["user", "assistant", "user", "assistant"]
    text = "\n".join(x["content"] for x in t.turns)
    assert "SKIP LOCKED" in text and t.turns[0]["timestamp"] == "2026-03-02T09:01:00.000Z"
    # tool output (a password in a compose file), thinking, the sub-agent and the client's own lines stay out
    for absent in ("hunter2", "overkill", "workers/ingest.py", "Caveat", "/clear", "interrupted"):
        assert absent not in text
    assert t.skipped["tool_use"] == 1 and t.skipped["tool_result"] == 1 and t.skipped["sidechain"] == 2
    assert t.skipped["thinking"] == 1 and t.skipped["meta"] == 1 and t.skipped["summary"] == 1


def test_reader_stops_before_a_line_still_being_written(tmp_path: Path) -> None:
    data = (FIXTURES / "session.jsonl").read_bytes()
    cut = data.index(b"We decided") + 5  # inside the third user line
    part = tmp_path / "s.jsonl"
    part.write_bytes(data[:cut])
    first = claude_code.read(part)
    assert first.end == data.rfind(b"\n", 0, cut) + 1 and len(first.turns) == 2
    part.write_bytes(data)
    rest = claude_code.read(part, first.end)
    assert rest.start == first.end and [x["role"] for x in rest.turns] == ["user", "assistant"]
    assert rest.turns[0]["content"].startswith("Agreed. We decided")


def test_project_is_the_git_root(project: Path, tmp_path: Path) -> None:
    assert project_of(project / "workers") == str(project)
    plain = tmp_path / "notes"
    plain.mkdir()
    assert project_of(plain) == str(plain)


# -- session-start ------------------------------------------------------------------------------
def test_session_start_prints_a_budgeted_block_naming_the_projects_decision(daemon: Daemon, client: RemoteMnemo,
                                                                            project: Path, tmp_path: Path) -> None:
    wing = str(project)
    other = str(tmp_path / "src" / "lighthouse")
    decision = client.save("We decided that harbor uses PostgreSQL with SKIP LOCKED as its job queue.",
                           type="decision", wing=wing).memory
    client.save("Harbor deploys run from the release branch every Tuesday.", type="fact", wing=wing)
    elsewhere = client.save("Lighthouse decided to queue harbor jobs in Redis Streams.", type="decision", wing=other).memory
    shared = client.save("Maria prefers short commit messages in the imperative mood for harbor and every project.",
                         type="preference").memory
    for i in range(15):  # more of the project than the budget holds
        client.save(f"Harbor worker note {i}: the ingest worker {i} batches uploads of tenant {i} in groups of {i + 5}.",
                    type="fact", wing=wing)
    settings = _settings(daemon.home, **{"hooks.budget": 300})
    out = run_hook("session-start", _payload("SessionStart", project / "workers", source="startup"), settings)
    assert out.code == 0 and out.stderr == ""
    hso = json.loads(out.stdout)["hookSpecificOutput"]
    assert hso["hookEventName"] == "SessionStart"
    block = hso["additionalContext"]
    assert count_tokens(block) <= 300 and 0 < block.count("Harbor worker note") < 15  # the budget chose
    assert "harbor" in block.splitlines()[0]
    assert "PostgreSQL with SKIP LOCKED" in block and decision.id[:8] in block
    assert elsewhere.id[:8] not in block  # another project's memory is not this project's context
    assert shared.id[:8] in block and "## Shared memories and notes" in block
    # being shown is not being used: nothing was reinforced
    assert client.get(decision.id).use_count == 0
    assert "session-start" in _log(daemon.home)


def test_session_start_text_mode_and_empty_store(daemon: Daemon, project: Path) -> None:
    settings = _settings(daemon.home)
    out = run_hook("session-start", _payload("SessionStart", project), settings, text=True)
    assert out.code == 0 and out.stdout == ""  # nothing known yet: nothing added to the context


# -- capture --------------------------------------------------------------------------------------
def test_session_end_after_the_transcript_grew_ingests_only_the_new_turns(daemon: Daemon, client: RemoteMnemo,
                                                                          project: Path, tmp_path: Path) -> None:
    settings = _settings(daemon.home)
    transcript = tmp_path / "projects" / f"{SESSION}.jsonl"
    transcript.parent.mkdir()
    shutil.copy(FIXTURES / "session.jsonl", transcript)
    first = run_hook("pre-compact", _payload("PreCompact", project, transcript, trigger="auto", custom_instructions=""),
                     settings)
    assert first.code == 0 and first.stdout == "" and first.detail["job"]
    assert daemon.background.wait(first.detail["job"], timeout=120)
    r1 = daemon.background.get(first.detail["job"])
    assert r1["state"] == "done", r1
    r1 = r1["result"]
    assert r1["new_turns"] == 4 and r1["from_offset"] == 0 and r1["kept"] >= 2 and r1["wing"] == str(project)
    count1 = client.stats().memories

    with transcript.open("ab") as fh:  # the session goes on: the client appends
        fh.write((FIXTURES / "session_more.jsonl").read_bytes())
    second = run_hook("session-end", _payload("SessionEnd", project, transcript, reason="prompt_input_exit"), settings)
    assert second.code == 0 and second.stdout == ""
    assert daemon.background.wait(second.detail["job"], timeout=120)
    r2 = daemon.background.get(second.detail["job"])["result"]
    assert r2["from_offset"] == r1["to_offset"] and r2["new_turns"] == 2 and r2["duplicates"] == 0
    assert r2["skipped"] == {"compact_summary": 1, "system": 1}
    assert client.stats().memories == count1 + r2["kept"] and r2["kept"] >= 1

    mems = client.list(wing=str(project), limit=100)  # `list --wing` finds the project's captured memories
    assert {m.session_id for m in mems} == {SESSION}
    assert all(m.status.value == "active" and m.source.value == "ingest" and m.use_count == 0 for m in mems)
    assert sum("SKIP LOCKED for the harbor job queue" in m.content for m in mems) == 1  # captured once
    assert any("backoff" in m.content for m in mems)
    hits = client.recall("retry backoff", wing=str(project), touch=False)
    assert hits and all(h.id in {m.id for m in mems} for h in hits)

    third = run_hook("stop", _payload("Stop", project, transcript, stop_hook_active=False), settings)
    assert daemon.background.wait(third.detail["job"], timeout=60)
    assert daemon.background.get(third.detail["job"])["result"]["new_turns"] == 0


def _transcript_lines(session: str, facts: list[str]) -> bytes:
    """Claude Code lines (a user message, then the assistant's text and a tool call) per fact."""
    out = []
    for i, fact in enumerate(facts):
        for role, content in (("user", f"What did we settle about {fact.split()[3]}?"),
                              ("assistant", [{"type": "text", "text": fact},
                                             {"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"file_path": "x"}}])):
            out.append({"parentUuid": None, "isSidechain": False, "type": role, "sessionId": session, "cwd": "/home/dev/src/harbor",
                        "uuid": f"{session[:8]}-{role}-{i}", "timestamp": f"2026-03-03T10:{i:02d}:00.000Z",
                        "message": {"role": role, "content": content}})
    return "".join(json.dumps(line) + "\n" for line in out).encode()


def test_a_transcript_replaced_under_the_same_path_is_read_from_its_start(daemon: Daemon, client: RemoteMnemo,
                                                                          tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    shutil.copy(FIXTURES / "session.jsonl", path)
    r1 = client.capture(str(path), wing="/tmp/harbor")
    assert r1["from_offset"] == 0 and r1["new_turns"] == 4 and r1["to_offset"] == path.stat().st_size
    # The client rotates the file: another session, longer than what was read of the first one, so
    # the old offset lands inside the new file (in the middle of one of its lines).
    other = "9e0ffee0-2222-4a2b-9c3d-000000000002"
    facts = [f"We decided that ledger{i} writes its audit trail to object storage number {i} every night at {i} o'clock."
             for i in range(12)]
    path.write_bytes(_transcript_lines(other, facts))
    assert path.stat().st_size > r1["to_offset"]
    r2 = client.capture(str(path), wing="/tmp/harbor")
    assert r2["from_offset"] == 0 and r2["bad_lines"] == 0 and r2["new_turns"] == 24
    assert r2["session_id"] == other and r2["to_offset"] == path.stat().st_size
    contents = [m.content for m in client.list(wing="/tmp/harbor", limit=200)]
    assert any("ledger0 writes its audit trail" in c for c in contents)  # the new file's first lines were not skipped
    # the same file growing is still read from where the last capture stopped
    with path.open("ab") as fh:
        fh.write(_transcript_lines(other, ["We decided that ledger99 keeps ninety days of audit trail in cold storage."]))
    r3 = client.capture(str(path), wing="/tmp/harbor")
    assert r3["from_offset"] == r2["to_offset"] and r3["new_turns"] == 2 and r3["bad_lines"] == 0
    # an offset kept before heads were recorded is trusted as it was (no transcript is read twice)
    from mnemo.capture import OFFSET_KEY

    store = daemon.engine.core.store
    key = OFFSET_KEY.format(source="claude-code", path=str(path.resolve()))
    state = json.loads(store.kv_get(key) or "{}")
    store.kv_set(key, json.dumps({k: v for k, v in state.items() if k not in ("head", "head_len")}))
    with path.open("ab") as fh:
        fh.write(_transcript_lines(other, ["We decided that ledger98 rotates its audit keys every quarter."]))
    r4 = client.capture(str(path), wing="/tmp/harbor")
    assert r4["from_offset"] == r3["to_offset"] and r4["new_turns"] == 2
    assert "head" in json.loads(store.kv_get(key) or "{}")


def test_session_start_shows_the_projects_session_notes_not_another_projects(daemon: Daemon, client: RemoteMnemo,
                                                                             project: Path) -> None:
    own = client.save("Session summary: harbor moved its retry queue to PostgreSQL and kept the workers as they are.",
                      type="session_note", wing=str(project)).memory
    # saved after, so it is the newest session note of the store
    other = client.save("Session summary: ledger switched its audit export to nightly parquet files on object storage.",
                        type="session_note", wing="/home/dev/src/ledger").memory
    shared = client.save("Session summary: the team agreed on ruff and mypy for every Python repository.",
                         type="session_note").memory
    block = client.call("project_context", {"project": str(project), "session_id": "s-notes"})["context"]
    assert "## Recent session notes" in block
    notes = block.split("## Recent session notes", 1)[1].split("\n## ", 1)[0]
    assert own.id[:8] in notes and other.id[:8] not in notes and shared.id[:8] not in notes
    assert other.id[:8] not in block  # nor anywhere else in the project's block
    # pinned memories likewise: the project's and the shared ones, not another project's
    rules = [client.save(text, type="preference", wing=wing, pinned=True).memory for text, wing in (
        ("Always run the harbor migrations inside one transaction.", str(project)),
        ("Never publish ledger audit files without the compliance review.", "/home/dev/src/ledger"),
        ("Every repository keeps its changelog in CHANGELOG.md.", None))]
    block = client.call("project_context", {"project": str(project), "session_id": "s-notes"})["context"]
    pinned = block.split("## Pinned", 1)[1].split("\n## ", 1)[0]
    assert rules[0].id[:8] in pinned and rules[2].id[:8] in pinned and rules[1].id[:8] not in block
    # `context` without a wing still shows every recent session note
    everything = client.call("context", {"query": "session summary", "budget": 1500, "touch": False})["context"]
    assert all(m.id[:8] in everything for m in (own, other, shared))


def test_capture_observes_the_memories_the_session_used(daemon: Daemon, client: RemoteMnemo, project: Path,
                                                        tmp_path: Path) -> None:
    settings = _settings(daemon.home)
    used = client.save("Harbor retries use exponential backoff capped at ten minutes.", type="decision", wing=str(project)).memory
    unused = client.save("Harbor logs are shipped to Loki with a seven day retention.", type="fact", wing=str(project)).memory
    start = run_hook("session-start", _payload("SessionStart", project, source="startup"), settings)
    assert used.id[:8] in start.stdout and unused.id[:8] in start.stdout
    transcript = tmp_path / "t.jsonl"
    line = {"type": "assistant", "sessionId": SESSION, "cwd": str(project), "isSidechain": False,
            "timestamp": "2026-03-02T09:10:00.000Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text":
                        f"As decided earlier ({used.id[:8]}), the retry policy keeps the exponential backoff with its ten minute cap."}]}}
    transcript.write_text(json.dumps(line) + "\n")
    out = run_hook("session-end", _payload("SessionEnd", project, transcript, reason="other"), settings)
    assert daemon.background.wait(out.detail["job"], timeout=120)
    assert daemon.background.get(out.detail["job"])["result"]["observed"] == [used.id]
    assert client.get(used.id).use_count == 1 and client.get(unused.id).use_count == 0


def test_used_ids_rule() -> None:
    class M:
        def __init__(self, id: str, content: str) -> None:  # noqa: A002
            self.id, self.content = id, content

    a = M("aaaaaaaa-0000-4000-8000-000000000000", "The staging database moved to the Frankfurt region in March.")
    b = M("bbbbbbbb-0000-4000-8000-000000000000", "Deploys need two approvals from the platform team.")
    c = M("cccccccc-0000-4000-8000-000000000000", "Use the database.")
    said = "Since the staging database moved to the Frankfurt region, latency from the office went up."
    assert used_ids([a, b, c], said) == [a.id]  # c shares a topic word, not its content
    assert used_ids([b], "see bbbbbbbb") == [b.id]
    assert used_ids([b], "", tool_text='{"memory_id": "bbbbbbbb-0000-4000-8000-000000000000"}') == [b.id]


# -- a hook never breaks the client -------------------------------------------------------------
def test_broken_payload_missing_transcript_and_stopped_daemon_exit_0_with_a_log_line(home: Path, project: Path,
                                                                                    tmp_path: Path) -> None:
    settings = _settings(home)
    for raw in (b"{not json", b"[1, 2]", b"", json.dumps({"session_id": 7, "cwd": "/x"}).encode()):
        out = run_hook("session-start", raw, settings)
        assert (out.code, out.stdout, out.stderr) == (0, "", "")
    log = _log(home)
    assert log.count("session-start session=None failed") == 4 and "not JSON" in log and "must be a string" in log

    missing = run_hook("session-end", _payload("SessionEnd", project, tmp_path / "gone.jsonl"), settings)
    assert (missing.code, missing.stdout) == (0, "")
    assert f"session-end session={SESSION} failed: the transcript {tmp_path / 'gone.jsonl'} does not exist" in _log(home)

    # A daemon that stopped: its endpoint is gone (or stale); the hooks answer at once, exit 0.
    d = Daemon(_settings(home), clock=Clock(T0, running=True))
    d.open()
    d.start_threads()
    d.request_stop("test")
    d.shutdown()
    transcript = tmp_path / "t.jsonl"
    shutil.copy(FIXTURES / "session.jsonl", transcript)
    for event, name in (("session-start", "SessionStart"), ("session-end", "SessionEnd")):
        out = run_hook(event, _payload(name, project, transcript), settings)
        assert (out.code, out.stdout) == (0, "") and out.detail["daemon"] == "none"
    lines = [ln for ln in _log(home).splitlines() if '"daemon": "none"' in ln]
    assert len(lines) == 2 and '"captured": false' in lines[1]


def test_the_hook_process_exits_0_quietly_and_strict_fails_loudly(home: Path, project: Path) -> None:
    env = {"MNEMO_HOOKS_START_DAEMON": "0", "MNEMO_HOOKS_CAPTURE_FALLBACK": "0"}
    r = run_cli("hook", "session-start", home=home, env=env, input="{broken", timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    r = run_cli("hook", "session-end", home=home, env=env, input=_payload("SessionEnd", project).decode(), timeout=60)
    assert (r.returncode, r.stdout) == (0, "")
    r = run_cli("hook", "session-start", "--strict", home=home, env=env, input="{broken", timeout=60)
    assert r.returncode == 1 and r.stdout == "" and "not JSON" in r.stderr
    assert _log(home).count("failed") == 3


def test_with_no_daemon_a_capture_is_handed_to_a_background_ingest(home: Path, project: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNEMO_EMBEDDING_MODEL", "hash-64")
    settings = load_settings(home=home, overrides={"hooks.start_daemon": False})
    transcript = tmp_path / "t.jsonl"
    shutil.copy(FIXTURES / "session.jsonl", transcript)
    out = run_hook("session-end", _payload("SessionEnd", project, transcript), settings)
    assert (out.code, out.stdout) == (0, "")
    proc = out.detail["_proc"]
    assert proc.wait(timeout=180) == 0
    result = json.loads([ln for ln in _log(home).splitlines() if ln.startswith("{")][-1])
    assert result["new_turns"] == 4 and result["wing"] == str(project) and result["kept"] >= 2


LIGHT_CHECK = """
import runpy, sys
sys.argv = ["mnemo", *sys.argv[1:]]
try:
    runpy.run_module("mnemo", run_name="__main__")
except SystemExit as exc:
    code = exc.code
heavy = [m for m in ("numpy", "chromadb", "onnxruntime", "spacy", "torch", "sentence_transformers", "tiktoken",
                     "mnemo.engine", "mnemo.store", "click") if m in sys.modules]
sys.stderr.write(f"exit={code} heavy={heavy}")
"""


def test_the_session_start_process_is_a_light_client_of_the_daemon(daemon: Daemon, client: RemoteMnemo,
                                                                   project: Path) -> None:
    import os
    import subprocess
    import sys

    m = client.save("We decided that harbor keeps its job queue in PostgreSQL.", type="decision", wing=str(project)).memory
    env = {**os.environ, "MNEMO_HOME": str(daemon.home), "MNEMO_EMBEDDING_MODEL": "hash-64"}
    r = subprocess.run([sys.executable, "-c", LIGHT_CHECK, "--home", str(daemon.home), "hook", "session-start"],
                       input=_payload("SessionStart", project).decode(), capture_output=True, text=True, env=env, timeout=60)
    assert r.stderr == "exit=0 heavy=[]"  # no model stack, no store, not even the click command line
    assert m.id[:8] in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    # any other shape (here --vault) goes through the full command line, with the same result
    r = run_cli("--vault", str(project / "vault"), "hook", "session-start", home=daemon.home,
                env={"MNEMO_EMBEDDING_MODEL": "hash-64"}, input=_payload("SessionStart", project).decode(), timeout=60)
    assert r.returncode == 0 and m.id[:8] in r.stdout


def test_a_file_that_is_not_a_claude_code_transcript_is_refused(daemon: Daemon, client: RemoteMnemo, tmp_path: Path) -> None:
    from mnemo.errors import InvalidInput

    chat = tmp_path / "chat.jsonl"
    chat.write_text('{"role": "user", "content": "We use Postgres."}\n{"role": "assistant", "content": "Noted."}\n')
    with pytest.raises(InvalidInput, match="no claude-code conversation lines"):
        client.capture(str(chat))
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n[1]\n")
    with pytest.raises(InvalidInput, match="not a Claude Code transcript"):
        client.capture(str(junk))
    # a bad line inside a transcript is counted and passed over
    t = tmp_path / "t.jsonl"
    t.write_bytes((FIXTURES / "session.jsonl").read_bytes() + b"{cut short by a crash\n")
    r = client.capture(str(t), wing="/tmp/harbor")
    assert r["bad_lines"] == 1 and r["new_turns"] == 4 and r["to_offset"] == t.stat().st_size
    assert client.stats().memories == r["kept"]


def test_ingest_from_claude_code_on_the_command_line(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from mnemo.sources import names, reader

    from .conftest import invoke_main

    assert "claude-code" in names()  # registered beside the chat exports
    (conv,) = reader("claude-code")(FIXTURES / "session.jsonl", None)
    assert conv.id == SESSION and conv.title == "Queue backend choice for harbor" and len(conv.messages) == 4

    monkeypatch.setenv("MNEMO_EMBEDDING_MODEL", "hash-64")
    t = tmp_path / "s.jsonl"
    shutil.copy(FIXTURES / "session.jsonl", t)
    code, out, _ = invoke_main(capsys, "ingest", "--from", "claude-code", str(t), "--wing", "harbor", "--json")
    first = json.loads(out)
    assert code == 0 and first["new_turns"] == 4 and first["wing"] == "harbor" and first["kept"] >= 2
    code, out, _ = invoke_main(capsys, "ingest", "--from", "claude-code", str(t))
    assert code == 0 and out.startswith("nothing new in")
    code, out, _ = invoke_main(capsys, "list", "--wing", "harbor", "--json")
    assert len(json.loads(out)["memories"]) == first["kept"]


def _hook_view(s: object) -> dict[str, object]:
    hooks = s.hooks  # type: ignore[attr-defined]
    return {"home": s.home, "vault": s.vault, "now": s.now,  # type: ignore[attr-defined]
            **{k: getattr(hooks, k) for k in ("budget", "project_share", "start_daemon", "capture_fallback",
                                              "connect_timeout")}}


def test_the_hooks_light_settings_read_agrees_with_load_settings(tmp_path: Path) -> None:
    from dataclasses import asdict

    from mnemo.config import HooksSettings
    from mnemo.hooks.settings import DEFAULTS, HookSettings, load_hook_settings

    assert asdict(HooksSettings()) == DEFAULTS
    home = tmp_path / "home"
    home.mkdir()
    cases = [
        ("", {}),
        ("", {"MNEMO_HOOKS_BUDGET": "900", "MNEMO_HOOKS_START_DAEMON": "off", "MNEMO_VAULT": str(tmp_path / "v"),
              "MNEMO_NOW": "2026-03-01T10:00:00"}),
        ('vault = "~/notes"\n[hooks]\nbudget = 700\nproject_share = 0.5\ncapture_fallback = "no"\n',
         {"MNEMO_HOOKS_CONNECT_TIMEOUT": "1.5"}),
        ('[vault]\npath = "/srv/vault"\n[hooks]\nstart_daemon = 1\n[recall]\nk = 5\n', {"MNEMO_HOOKS_BUDGET": "1200"}),
    ]
    for toml, env in cases:
        (home / "config.toml").write_text(toml)
        light = load_hook_settings(home=str(home), env=env)
        assert isinstance(light, HookSettings)
        assert _hook_view(light) == _hook_view(load_settings(home=str(home), env=env)), (toml, env)
    # what the light read does not take plainly is the full reader's to decide, errors included
    (home / "config.toml").write_text("[hooks]\nbudget = 2.5\n")
    assert _hook_view(load_hook_settings(home=str(home), env={})) == _hook_view(load_settings(home=str(home), env={}))
    from mnemo.errors import ConfigError

    for toml, env in [("[hooks]\nbudgt = 1\n", {}), ("[hooks\n", {}), ("", {"MNEMO_HOOKS_PROJECT_SHARE": "nan"}),
                      ("", {"MNEMO_HOOKS_START_DAEMON": "maybe"})]:
        (home / "config.toml").write_text(toml)
        with pytest.raises(ConfigError):
            load_hook_settings(home=str(home), env=env)


def test_a_hook_logs_its_line_in_the_loggers_format_and_keeps_the_log_private(home: Path, project: Path) -> None:
    import re

    settings = load_settings(home=home, overrides={"hooks.start_daemon": False})
    run_hook("session-start", _payload("SessionStart", project), settings)
    log = home / LOG_NAME
    assert log.stat().st_mode & 0o777 == 0o600
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} INFO session-start session=\S+ \{.*\"daemon\": \"none\".*\}\n",
                        log.read_text())
    log.chmod(0o644)
    run_hook("session-start", _payload("SessionStart", project), settings)
    assert log.stat().st_mode & 0o777 == 0o600 and log.read_text().count(" INFO ") == 2
