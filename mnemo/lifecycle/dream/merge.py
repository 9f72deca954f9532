"""Step ``merge``: each cluster of near-duplicates becomes one consolidated memory (MIRA's
consolidation, deterministic by default).

- What merges: clusters with cohesion ≥ ``dream.merge_cohesion`` (step ``cluster``), and
  review-band clusters a person accepted (``mnemo dream review accept ID``). Two members the
  graph rules call mutually exclusive (``graph.rules.exclusive``: "likes X" / "does not like
  X") are never merged automatically: such a cluster waits for review instead. With a model
  judge configured, it must also call every member the same as the base (``judge.same``).
- The consolidated memory keeps the text of the base member (most used, then most important,
  then newest) and appends the sentences only the others have; tags, entities, uses and links
  are the union; importance and strength the maximum; it is created with a deterministic id
  (from the cluster id), so a resumed run finds what an interrupted one began.
- The originals are archived (never deleted), with a ``consolidated_into`` link and
  ``meta.consolidated_into``: ``mnemo restore ID`` brings one back. Their links are copied to
  the new memory and kept, so a restored original is whole again.
- If a member was promoted, the new memory is promoted too, and each member's note is copied
  into the history folder, marked ``mnemo_status: consolidated`` with a link to the new note and
  moved to ``Archive/``. A note a person edited since the plan stops the merge of its cluster:
  their version stays, and the next run plans again from it.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...errors import ConflictError, MnemoError, VaultError
from ...models import MAX_CONTENT_BYTES, Fingerprint, Layer, Link, Memory, Status
from ...store.sqlite import content_hash
from .cluster import Cluster, find_clusters, known
from .journal import Op, checkpoint
from .workspace import set_fields

if TYPE_CHECKING:
    from pathlib import Path

    from ...core import Core
    from .workspace import ApplyContext, PlanContext

NAME = "merge"
NAMESPACE = uuid.UUID("6d6e656d-6f2d-4472-6561-6d2d6d657267")  # fixed: merge and split ids are derived from it
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORDS = re.compile(r"\w+")
COVERED = 0.6  # a sentence whose words overlap a kept sentence this much (Jaccard) adds nothing
_LAYER_RANK = {Layer.WORKING: 0, Layer.EPISODIC: 1, Layer.SEMANTIC: 2, Layer.PROCEDURAL: 2}


def merged_id(cluster_id: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"merge:{cluster_id}"))


def rank(m: Memory) -> tuple[int, float, float, str]:
    """The base of a merge comes first: most used, most important, newest."""
    return (-m.use_count, -m.importance, -m.created_at, m.id)


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORDS.findall(text)}


def consolidate(texts: list[str]) -> str:
    """The base text (first) plus, in order, every sentence of the others that no kept sentence
    already covers (word Jaccard < 0.6 with each, and not contained in one). Deterministic."""
    base = texts[0].strip()
    kept = [_words(s) for s in _SENTENCE.split(base) if s.strip()]
    extra: list[str] = []
    for text in texts[1:]:
        for sentence in (s.strip() for s in _SENTENCE.split(text)):
            w = _words(sentence)
            if not w:
                continue
            if any(w <= k or len(w & k) / len(w | k) >= COVERED for k in kept):
                continue
            kept.append(w)
            extra.append(sentence)
    out = base if not extra else base + "\n\n" + " ".join(extra)
    while len(out.encode("utf-8")) > MAX_CONTENT_BYTES and extra:
        extra.pop()
        out = base if not extra else base + "\n\n" + " ".join(extra)
    return out


def mergeable(core: Core, members: list[Memory]) -> str | None:
    """Why these members must not merge without a person, or None."""
    from ...graph.rules import exclusive
    from ...judge import make_judge

    base = members[0]
    for other in members[1:]:
        if exclusive(base, other) or exclusive(other, base):
            return f"{base.id[:8]} and {other.id[:8]} contradict each other"
    judge = make_judge(core.settings)
    if judge.name != "rules":
        for other in members[1:]:
            if not judge.same(base, other):
                return f"the judge says {other.id[:8]} is not the same as {base.id[:8]}"
    return None


def _archive_path(ctx: PlanContext, vault: Path, m: Memory, note_path: str, taken: set[str]) -> str:
    from ...vault.names import join_rel, note_filename, title_of

    folder = ctx.core.settings.vault_cfg.archive_folder
    rel = join_rel(folder, note_path.rsplit("/", 1)[-1])
    if rel in taken or (vault / rel).exists():
        rel = join_rel(folder, note_filename(f"{title_of(note_path)} ({m.id[:8]})"))
    taken.add(rel)
    return rel


def _op(ctx: PlanContext, cid: str, members: list[Memory], cohesion: float, accepted: bool) -> Op:
    from ...vault.render import note_content
    from ...vault.writer import current_hash

    members = sorted(members, key=rank)
    new_id = merged_id(cid)
    notes: dict[str, dict[str, Any]] = {}
    taken: set[str] = set()
    texts: dict[str, str] = {m.id: m.content for m in members}
    for m in members:
        if m.status == Status.PROMOTED and m.note_path and ctx.vault is not None:
            h = current_hash(ctx.vault / m.note_path)
            if h is not None:
                notes[m.id] = {"path": m.note_path, "hash": h, "archive_to": _archive_path(ctx, ctx.vault, m, m.note_path, taken)}
                # The note is the truth of a promoted memory: an edit not yet synced back counts.
                body = note_content((ctx.vault / m.note_path).read_text(encoding="utf-8", errors="replace"))
                texts[m.id] = body or m.content
    content = consolidate([texts[m.id] for m in members])
    ids = [m.id for m in members]
    ctx.claimed |= set(ids)
    why = "accepted by a person" if accepted else f"cohesion {cohesion:.3f}"
    return Op(NAME, "merge", cid, f"merge {len(ids)} memories ({why}) into {new_id[:8]}: {_short(content)}",
              {"cluster_id": cid, "members": ids, "cohesion": cohesion, "new_id": new_id, "content": content,
               "hashes": {m.id: content_hash(m.content) for m in members}, "notes": notes, "accepted": accepted})


def _short(text: str, n: int = 70) -> str:
    one = " ".join(text.split())
    return one if len(one) <= n else one[: n - 1] + "…"


def auto_merges(ctx: PlanContext) -> list[tuple[Cluster, str | None]]:
    """The merge-band clusters, each with the reason it must wait for a person (or None)."""
    if "auto_merges" in ctx.shared:
        return ctx.shared["auto_merges"]
    cfg = ctx.cfg
    live = ctx.live()
    out: list[tuple[Cluster, str | None]] = []
    for c in find_clusters(ctx):
        if c.band(cfg.merge_cohesion, cfg.review_cohesion, cfg.max_cluster) != "merge":
            continue
        members = [live[i] for i in c.members if i in live]
        if len(members) != c.size:
            continue
        out.append((c, mergeable(ctx.core, sorted(members, key=rank))))
    ctx.shared["auto_merges"] = out
    return out


def plan(ctx: PlanContext) -> list[Op]:
    seen = known(ctx.core)
    only: set[str] | None = ctx.shared.get("only_clusters")
    ops: list[Op] = []
    live = ctx.live()  # clusters are disjoint: what one merge claims, no other cluster holds
    if only is None:
        for c, blocked in auto_merges(ctx):
            if blocked or seen.get(c.id, {}).get("status") in ("rejected", "merged"):
                continue
            members = [live[i] for i in c.members if i in live and i not in ctx.claimed]
            if len(members) != c.size or ctx.core.store.get_memory(merged_id(c.id)) is not None:
                continue
            ops.append(_op(ctx, c.id, members, c.cohesion, accepted=False))
    for cid, row in sorted(seen.items()):
        if row["status"] != "accepted" or (only is not None and cid not in only):
            continue
        members = [live[i] for i in row["members"] if i in live and i not in ctx.claimed]
        if len(members) == len(row["members"]) >= 2 and ctx.core.store.get_memory(merged_id(cid)) is None:
            ops.append(_op(ctx, cid, members, float(row["cohesion"]), accepted=True))
    return ops


# -- applying -----------------------------------------------------------------------------------
def _consolidated(core: Core, new_id: str, members: list[Memory], content: str, cid: str, now: float) -> Memory:
    from ...nlp.tokens import count_tokens

    base = members[0]
    fps = [m.fingerprint for m in members]

    def union(values: list[tuple[str, ...]]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(v for vs in values for v in vs))

    fp = Fingerprint(
        type=base.fingerprint.type,
        entities=union([f.entities for f in fps]),
        subjects=union([f.subjects for f in fps]),
        decision=base.fingerprint.decision or next((f.decision for f in fps if f.decision), None),
        rejected=union([f.rejected for f in fps]),
        reasons=union([f.reasons for f in fps]),
    )
    meta: dict[str, Any] = {}
    for m in reversed(members):  # the base's values win
        meta.update(m.meta or {})
    meta.pop("consolidated_into", None)
    meta.update({"consolidated_from": [m.id for m in members], "cluster_id": cid})
    used = [m.last_used for m in members if m.last_used is not None]
    reviewed = [m.last_review_at for m in members if m.last_review_at is not None]
    expires = [m.expires_at for m in members]
    return Memory(
        id=new_id, content=content, type=base.type,
        layer=max((m.layer for m in members), key=lambda layer: _LAYER_RANK[layer]),
        status=Status.ACTIVE, fingerprint=fp, tokens=count_tokens(content), wing=base.wing, room=base.room,
        tags=union([m.tags for m in members]), source=base.source, trust=max(m.trust for m in members),
        importance=max(m.importance for m in members), strength=max(m.strength for m in members),
        use_count=sum(m.use_count for m in members), created_at=min(m.created_at for m in members),
        updated_at=now, last_used=max(used) if used else None, pinned=False, note_path=None, meta=meta,
        session_id=base.session_id, review_count=sum(m.review_count for m in members),
        cross_domain_count=sum(m.cross_domain_count for m in members),
        last_review_at=max(reviewed) if reviewed else None, event_at=base.event_at,
        expires_at=None if any(e is None for e in expires) else max(e for e in expires if e is not None),
        embed_model=core.embedder.model_hash,
    )


def _check(core: Core, op: Op, actx: ApplyContext) -> tuple[list[Memory], set[str], str | None]:
    """(members, the ids this merge already archived, why it must not go on)."""
    from ...vault.writer import current_hash

    p = op.payload
    rows = core.store.get_memories(p["members"])
    done: set[str] = set()
    members: list[Memory] = []
    for mid in p["members"]:
        m = rows.get(mid)
        if m is None:
            return [], done, f"{mid[:8]} no longer exists"
        members.append(m)
        if m.status == Status.ARCHIVED and m.meta.get("consolidated_into") == p["new_id"]:
            done.add(mid)
        elif m.status not in (Status.ACTIVE, Status.PROMOTED):
            return members, done, f"{mid[:8]} is {m.status.value} now"
        elif content_hash(m.content) != p["hashes"][mid]:
            return members, done, f"{mid[:8]} changed since the plan"
    if done and len(done) != len(members):
        return members, done, "inconsistent: part of the cluster is merged"  # cannot happen: one transaction
    if not done and actx.vault is not None:
        for n in p["notes"].values():
            if current_hash(actx.vault / n["path"]) != n["hash"]:
                return members, done, f"{n['path']} was edited since the plan; the person's version is kept"
    return members, done, None


def apply_merge(core: Core, op: Op, actx: ApplyContext) -> dict[str, Any]:
    p = op.payload
    new_id, cid = p["new_id"], p["cluster_id"]
    members, done, why = _check(core, op, actx)
    if why:
        return {"status": "skipped", "cluster_id": cid, "reason": why}
    now = actx.now
    if not done:
        new = _consolidated(core, new_id, members, p["content"], cid, now)
        ids = [m.id for m in members]
        inside = set(ids)
        links: list[Link] = []
        for m in members:
            for ln in core.store.links_of(m.id):
                src = new_id if ln.src in inside else ln.src
                dst = new_id if ln.dst in inside else ln.dst
                if src != dst:
                    links.append(replace(ln, src=src, dst=dst))
            links.append(Link(m.id, new_id, "consolidated_into", "rule", 1.0, now))
        notes = p["notes"]
        with core.write_lock, core.store.tx():
            if core.store.get_memory(new_id) is None:
                core.store.insert_memories([new])
                core.store.copy_uses(new_id, ids)
            core.store.add_links(links)
            for m in members:
                note = notes.get(m.id)
                set_fields(core, m.id, status=Status.ARCHIVED, archived_at=now, updated_at=now,
                           note_path=note["archive_to"] if note else m.note_path,
                           meta={**(m.meta or {}), "consolidated_into": new_id})
            core.store.record_merged_cluster(cid, p["members"], p["cohesion"], now, new_id)
            _queue_enrichment(core, [new_id], now)
        checkpoint(f"merge:{cid}:stored")  # the store holds the merge; index and notes follow
    actx.upsert(new_id)
    actx.touch_meta(*p["members"])
    result: dict[str, Any] = {"cluster_id": cid, "new_id": new_id, "members": p["members"], "accepted": p["accepted"]}
    if p["notes"] and actx.vault is not None:
        result.update(_notes(core, op, actx))
    return result


def _queue_enrichment(core: Core, ids: list[str], now: float) -> None:
    """New memories get their entity index and links from the graph's enrichment queue."""
    from ...graph import db

    db.queue(core.store, ids, now)


def _notes(core: Core, op: Op, actx: ApplyContext) -> dict[str, Any]:
    """Archive the members' notes (history copy first) and promote the new memory."""
    from ...vault import indexer
    from ...vault.names import join_rel, note_filename, title_of
    from ...vault.parse import parse_note
    from ...vault.props import edit_frontmatter
    from ...vault.render import title_for
    from ...vault.writer import move_note_file, read_note_file, update_note
    from ..promote import promote_one

    p = op.payload
    vault = actx.vault
    assert vault is not None
    new = core.store.get_memory(p["new_id"])
    assert new is not None
    expected = join_rel(core.settings.vault_cfg.memories_folder, note_filename(title_for(new)))
    kept: list[str] = []
    moved: list[str] = []
    for mid in p["members"]:  # the members' order: the journal stores the notes sorted by id
        n = p["notes"].get(mid)
        if n is None:
            continue
        src, dst = n["path"], n["archive_to"]
        text, digest = read_note_file(vault, src) if (vault / src).is_file() else (None, None)
        if text is not None and digest == n["hash"]:
            actx.keep_copy(src)
            marked = _mark(text, title_of(expected), p["new_id"], actx.now)
            try:
                move_note_file(vault, src, dst, marked, digest)
            except (ConflictError, VaultError):
                kept.append(src)
                continue
            indexer.move_note(core, src, dst)
            moved.append(dst)
        elif (vault / dst).is_file() and parse_note(dst, read_note_file(vault, dst)[0]).mnemo_id == mid:
            indexer.index_note(core, dst)  # moved by an interrupted attempt
            moved.append(dst)
        elif text is not None:
            kept.append(src)  # edited by a person during the merge: their note stays where it is
    actx.flush()  # the new memory's vector first: promotion updates its metadata
    try:
        note = promote_one(core, core.get(p["new_id"]))
    except MnemoError as exc:
        return {"note": None, "note_error": exc.message, "archived_notes": moved, "kept_notes": kept}
    if note.path != expected:  # the title was taken: point the archived notes at the real one
        for dst in moved:
            actx.keep_copy(dst)
            update_note(vault, dst, lambda text: edit_frontmatter(text, {"consolidated_into": f"[[{title_of(note.path)}]]"}))
    return {"note": note.path, "archived_notes": moved, "kept_notes": kept}


def _mark(text: str, title: str, new_id: str, now: float) -> str:
    from ...clock import note_time
    from ...vault.props import edit_frontmatter

    return edit_frontmatter(text, {"mnemo_status": "consolidated", "consolidated_into": f"[[{title}]]",
                                   "consolidated_id": new_id, "consolidated": note_time(now)})


APPLY = {"merge": apply_merge}
