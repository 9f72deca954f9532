"""Step ``cards``: entity peer cards. An entity that ``dream.card_min_mentions`` (3) or more live
memories name gets a card in its entity note in ``Entities/``: what the memories say about it
(most important first, each linking the memory's note when it has one), the domains it spans and
the entities it is mentioned with.

The card is a managed section of the entity note (between mnemo's markers); the rest of the note
is the person's and stays byte for byte. It is updated in place, never duplicated: the note is
the one the vault index knows by the entity's name, or ``Entities/<Name>.md`` created with the
vault's entity-note layout. A note with the entity's name that mnemo does not own (no
``mnemo_id: entity:…``) is never touched. Before a card is rewritten the note is copied into the
history folder. If a person edited the note after the plan, an edit outside the card is kept and
the card rebuilt around it; an edit inside the card wins and the card waits for the next run.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from ...clock import note_time
from ...errors import ConflictError, VaultError
from ...models import Memory
from .journal import Op
from .notes import block_hash, find_block, first_sentence, put_block, render_block
from .relate import entity_groups

if TYPE_CHECKING:
    from ...core import Core
    from .workspace import ApplyContext, PlanContext

NAME = "cards"
# Operations that change what a card shows of a memory: whether it is live, its text, its
# importance (the card's order). A layer change or a drift flag does not.
CHANGES_CARDS = frozenset({"archive", "freeze", "merge", "split", "supersede", "conflict"})
ENTITY_PREFIX = "entity:"


def _owned(text: str, rel: str) -> bool:
    from ...vault.parse import parse_note

    mid = parse_note(rel, text).mnemo_id
    return bool(mid and mid.startswith(ENTITY_PREFIX))


def locate(core: Core, name: str) -> str | None:
    """The vault-relative path of the entity's note (existing or to create), or None when a
    note by that name belongs to the person."""
    from ...vault.indexer import rows_by_name
    from ...vault.names import join_rel, note_filename

    vault = core.settings.vault
    assert vault is not None
    rows = rows_by_name(core, name)
    for r in rows:
        if r.mnemo_id and r.mnemo_id.startswith(ENTITY_PREFIX) and (vault / r.path).is_file():
            return r.path
    if any((vault / r.path).is_file() for r in rows):
        return None
    rel = join_rel(core.settings.vault_cfg.entities_folder, note_filename(name))
    path = vault / rel
    if path.is_file():
        return rel if _owned(path.read_text(encoding="utf-8", errors="replace"), rel) else None
    return rel


def plan(ctx: PlanContext) -> list[Op]:
    from ...nlp.fingerprint import entity_key
    from ...vault.writer import read_note_file

    if ctx.vault is None:
        return []
    live = ctx.live()
    everyone = ctx.all_live()
    ops: list[Op] = []
    touched = ctx.planned_ids(CHANGES_CARDS)  # memories an earlier step of this run changes as a card shows them
    # Entities those memories name: the step that changes them (a merge, a split) may bring an
    # entity to the card threshold or change its card, which this run must settle, not the next.
    moved: dict[str, str] = {}
    for i in sorted(touched):
        for e in everyone[i].fingerprint.entities:
            moved.setdefault(entity_key(e), e)
    groups = entity_groups(ctx)
    for key in sorted(set(groups) | {k for k in moved if k}):
        name, ids = groups.get(key, (moved.get(key, ""), []))
        changing = bool(set(ids) & touched) or key in moved
        if len(ids) < ctx.cfg.card_min_mentions and not changing:
            continue
        rel = locate(ctx.core, name)
        if rel is None:
            continue
        text, digest = read_note_file(ctx.vault, rel) if (ctx.vault / rel).is_file() else (None, None)
        if len(ids) < ctx.cfg.card_min_mentions and text is None:
            continue  # no note yet and too few mentions before the run: the next run creates it if due
        variants = sorted({e for i in ids for e in live[i].fingerprint.entities if entity_key(e) == key}
                          | {e for i in touched for e in everyone[i].fingerprint.entities if entity_key(e) == key} | {name})
        if text is not None and not changing and _card_is_current(ctx, name, key, variants, text):
            continue  # nothing new about it: no operation, no rewrite, nothing to report
        verb = "update" if digest else "create"
        ops.append(Op(NAME, "card", key, f"{verb} the peer card of {name} in {rel} ({len(ids)} memories)",
                      {"entity": name, "key": key, "path": rel, "hash": digest, "block": block_hash(text), "names": variants}))
    return ops


def _card_is_current(ctx: PlanContext, name: str, key: str, names: list[str], text: str) -> bool:
    block = render_block(card_lines(ctx.core, name, key, _memories(ctx.core, names), ctx.cfg.card_max_items, ctx.now))
    return _owned(text, "") and find_block(text) == block


def _memories(core: Core, names: list[str]) -> list[Memory]:
    ids = core.store.live_ids_naming(sorted({n.lower() for n in names}))
    out = list(core.store.get_memories(ids).values())
    out.sort(key=lambda m: (-m.importance, -m.created_at, m.id))
    return out


def card_lines(core: Core, name: str, key: str, memories: list[Memory], limit: int, now: float) -> list[str]:
    from ...nlp.fingerprint import entity_key
    from ...vault.indexer import rows_by_name
    from .bridges import describe, domain

    # No date in the card: it is a function of the memories alone, so a run with nothing new
    # leaves the note's bytes alone (the note's ``updated`` property says when it last changed).
    lines = [f"*{len(memories)} memories mention {name}.*", ""]
    vault = core.settings.vault
    for m in memories[:limit]:
        where = f"`{m.id[:8]}`"
        if m.note_path and vault is not None and (vault / m.note_path).is_file():
            from ...vault.entities import link_for
            from ...vault.names import title_of

            where = link_for(core, m.note_path, title_of(m.note_path))
        lines.append(f"- **{m.type.value}** {first_sentence(m.content)} ({where})")
    if len(memories) > limit:
        lines.append(f"- … and {len(memories) - limit} more")
    domains = sorted({describe(d) for m in memories if (d := domain(m)) is not None})
    if len(domains) > 1:
        lines += ["", "**Across domains:** " + " · ".join(domains)]
    others: Counter[str] = Counter()
    shown: dict[str, str] = {}
    for m in memories:
        for e in dict.fromkeys(m.fingerprint.entities):
            k = entity_key(e)
            if k and k != key:
                others[k] += 1
                shown.setdefault(k, e)
    if others:
        names = []
        for k, _ in sorted(others.items(), key=lambda kv: (-kv[1], kv[0]))[:5]:
            n = shown[k]
            names.append(f"[[{n}]]" if rows_by_name(core, n) else n)
        lines += ["", "**Mentioned with:** " + ", ".join(names)]
    return lines


def apply_card(core: Core, op: Op, actx: ApplyContext) -> dict[str, Any]:
    from ...vault import indexer
    from ...vault.entities import render_entity_note
    from ...vault.props import edit_frontmatter
    from ...vault.writer import read_note_file, write_note

    p = op.payload
    rel, name = p["path"], p["entity"]
    out: dict[str, Any] = {"entity": name, "path": rel}
    if actx.vault is None:
        return {**out, "status": "skipped", "reason": "no vault"}
    memories = _memories(core, p["names"])
    block = render_block(card_lines(core, name, p["key"], memories, actx.cfg.card_max_items, actx.now))
    path = actx.vault / rel
    if not path.is_file():
        if p["hash"] is not None:
            return {**out, "status": "skipped", "reason": "the note was deleted since the plan"}
        if len(memories) < actx.cfg.card_min_mentions:
            return {**out, "status": "skipped", "reason": f"only {len(memories)} memories name it after this run"}
        try:
            write_note(actx.vault, rel, put_block(render_entity_note(name, actx.now), block), expected_hash=None)
        except ConflictError:
            return {**out, "status": "skipped", "reason": "a note appeared there since the plan"}
        indexer.index_note(core, rel)
        return {**out, "card": "created", "memories": len(memories)}
    text, digest = read_note_file(actx.vault, rel)
    if not _owned(text, rel):
        return {**out, "status": "skipped", "reason": "the note is not mnemo's"}
    if find_block(text) is None and len(memories) < actx.cfg.card_min_mentions:
        return {**out, "card": "not needed", "memories": len(memories)}  # checked after this run's changes
    if find_block(text) == block:
        # Unchanged since the plan, or written by an interrupted attempt of this run.
        state = "unchanged" if digest == p["hash"] else ("created" if p["hash"] is None else "updated")
        return {**out, "card": state, "memories": len(memories)}
    rebased = False
    if digest != p["hash"]:
        if block_hash(text) != p["block"]:
            return {**out, "status": "skipped", "reason": "a person edited the peer card since the plan; their text is kept"}
        rebased = True  # edited elsewhere in the note: keep that, rebuild the card around it
    try:
        new = edit_frontmatter(put_block(text, block), {"updated": note_time(actx.now)})
    except VaultError as exc:
        return {**out, "status": "skipped", "reason": exc.message}
    actx.keep_copy(rel)
    try:
        write_note(actx.vault, rel, new, expected_hash=digest)
    except ConflictError:
        return {**out, "status": "skipped", "reason": "the note changed while the card was written; the person's version is kept"}
    indexer.index_note(core, rel)
    # "rebased" only when it happened: a run finished after a kill reports the same as one never cut
    return {**out, "card": "updated", "memories": len(memories), **({"rebased": True} if rebased else {})}


APPLY = {"card": apply_card}
