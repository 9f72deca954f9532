"""The results of the operations that answer with a plain JSON object: their shapes, as
``TypedDict``s, exactly as the features build them (``engine.Mnemo`` annotates its operations
with them; the daemon sends them as they are).

A TypedDict is a plain ``dict`` at run time: nothing is converted, so the JSON on the wire is
what it was, and the thin client hands the dict it received back unchanged (``wire.decode``
decodes ``models`` dataclasses only). Where a field holds a ``models`` dataclass in process
(``RelatedResult.hits``), a client of the daemon gets that value's ``to_dict()`` form.
``NotRequired`` marks the keys a result has only in some cases (a dry run, the first page).
Keys that are Python keywords (``from``) need the functional form.

Models layer: plain values, nothing imported but ``models``.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from .models import Hit


# -- recall -----------------------------------------------------------------------------------
class ContextItem(TypedDict):
    """One memory or note chunk placed in a context block, and how it was rendered."""

    mode: str
    tokens: int
    score: float
    id: str
    memory_id: str | None
    tier: str
    reason: str
    path: str | None


class ContextSection(TypedDict):
    name: str
    title: str
    items: list[ContextItem]


class ContextBlock(TypedDict):
    """``context``: the block of text for a prompt, its sections and the memory ids shown."""

    query: str
    budget: int
    used: int
    context: str
    sections: list[ContextSection]
    ids: list[str]


# -- upkeep -----------------------------------------------------------------------------------
class DoctorCheck(TypedDict):
    about: str
    ok: bool
    problems: dict[str, int]
    sample: dict[str, list[Any]]
    hints: NotRequired[dict[str, str]]


class DoctorReport(TypedDict):
    """``doctor``: whether the indexes agree with the store, per check, and what was repaired."""

    ok: bool
    checks: dict[str, DoctorCheck]
    repaired: dict[str, Any]


class ReindexResult(TypedDict):
    """``reindex``: rows rebuilt in each index."""

    fts: int
    vectors: int
    notes: NotRequired[int]  # with a vault

IndexMove = TypedDict("IndexMove", {
    "from": str,
    "to": str,
    "method": str,  # copied, or re-embedded when the source could not be read
    "memories": int,
    "chunks": int,
    "config": str,
    "source_error": NotRequired[str],
    "note": NotRequired[str],
})


# -- the lifecycle ------------------------------------------------------------------------------
class PromotionCheck(TypedDict):
    eligible: bool
    why: str
    uses_in_window: int
    window_days: float
    window_clock: str


class Thresholds(TypedDict):
    promote: float
    promote_importance: float
    forget: float
    cold: float


class Explanation(TypedDict):
    """``explain``: every factor of a memory's retention and importance, and the rules' verdicts."""

    id: str
    now: str
    status: str
    layer: str
    effective_layer: str
    type: str
    source: str
    pinned: bool
    use_count: int
    strength: float
    created_at: str
    last_used: str | None
    retention: float
    importance: float
    retention_factors: dict[str, Any]
    importance_factors: dict[str, Any]
    review_priority: float
    promotion: PromotionCheck
    thresholds: Thresholds
    would_forget: bool
    would_freeze: bool


class ReviewItem(TypedDict):
    """One memory of the spaced-repetition queue (``review``)."""

    memory: dict[str, Any]  # Memory.to_dict()
    priority: float
    retention: float


class GcReport(TypedDict):
    """``gc``: what the forgetting pass archived, froze and moved between layers."""

    dry_run: bool
    checked: int
    archived: list[dict[str, Any]]  # {id, retention, importance, reason}
    cold: list[dict[str, Any]]  # {id, retention, from, reason}
    layers: list[dict[str, Any]]  # {id, from, to}
    pinned_kept: int


class DreamReport(TypedDict):
    """``dream``: the run's plan and, unless a dry run, what was applied."""

    run_id: str
    started_at: str
    steps: list[str]
    resumed: bool
    dry_run: bool
    planned: int
    counts: dict[str, dict[str, int]]
    ops: list[dict[str, Any]]
    review: list[DreamCluster]
    seconds: dict[str, Any]
    applied: NotRequired[int]
    done: NotRequired[dict[str, dict[str, int]]]
    skipped: NotRequired[list[dict[str, Any]]]
    failed: NotRequired[list[dict[str, Any]]]
    report: NotRequired[str | None]


class ClusterMember(TypedDict):
    id: str
    content: str
    status: str
    note: str | None


class DreamCluster(TypedDict):
    """A cluster of near-duplicates waiting for a person's decision (``dream_review``)."""

    id: str
    cohesion: float
    first_seen: str
    members: list[ClusterMember]


class DreamDecision(TypedDict):
    """``dream_decide``: rejected, accepted (not merged: ``reason``) or merged (``note``)."""

    cluster_id: str
    status: str
    merged_into: str | None
    run: str | None
    reason: NotRequired[str | None]
    note: NotRequired[str | None]


# -- the vault --------------------------------------------------------------------------------
class VaultIndexCounts(TypedDict):
    """``index_vault``: how many notes were added, changed, moved, removed and left alone."""

    added: int
    changed: int
    moved: int
    removed: int
    unchanged: int
    embedded: int
    synced: int
    notes: int


class NoteIndexResult(TypedDict):
    """``index_note``."""

    path: str
    status: str  # ignored, removed, missing, unchanged, added, changed
    embedded: NotRequired[int]
    chunks: NotRequired[int]
    synced: NotRequired[bool]


class NoteRemoval(TypedDict):
    """``remove_note``."""

    path: str
    removed: bool
    reason: NotRequired[str]


NoteMove = TypedDict("NoteMove", {
    "path": str,  # where the note is now
    "status": str,
    "from": NotRequired[str],
    "to": NotRequired[str],  # moved out of what is indexed: removed
    "embedded": NotRequired[int],
    "chunks": NotRequired[int],
    "synced": NotRequired[bool],
    "removed": NotRequired[bool],
    "reason": NotRequired[str],
})


class Heading(TypedDict):
    level: int
    text: str


class NoteLink(TypedDict):
    target: str
    heading: str | None
    block: str | None
    alias: str | None
    embed: bool


class NoteView(TypedDict):
    """``read_note``: one note of the vault, parsed."""

    path: str
    title: str
    mnemo_id: str | None
    owned: bool
    memory_status: str | None
    indexed: bool
    frontmatter: dict[str, Any]
    frontmatter_error: str | None
    tags: list[str]
    aliases: list[str]
    headings: list[Heading]
    links: list[NoteLink]
    block_ids: list[str]
    chunks: int
    body: str


class RelatedResult(TypedDict):
    """``related``: memories and notes related to a note (or a selection)."""

    path: str | None
    query: str
    hits: list[Hit]


NoteRename = TypedDict("NoteRename", {
    "from": str,
    "to": str,
    "links_rewritten": int,
    "notes_changed": list[str],
    "skipped": list[dict[str, str]],  # {path, reason}
})


# -- conversations ------------------------------------------------------------------------------
class IngestedMemory(TypedDict):
    id: str
    type: str
    content: str
    fingerprint: dict[str, Any]
    speaker: Any
    turn: Any
    created: bool
    duplicate_of: str | None


class IngestReport(TypedDict):
    """``ingest``: what a conversation gave (kept, dropped, duplicates, links), and how fast."""

    source: str
    format: str
    session_id: str
    dry_run: bool
    turns: int
    chatter_turns: int
    sentences: int
    candidates: int
    dropped: int
    kept: int
    duplicates: int
    by_type: dict[str, int]
    links: dict[str, int]
    total_links: int
    superseded: list[str]
    memories: list[IngestedMemory]
    planned_links: list[dict[str, Any]]
    seconds: float
    turns_per_second: float | None


class CaptureReport(TypedDict):
    """``capture``: the part of a session transcript read this time and what it gave."""

    path: str
    from_offset: int
    to_offset: int
    lines: int
    turns: int
    session_id: str | None
    cwd: str | None
    title: str | None
    bad_lines: int
    skipped: dict[str, int]
    source: str
    wing: str | None
    dry_run: bool
    new_turns: int
    kept: int
    duplicates: int
    observed: list[str]
    dropped: NotRequired[int]
    by_type: NotRequired[dict[str, int]]
    memories: NotRequired[list[str]]


class ProjectContext(TypedDict):
    """``project_context``: the block a session in a project starts with."""

    project: str
    query: str
    budget: int
    used: int
    context: str
    ids: list[str]
    project_ids: list[str]
    shared_ids: list[str]


class ConversationIngest(TypedDict):
    """``ingest_conversation``: one conversation of a chat export, and what became of it."""

    session_id: str
    title: str | None
    turns: int
    kept: int
    duplicates: int
    status: str  # done (before), empty, dry-run, ingested
    memories: NotRequired[list[str]]  # a dry run: the contents it would keep


class ExportPage(TypedDict):
    """``export_page``: export records after a cursor; the first page carries the rest."""

    memories: list[dict[str, Any]]
    after: int
    done: bool
    days: NotRequired[list[list[Any]]]
    journal: NotRequired[list[list[Any]]]
    total: NotRequired[int]


# -- the graph ----------------------------------------------------------------------------------
class GraphNode(TypedDict):
    id: str
    type: str
    status: str
    created_at: float
    content: str
    superseded_by: str | None
    depth: NotRequired[int]
    rel: NotRequired[str]
    via: NotRequired[str]
    origin: NotRequired[str]
    weight: NotRequired[float]


class CausalChain(TypedDict):
    """``chain``: a memory's causes (root cause first) and consequences (nearest first)."""

    memory: GraphNode
    causes: list[GraphNode]
    consequences: list[GraphNode]
    depth: int
    healed: int
    truncated: bool


class Neighbourhood(TypedDict):
    """``graph``: every memory within ``depth`` links and every link among them."""

    root: str
    depth: int
    nodes: list[GraphNode]
    edges: list[dict[str, Any]]  # Link.to_dict()
    healed: int
    truncated: bool


class EnrichReport(TypedDict):
    """``enrich_pending``: memories fingerprinted and linked, and the links made."""

    enriched: int
    missing: int
    pending: int
    links: dict[str, int]
    total: int
    superseded: list[str]
    seconds: float
