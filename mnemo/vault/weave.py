"""Woven links: a promoted note also links to the person's own notes about the same thing.

Entity links and links between promoted notes connect mnemo's notes to each other; this connects
them to what the person wrote. The candidates are the vault's note chunks nearest to the memory
by cosine (the ``chunks`` collection recall already keeps); a note counts by its best chunk. Only
the person's notes are candidates (no ``mnemo_id``: not promoted notes, entity notes or the
dashboard, and nothing in the archive), and only the few best above a calibrated similarity:
a wrong link in someone's vault is worse than a missing one.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..models import Memory
from .entities import link_for
from .search import has_chunks, vector_chunks

if TYPE_CHECKING:
    from ..core import Core

# Chosen by scripts/eval_weave.py on the train topics of its labelled set (memories and notes
# written for it, near-misses that share only a common word, same-domain notes on other
# subjects): the lowest cosine whose train precision reaches PRECISION_TARGET. Below it the
# train set links wrong notes (0.40: precision 0.88). Held out (test topics): precision 1.0,
# recall 1.0 (9 of 9 links); in-sample 1.0 / 1.0 (15 of 15). The test set is small: 9 of 9
# still leaves a 95 % lower bound near 0.70 (Wilson).
THRESHOLD = 0.41
PRECISION_TARGET = 0.9
# A cosine threshold belongs to the model it was calibrated on: another model's similarities
# live on another scale (the hash embedders of the unit tests are not semantic at all), so with
# a model not listed here nothing is woven rather than something wrong.
CALIBRATED = {"all-MiniLM-L6-v2": THRESHOLD}
MAX_WOVEN = 3
CANDIDATE_CHUNKS = 40


@dataclass(frozen=True)
class Neighbour:
    path: str
    title: str
    similarity: float


def candidates(core: Core, m: Memory, exclude: Collection[str] = (), n: int = CANDIDATE_CHUNKS) -> list[Neighbour]:
    """Every person's note among the ``n`` chunks nearest to the memory, best first, each with
    the cosine of its best chunk (no threshold: the evaluation script calibrates on these)."""
    if not has_chunks(core):
        return []  # a vault with no notes indexed: nothing to embed the memory for
    vec = core.embedder.embed_query(m.content)
    best: dict[str, float] = {}
    for cid, sim in vector_chunks(core, vec, n):
        best[cid] = max(sim, best.get(cid, -1.0))
    if not best:
        return []
    archive = core.settings.vault_cfg.archive_folder.strip("/") + "/"
    notes: dict[str, Neighbour] = {}
    for cid, path, title in core.store.person_note_chunks(list(best)):
        if path in exclude or path.startswith(archive) or (m.note_path and path == m.note_path):
            continue
        sim = best[cid]
        if path not in notes or sim > notes[path].similarity:
            notes[path] = Neighbour(path, title, float(sim))
    return sorted(notes.values(), key=lambda nb: (-nb.similarity, nb.path))


def threshold_for(core: Core) -> float | None:
    """The calibrated threshold of the core's embedding model (None: not calibrated)."""
    return CALIBRATED.get(core.settings.embedding.model)


def neighbours(core: Core, m: Memory, exclude: Collection[str] = (), threshold: float | None = None,
               limit: int = MAX_WOVEN) -> list[Neighbour]:
    """The best few of the person's notes about the memory's subject (cosine >= ``threshold``,
    by default the model's calibrated one; none when the model is not calibrated)."""
    t = threshold if threshold is not None else threshold_for(core)
    if t is None:
        return []
    return [nb for nb in candidates(core, m, exclude) if nb.similarity >= t][:limit]


def woven_links(core: Core, m: Memory, exclude: Collection[str] = ()) -> list[str]:
    """Wikilinks to those notes, each resolving to an existing note."""
    vault = core.settings.vault
    out: list[str] = []
    for nb in neighbours(core, m, exclude):
        if vault is not None and (vault / nb.path).is_file():  # the index may lag behind a deletion
            out.append(link_for(core, nb.path, nb.title))
    return out
