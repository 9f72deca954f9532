"""What mnemo knows about one note: the memories and other notes related to it.

The Obsidian plugin's side pane asks this for the note in front of the person. The query is the
note's title, its headings and its first lines (or the person's selection, when there is one);
the answer is an ordinary recall that never lists the note itself: not its chunks, and not the
memory whose note it is. Recall does not reinforce here: a pane refreshing on every file-open is
not a use of what it shows.

The vector side needs no embedding when the index holds the note as the request gives it (the
editor's text, or the file, hashes to the indexed bytes): it searches with the stored vector of
the note's first chunk. Embedding the query was half the request's time (at 10k memories and 5k
notes, in-process CPU p50 46 ms embedded, 31 ms stored). Unsaved edits, a selection and a note
not indexed yet are embedded as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InvalidInput
from ..models import Hit
from .names import resolve_in_vault
from .parse import parse_note, strip_comments
from .read import MAX_READ_BYTES, resolve_note
from .search import COLLECTION
from .writer import bytes_hash

if TYPE_CHECKING:
    from ..core import Core

# The query is kept short: title, headings and the opening of the body say what a note is about,
# and its length is what the request costs (one BM25 term per word, and the query embedding when
# the note's stored vector cannot be used). Chosen for speed, not tuned for quality: at 10k
# memories and 5k notes on 2 loaded cores (load 6-9), with the query embedded, in-process p50/p95
# was 218/328 ms at 60 words, 103/186 ms at 32, 72/120 ms at 20.
QUERY_WORDS = 24
MAX_K = 50
_WIKILINK = re.compile(r"!?\[\[([^\]|#]*)[^\]|]*(?:\|([^\]]*))?\]\]")
_MARKS = re.compile(r"[#*_`>~=\[\]]+|https?://\S+")


@dataclass(frozen=True)
class NoteQuery:
    path: str | None
    mnemo_id: str | None
    query: str
    vector: np.ndarray | None = None  # the note's stored vector, when the index holds the note as it is


def stored_vector(core: Core, rel: str, data: bytes) -> np.ndarray | None:
    """The vector of the note's first chunk (its title, first heading and opening text, the part
    the query words come from), when the index holds this note with exactly these bytes and with
    vectors of the current model: then the pane's request embeds nothing. None when the note is
    not indexed, was edited since, or its vector is missing."""
    row = core.store.note_at(rel)
    if row is None or row.content_hash != bytes_hash(data):
        return None
    if core.store.kv_get("vault.model_hash") != core.embedder.model_hash:
        return None  # another model's vectors, until the vault is indexed again
    ids = core.store.note_chunk_ids(row.uid)
    if not ids:
        return None
    # The first chunk rather than the mean of all: on the bench vault (scripts/eval_related.py,
    # notes chosen on one half of a 200-note sample) its hits overlap the embedded query's by
    # 0.56 at 10 against 0.43 for the mean; the other half is reported in the README.
    first = min(ids, key=lambda i: int(i.rsplit(":", 1)[1]))
    return core.index.get_vectors(COLLECTION, [first]).get(first)


def _plain(text: str) -> str:
    """Markdown to words: a wikilink becomes its shown text; marks and links go."""
    text = _WIKILINK.sub(lambda m: m.group(2) or m.group(1), strip_comments(text))
    return _MARKS.sub(" ", text)


def _cap(text: str, words: int = QUERY_WORDS) -> str:
    return " ".join(text.split()[:words])


def note_query(core: Core, path: str | None = None, text: str | None = None, content: str | None = None) -> NoteQuery:
    """The query for a note: the selection ``text`` when given; else the title, headings and
    first lines of ``content`` (the note as the editor holds it) or of the note on disk."""
    rel: str | None = None
    data: bytes | None = None  # the note's bytes, as the editor or the disk holds them
    if content is not None and not isinstance(content, str):
        raise InvalidInput("content must be the note's text")
    if path:
        from .indexer import require_vault

        vault = require_vault(core)
        rel = resolve_note(core, path)
        abs_path, rel = resolve_in_vault(vault, rel)
        if content is None and text is None:
            data = abs_path.read_bytes()
            if len(data) > MAX_READ_BYTES:
                raise InvalidInput(f"{rel} is {len(data)} bytes; too large to read as a note")
            content = data.decode("utf-8", errors="replace")
        elif content is not None and text is None:
            data = content.encode("utf-8")
    note = parse_note(rel or "Untitled.md", content or "")
    if text is not None:
        if not isinstance(text, str) or not text.strip():
            raise InvalidInput("the selection is empty", hint="select some text, or leave text out to use the note")
        return NoteQuery(rel, note.mnemo_id, _cap(_plain(text)))
    if rel is None and content is None:
        raise InvalidInput("say which note", hint="give path (vault-relative), or text (a selection)")
    heads = " ".join(h.text for h in note.headings)
    query = _cap(" ".join(p for p in (note.title, _plain(heads), _plain(note.body)) if p))
    if not query:
        raise InvalidInput(f"{rel or 'the note'} has no words to search for")
    vector = stored_vector(core, rel, data) if rel is not None and data is not None else None
    return NoteQuery(rel, note.mnemo_id, query, vector)


def is_own(hit: Hit, nq: NoteQuery) -> bool:
    """The note itself, one of its chunks, or the memory whose note it is."""
    if nq.path is not None and hit.path == nq.path:
        return True
    if nq.mnemo_id is None:
        return False
    return hit.id == nq.mnemo_id or (hit.meta or {}).get("mnemo_id") == nq.mnemo_id


def related(core: Core, path: str | None = None, text: str | None = None, content: str | None = None,
            k: int = 10, tier: str = "all", **filters: Any) -> dict[str, Any]:
    """``{"path", "query", "hits"}``: up to ``k`` memories and notes related to the note at
    ``path`` (vault-relative), never the note itself or its memory."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise InvalidInput(f"k must be a whole number from 1 to {MAX_K}")
    nq = note_query(core, path, text, content)
    # Recall returns at most max_chunks_per_note chunks of one note (and the note's memory is
    # folded into it): asking for that many more leaves k once the note's own are dropped.
    extra = core.settings.recall.max_chunks_per_note + 1 if (nq.path or nq.mnemo_id) else 0
    from ..recall.pipeline import recall

    hits = recall(core, nq.query, k=k + extra, touch=False, tier=tier, query_vector=nq.vector, **filters)
    return {"path": nq.path, "query": nq.query, "hits": [h for h in hits if not is_own(h, nq)][:k]}
