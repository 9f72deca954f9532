"""The dream cycle: mnemo's maintenance, and the one part that rewrites notes (design.md §8).

Steps, in order (``mnemo dream --steps a,b`` picks some): ``forget`` (the forgetting pass),
``cluster`` (near-duplicates via nearest neighbours; review list), ``merge`` (consolidation),
``split`` (bloated memories into pieces), ``supersede``, ``beliefs`` (conflicts), ``bridges``
(cross-domain links), ``cards`` (entity peer cards), ``drift`` (cited paths that are gone),
``prune`` (old logs and journals). Each step plans operations first, reading only; ``--dry-run``
prints the plan and changes nothing. Applying goes through a journal (``journal``) so a killed
run is finished by the next one, and ends with a report note in ``Dreams/``.

Safety: notes are only rewritten when mnemo owns them (``mnemo_id``), through the vault's safe
writer, after a copy into the history folder in MNEMO_HOME; a note a person edited after the
plan keeps their text (the operation is skipped, or rebuilt around the edit, and reported).
Judgement is deterministic by default (``graph.rules``); a configured judge (``mnemo.judge``)
confirms relations and merges.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .steps import STEPS, select_steps

if TYPE_CHECKING:
    from ...core import Core

__all__ = ["STEPS", "decide", "dream", "review", "select_steps"]


# The runner (numpy, the index, the vault) loads on first use, not when the package is imported.
def dream(core: Core, **kwargs: Any) -> dict[str, Any]:
    from .runner import dream as run

    return run(core, **kwargs)


def review(core: Core) -> list[dict[str, Any]]:
    from .runner import review as run

    return run(core)


def decide(core: Core, cluster_id: str, accept: bool) -> dict[str, Any]:
    from .runner import decide as run

    return run(core, cluster_id, accept)
