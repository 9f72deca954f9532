"""Value types shared by every layer: frozen dataclasses with a JSON form.

``to_dict`` gives the JSON shape the CLI prints and the daemon API sends; ``from_dict`` is its
inverse, which is how the remote client hands back the same types the core returns.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

MAX_CONTENT_BYTES = 64 * 1024


class MemoryType(StrEnum):
    DECISION = "decision"
    FACT = "fact"
    PREFERENCE = "preference"
    SESSION_NOTE = "session_note"
    DEBUG_LOG = "debug_log"


class Layer(StrEnum):
    WORKING = "working"
    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"


class Status(StrEnum):
    ACTIVE = "active"
    PROMOTED = "promoted"
    ARCHIVED = "archived"
    COLD = "cold"


class Source(StrEnum):
    HUMAN = "human"
    AI = "ai"
    INGEST = "ingest"


# Trust per source (layered-lifecycle seed): lower trust decays faster.
TRUST = {Source.HUMAN: 1.0, Source.AI: 0.7, Source.INGEST: 0.5}

LINK_TYPES = frozenset(
    {
        "supersedes",
        "conflicts",
        "causes",
        "instance_of",
        "invalidated_by",
        "motivated_by",
        "because",
        "triggered",
        "contradicts",
        "updates",
        "resolves",
        "was_context_for",
        "consolidated_into",
        "split_from",
        "wikilink",
        "related",
    }
)


def valid_link_type(rel: str) -> bool:
    return rel in LINK_TYPES or (rel.startswith("shares_entity:") and len(rel) > len("shares_entity:"))


class _JSON:
    """JSON round-trip for the dataclasses below."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            out[f.name] = _plain(getattr(self, f.name))
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        hints = _type_hints(cls)
        kwargs = {}
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            if f.name in data:
                kwargs[f.name] = _typed(data[f.name], hints[f.name])
        return cls(**kwargs)


_HINTS: dict[type, dict[str, Any]] = {}


def _type_hints(cls: type) -> dict[str, Any]:
    # Resolving string annotations costs ~0.5 ms a class; every row read would pay it.
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints


def _plain(value: Any) -> Any:
    if isinstance(value, _JSON):
        return value.to_dict()
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _typed(value: Any, annotation: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        return _typed(value, inner[0]) if len(inner) == 1 else value
    if isinstance(annotation, type) and issubclass(annotation, _JSON):
        return annotation.from_dict(value)
    if isinstance(annotation, type) and issubclass(annotation, StrEnum):
        return annotation(value)
    if origin is tuple:
        item = args[0] if args else Any
        return tuple(_typed(v, item) for v in value)
    if origin is list:
        item = args[0] if args else Any
        return [_typed(v, item) for v in value]
    return value


@dataclass(frozen=True)
class Fingerprint(_JSON):
    """T1: what the memory says, in structured form (Go MIRA seed)."""

    type: str = MemoryType.FACT.value
    entities: tuple[str, ...] = ()
    subjects: tuple[str, ...] = ()
    decision: str | None = None
    rejected: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()

    def facts(self) -> int:
        return len(self.entities) + len(self.subjects) + bool(self.decision) + len(self.rejected) + len(self.reasons)


@dataclass(frozen=True)
class Memory(_JSON):
    id: str
    content: str
    type: MemoryType = MemoryType.FACT
    layer: Layer = Layer.WORKING
    status: Status = Status.ACTIVE
    fingerprint: Fingerprint = field(default_factory=Fingerprint)
    tokens: int = 0
    wing: str | None = None
    room: str | None = None
    tags: tuple[str, ...] = ()
    source: Source = Source.HUMAN
    trust: float = 1.0
    importance: float = 0.5
    strength: float = 1.0
    use_count: int = 0
    created_at: float = 0.0
    updated_at: float = 0.0
    last_used: float | None = None
    pinned: bool = False
    note_path: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    session_id: str | None = None
    duplicate_of: str | None = None
    surprise: float | None = None
    review_count: int = 0
    cross_domain_count: int = 0
    last_review_at: float | None = None
    event_at: float | None = None
    expires_at: float | None = None
    archived_at: float | None = None
    superseded_by: str | None = None
    embed_model: str | None = None


@dataclass(frozen=True)
class Link(_JSON):
    src: str
    dst: str
    rel: str
    origin: str = "auto"  # auto | rule | model | person
    weight: float = 1.0
    created_at: float = 0.0


@dataclass(frozen=True)
class Hit(_JSON):
    """One recall result. ``tier`` is ``stm`` for a memory, ``ltm`` for a vault note chunk."""

    id: str
    score: float
    content: str
    tier: str = "stm"
    meta: dict[str, Any] = field(default_factory=dict)
    type: str | None = None
    status: str | None = None
    tags: tuple[str, ...] = ()
    path: str | None = None
    heading: str | None = None
    created_at: float | None = None
    bm25_rank: int | None = None
    vector_rank: int | None = None
    similarity: float | None = None
    reason: str = "match"  # match | link | review
    # Set when recall packs its hits into a token budget (recall/budget.py): the render mode
    # (verbatim | fingerprint | header), its cl100k token cost and the rendered text.
    mode: str | None = None
    tokens: int | None = None
    rendered: str | None = None


@dataclass(frozen=True)
class SaveResult(_JSON):
    memory: Memory
    duplicate_of: str | None = None
    created: bool = True

    @property
    def id(self) -> str:
        return self.memory.id


@dataclass(frozen=True)
class ImportResult(_JSON):
    saved: int
    ids: tuple[str, ...] = ()
    seconds: float = 0.0


@dataclass(frozen=True)
class Stats(_JSON):
    memories: int
    by_status: dict[str, int] = field(default_factory=dict)
    by_type: dict[str, int] = field(default_factory=dict)
    by_layer: dict[str, int] = field(default_factory=dict)
    links: int = 0
    uses: int = 0
    activity_days: int = 0
    notes: int = 0
    chunks: int = 0
    home: str = ""
    vault: str | None = None
    embed_model: str | None = None


@dataclass(frozen=True)
class PromotionResult(_JSON):
    """What promoting one memory did (or, under ``dry_run``, would do) in the vault."""

    memory_id: str
    path: str  # vault-relative note path ("" when skipped)
    created: bool = False
    dry_run: bool = False
    title: str = ""
    status: str = "created"  # created | updated | unchanged | planned | skipped
    reason: str | None = None
    entities: tuple[str, ...] = ()
    entity_notes: tuple[str, ...] = ()  # entity notes created on the way
