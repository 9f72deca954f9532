"""The demo behind scripts/demo: one engine, a throwaway home and vault, each step printed."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from mnemo import Mnemo
from mnemo.clock import DAY, Clock, parse_time
from mnemo.config import load_settings
from mnemo.setup import init_home

MEMORIES = [
    ("We decided to use PostgreSQL for the database because the team knows it well", ["db", "architecture"]),
    ("Alice prefers dark mode and a monospace font in every editor", ["alice", "ui"]),
    ("The staging deploy failed with a TimeoutError in the migration step", ["deploy"]),
    ("Our API authenticates with short-lived JWT tokens signed by the auth service", ["api", "auth"]),
    ("Bob is the on-call engineer for the payments service this month", ["people", "payments"]),
    ("Lunch with the design team is every Friday at noon", ["team"]),
]


# The person's own notes, already in the vault: the promoted decision should link to the first,
# never to the second (it only shares the word "team").
NOTES = {
    "Projects/Choosing a database.md": "# Choosing a database\n\nWe compared PostgreSQL, MySQL and MongoDB for the "
    "main database. PostgreSQL won: the team already knows it well, and we want transactions and JSONB.\n",
    "Team offsite.md": "# Team offsite\n\nThe team goes kayaking on Friday. Bring dry clothes; dinner at the harbour.\n",
}
WIKILINK = re.compile(r"\[\[([^\]|#]+)")


def resolves(vault: Path, target: str) -> bool:
    """Whether a wikilink target names a note of the vault (by name, or by vault path)."""
    return any(p.stem == target or p.relative_to(vault).with_suffix("").as_posix() == target for p in vault.rglob("*.md"))


def step(text: str) -> None:
    print(f"\n== {text}")


def main(work: str) -> None:
    settings = load_settings()
    clock = Clock(parse_time("2026-03-02T09:00:00Z"))
    step(f"init: home {settings.home}, vault {settings.vault}")
    created = init_home(settings).get("created", [])
    print(f"vault set up ({len(created)} files and folders created)")
    if settings.vault:
        for rel, text in NOTES.items():
            (settings.vault / rel).parent.mkdir(parents=True, exist_ok=True)
            (settings.vault / rel).write_text(text, encoding="utf-8")
        print(f"the person's notes: {', '.join(NOTES)}")
    t0 = time.perf_counter()
    with Mnemo(settings, clock=clock) as m:
        step("save six memories")
        for text, tags in MEMORIES:
            r = m.save(text, tags=tags)
            print(f"saved {r.memory.id[:8]}  {r.memory.type.value:<10} {text[:60]}")
        db = m.list(type="decision")[0]
        step("use the database decision on five days (reinforcement)")
        for _ in range(5):
            clock.advance(DAY)
            m.touch(db.id)
        print(f"{db.id[:8]} now has {m.get(db.id).use_count} uses")
        if settings.vault:
            step("index the person's notes")
            r = m.index_vault()
            print(f"{r['notes']} notes indexed")
        step("promote what earned it into the vault")
        promoted = m.promote(auto=True)
        for p in promoted:
            print(f"promoted {p.memory_id[:8]} → {p.path}")
        if promoted and settings.vault:
            print(f"\n--- {promoted[0].path} ---")
            text = (settings.vault / promoted[0].path).read_text(encoding="utf-8")
            print(text.rstrip())
            print("---")
            links = list(dict.fromkeys(WIKILINK.findall(text)))
            ok = [t for t in links if resolves(settings.vault, t)]
            print(f"wikilinks: {', '.join(f'[[{t}]]' for t in links) or 'none'}; {len(ok)} of {len(links)} resolve to a note")
        if settings.vault:
            step("index the vault's notes again, write the dashboard")
            r = m.index_vault()
            print(f"{r['notes']} notes indexed ({r['added']} new, {r['unchanged']} unchanged); "
                  f"dashboard: {m.dashboard()}")
        step('recall "which database did we choose?"')
        for h in m.recall("which database did we choose?", k=3):
            where = f" [{h.path}]" if h.path else ""
            print(f"{h.score:.4f} {h.tier}{where}  {h.content[:70]}")
        s = m.stats()
        step("stats")
        print(f"{s.memories} memories {s.by_status}, {s.uses} uses, {s.activity_days} activity days")
    print(f"\ndone in {time.perf_counter() - t0:.1f}s; everything is under {work}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(Path.cwd()))
