"""Capture from an assistant's own session files, and the context a session starts with.

``capture`` reads the part of a client's transcript not read before (a byte offset per file,
kept in the store's ``kv`` table under ``capture.offset:<source>:<path>``), hands its turns to
``ingest`` (so they become typed, fingerprinted, linked short-term memories like any other
conversation, ``source = ingest``, never promoted by being captured) in the session's project
(``wing``), advances the offset only once the ingest succeeded, and observes the memories the
session used. A second call reads only lines appended since; a call with nothing new is cheap.
With the offset it keeps a hash of the file's first bytes (up to 4 KiB, all already read): a
file rewritten or rotated under the same path no longer matches it and is read from the start.

``project_context`` is the block a session starts with: ``context`` (pinned memories, recent
session notes, what is relevant) restricted to the project's wing, then, with what is left of
the budget, shared knowledge: memories without a wing and the vault's notes (other projects'
memories are left out). It reinforces nothing: being shown is not being used. The ids it showed
are remembered for the session, and ``capture`` observes those the session then used.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import InvalidInput

if TYPE_CHECKING:
    from .core import Core

OFFSET_KEY = "capture.offset:{source}:{path}"
SHOWN_KEY = "capture.shown:{session}"
SHARED_TITLE = "## Shared memories and notes"
SHARED_DEPTH = 30
# The start of a transcript that identifies it: Claude Code's first line (a summary or the first
# message, with its uuid and timestamp) is unique to the session and well under this size.
HEAD_BYTES = 4096
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_WORD = re.compile(r"[a-z0-9][a-z0-9_.\-]{3,}")


# Formats read incrementally: name -> module of ``sources`` with ``read(path, offset) -> Transcript``.
INCREMENTAL = {"claude-code": "claude_code"}


def project_of(directory: str | Path) -> str:
    """A session's project: the git root above ``directory`` (a ``.git`` folder, or the ``.git``
    file of a worktree or submodule), else the directory itself; an absolute path."""
    start = Path(directory).expanduser()
    try:
        start = start.resolve()
    except OSError:
        start = start.absolute()
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return str(d)
    return str(start)


def capture(
    core: Core,
    path: str,
    source: str = "claude-code",
    wing: str | None = None,
    session_id: str | None = None,
    dry_run: bool = False,
    final: bool = False,
) -> dict[str, Any]:
    import importlib

    if source not in INCREMENTAL:
        raise InvalidInput(f"no incremental reader for {source!r}", hint=f"choose one of: {', '.join(INCREMENTAL)}")
    read = importlib.import_module(f".sources.{INCREMENTAL[source]}", __package__).read
    if not isinstance(path, str) or not path.strip():
        raise InvalidInput("give the path of a transcript file")
    abspath = str(Path(path).expanduser().resolve())
    key = OFFSET_KEY.format(source=source, path=abspath)
    state = _load(core.store.kv_get(key))
    offset = int(state.get("offset", 0))
    if offset and "head" in state and state["head"] != _head(abspath, int(state.get("head_len", 0))):
        # Another file now has this path (the client rewrote or rotated it): the offset counts
        # bytes of the old file, and reading from it would skip the new file's first lines or
        # start in the middle of one. Its lines are read from the start (duplicates are not stored twice).
        offset = 0
    t = read(abspath, offset)
    if t.start == 0 and state.get("offset"):
        state = {}  # the file was replaced or truncated: its lines are read again (duplicates are not stored twice)
    sid = session_id or t.session_id or state.get("session_id")
    project = wing or state.get("wing") or (project_of(t.cwd) if t.cwd else None)
    out: dict[str, Any] = {**t.report(), "source": source, "session_id": sid, "wing": project, "dry_run": bool(dry_run),
                           "new_turns": len(t.turns), "kept": 0, "duplicates": 0, "observed": []}
    if t.start == 0 and t.lines and not t.turns and not t.title and not t.session_id:  # nothing of a session file
        raise InvalidInput(f"{abspath} has no {source} conversation lines",
                           hint="a Claude Code transcript has lines of type user, assistant and summary")
    if t.turns:
        text = json.dumps(t.turns, ensure_ascii=False)
        from .ingest import ingest

        result = ingest(core, text, wing=project, session_id=sid, dry_run=dry_run, format="json")
        out.update(kept=result["kept"], duplicates=result["duplicates"], dropped=result["dropped"],
                   by_type=result["by_type"], memories=[m["id"] for m in result["memories"] if m["created"]])
    if dry_run:
        return out
    head_len = min(t.end, HEAD_BYTES)
    core.store.kv_set(key, json.dumps({"offset": t.end, "head_len": head_len, "head": _head(abspath, head_len),
                                       "session_id": sid, "wing": project, "at": core.now()}))
    if sid:
        out["observed"] = _observe_used(core, sid, t, final)
    return out


def _head(path: str, length: int) -> str | None:
    """A hash of the first ``length`` bytes of ``path`` (bytes already read, so they do not
    change while the client appends), or None when the file is shorter or unreadable."""
    import hashlib

    try:
        with open(path, "rb") as fh:
            data = fh.read(length)
    except OSError:
        return None
    return hashlib.sha256(data).hexdigest() if len(data) == length else None


def _load(raw: str | None) -> dict[str, Any]:
    try:
        data = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _observe_used(core: Core, session_id: str, t: Any, final: bool) -> list[str]:
    """Reinforce (``observe``) the recalled memories this part of the session used: those shown
    at its start and those a tool call returned (mnemo's MCP tools name full ids)."""
    from .lifecycle.reinforce import reinforce

    key = SHOWN_KEY.format(session=session_id)
    shown = _load(core.store.kv_get(key)).get("ids", [])
    recalled = list(dict.fromkeys([*shown, *(i for txt in t.tool_text for i in _UUID.findall(txt))]))
    found = core.store.get_memories(recalled) if recalled else {}
    used = used_ids([m for m in found.values()], t.assistant_text(), "\n".join(t.tool_text))
    if used:
        reinforce(core, used, kind="observe", session_id=session_id)
    if final:
        core.store.kv_delete(key)
    return used


def used_ids(recalled: list[Any], assistant_text: str, tool_text: str = "") -> list[str]:
    """Which recalled memories a session used. A rule, not a learned judgement (there is no
    labelled set of sessions to tune one on), and a strict one, because a use reinforces and
    uses are what promotion counts: a memory counts as used when the assistant's text or a tool
    call names its id (the context block shows 8 characters of it), or when the assistant's text
    contains at least 60 % of the memory's distinct words of four letters or more, and at least
    four of them (a restatement of the memory, not a shared topic word)."""
    text = assistant_text.lower()
    words = set(_WORD.findall(text))
    cited = set(re.findall(r"\b[0-9a-f]{8}\b", text + "\n" + tool_text.lower()))
    out = []
    for m in recalled:
        if m.id[:8] in cited:
            out.append(m.id)
            continue
        own = set(_WORD.findall(m.content.lower()))
        if len(own) >= 4 and len(own & words) >= max(4, 0.6 * len(own)):
            out.append(m.id)
    return out


def project_context(
    core: Core,
    project: str,
    query: str | None = None,
    budget: int | None = None,
    session_id: str | None = None,
) -> dict[str, Any]:
    from .nlp.tokens import count_tokens
    from .recall.budget import CBAParams, allocate
    from .recall.pipeline import search
    from .recall.render import items_for

    if not isinstance(project, str) or not project.strip():
        raise InvalidInput("give the project (its wing)")
    hs = core.settings.hooks
    budget = budget or hs.budget
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 50:
        raise InvalidInput("budget must be a whole number of tokens, at least 50")
    name = Path(project).name or project
    q = (query or "").strip() or name
    head = f"# mnemo: what earlier sessions left for {name}"
    left = budget - count_tokens(head) - 1
    from .recall.context import compose

    own = compose(core, q, budget=max(1, int(left * hs.project_share)), touch=False, session_id=session_id, wing=project)
    ids: list[str] = list(own["ids"])
    blocks = [own["context"]] if own["context"] else []
    left -= own["used"] + (1 if blocks else 0)
    shared_ids: list[str] = []
    header = count_tokens(SHARED_TITLE) + 1
    if left > header + 10:
        s = core.settings.recall
        # Deep enough that the project's own memories (which the project's name matches best) do
        # not take every place: the shared ones are what is left after them.
        found = search(core, q, k=SHARED_DEPTH, heal=False)
        seen = set(ids)
        # Shared knowledge: the vault's notes and memories of no project; other projects' memories stay out.
        picks = [c for c in found.hits if (c.memory is None or not c.memory.wing) and (c.memory_id or c.id) not in seen]
        if picks:
            params = CBAParams(causal_alpha=s.causal_alpha, session_window=s.session_window, session_boost=s.session_boost)
            alloc = allocate(items_for(core, picks, found.vectors), left - header, params)
            if alloc.chosen:
                blocks.append("\n".join([SHARED_TITLE, *(c.text for c in alloc.chosen)]))
                shared_ids = [mid for c in alloc.chosen if (mid := getattr(c.item.payload, "memory_id", None))]
    text = "\n".join([head, *blocks]) if blocks else ""
    while text and count_tokens(text) > budget and blocks:  # tokenisation across joins: never over the budget
        lines = text.splitlines()
        text = "\n".join(lines[:-1]) if len(lines) > 2 else ""
    ids = list(dict.fromkeys([*ids, *shared_ids]))
    if session_id and ids:
        key = SHOWN_KEY.format(session=session_id)
        before = _load(core.store.kv_get(key)).get("ids", [])
        core.store.kv_set(key, json.dumps({"ids": list(dict.fromkeys([*before, *ids]))[:500], "at": core.now()}))
    return {"project": project, "query": q, "budget": budget, "used": count_tokens(text) if text else 0,
            "context": text, "ids": ids, "project_ids": own["ids"], "shared_ids": shared_ids}
