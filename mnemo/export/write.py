"""Writing an export (client side: it reads the store through the engine interface, so it runs
the same in process and against the daemon).

- JSONL (``mnemo.export`` describes the records) to a file or to standard output. A file is
  written beside its final place and renamed into it when complete: an interrupted export never
  leaves a truncated file that looks finished.
- Markdown: one note per memory for people who leave, in a folder outside the vault (mnemo's
  own notes live in the vault already; a second copy there would be indexed as new notes)::

      OUT/
        index.md                       every memory: link, type, status, created
        decision/<title> (<id8>).md    one folder per memory type
        fact/…  preference/…  session_note/…  debug_log/…

  Each note has the memory's fields as YAML frontmatter (``id``, ``type``, ``layer``,
  ``status``, ``tags``, dates, ``uses``, ``pinned`` …), its content as the body, then ``## Links``
  (wikilinks to the other exported notes, with the link type) and ``## Uses`` (when it was
  used). The folder must be new or empty.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from ..errors import InvalidInput
from . import FORMAT, HEADER_KEY, HEADER_VALUE

FORMATS = ("jsonl", "markdown")
PAGE = 500

# progress(records written so far, total records)
Progress = Callable[[int, int], None]


def pages(engine: Any, page: int = PAGE) -> Iterator[dict[str, Any]]:
    after, done = 0, False
    while not done:
        got = engine.export_page(after=after, limit=page)
        yield got
        after, done = got["after"], got["done"]


def export(engine: Any, format: str = "jsonl", out: str | Path | None = None, stdout: IO[str] | None = None,  # noqa: A002
           vault: Path | None = None, progress: Progress | None = None) -> dict[str, Any]:
    """Export every memory as ``format`` to ``out`` (JSONL may go to ``stdout`` instead)."""
    t0 = time.perf_counter()
    if format not in FORMATS:
        raise InvalidInput(f"unknown export format {format!r}", hint=f"choose one of: {', '.join(FORMATS)}")
    if format == "markdown":
        if out is None:
            raise InvalidInput("a Markdown export needs a folder", hint="give --out FOLDER (outside the vault)")
        result = write_markdown(engine, Path(out), vault, progress)
    elif out is None:
        if stdout is None:
            raise InvalidInput("give a file to export to")
        result = write_jsonl(engine, stdout, progress)
    else:
        result = _jsonl_file(engine, Path(out), progress)
    return {"format": format, "out": str(out) if out is not None else "-", **result,
            "seconds": round(time.perf_counter() - t0, 3)}


def write_jsonl(engine: Any, fh: IO[str], progress: Progress | None = None) -> dict[str, int]:
    from ..clock import iso

    n = links = uses = 0
    total = 0
    tail: list[dict[str, Any]] = []
    for page in pages(engine):
        if "total" in page:
            total = page["total"]
            header = {HEADER_KEY: HEADER_VALUE, "format": FORMAT, "exported_at": iso(time.time()), "memories": total}
            fh.write(json.dumps(header, ensure_ascii=False) + "\n")
            tail += [{"record": "day", "day": d, "first_at": at} for d, at in page["days"]]
            tail += [{"record": "journal", "key": k, "value": v} for k, v in page["journal"]]
        for rec in page["memories"]:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
            n += 1
            links += len(rec["links"])
            uses += len(rec["uses"])
        if progress:
            progress(n, total)
    for rec in tail:
        fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return {"memories": n, "links": links, "uses": uses, "days": sum(1 for r in tail if r["record"] == "day")}


def _jsonl_file(engine: Any, out: Path, progress: Progress | None) -> dict[str, int]:
    out = out.expanduser()
    if out.is_dir():
        raise InvalidInput(f"{out} is a folder", hint="give a file name for the JSONL export, e.g. memories.jsonl")
    if not out.parent.is_dir():
        raise InvalidInput(f"no such folder: {out.parent}")
    tmp = out.with_name(f".{out.name}.{os.getpid()}.part")
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            result = write_jsonl(engine, fh, progress)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return result


# -- Markdown ---------------------------------------------------------------------------------
def write_markdown(engine: Any, out: Path, vault: Path | None, progress: Progress | None = None) -> dict[str, int]:
    from ..models import Memory
    from ..vault.names import safe_title
    from ..vault.render import title_for

    out = out.expanduser().resolve()
    if vault is not None:
        v = Path(vault).expanduser().resolve()
        if out == v or v in out.parents:
            raise InvalidInput(f"{out} is inside the vault ({v})",
                               hint="export to a folder outside the vault: mnemo's notes are in the vault already")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InvalidInput(f"{out} is not an empty folder", hint="give a new or empty folder, so nothing there is overwritten")
    # First pass: every memory's file name, so links can point at the notes they name.
    names: dict[str, str] = {}
    taken: set[str] = set()
    index: list[tuple[str, str, str, str, float]] = []
    total = 0
    for page in pages(engine):
        total = page.get("total", total)
        for rec in page["memories"]:
            m = Memory.from_dict(rec)
            name = f"{m.type.value}/{safe_title(title_for(m))} ({m.id[:8]})"
            if name.lower() in taken:  # two ids alike in their first 8 characters, same title
                name = f"{m.type.value}/{safe_title(title_for(m))} ({safe_title(m.id)})"
            taken.add(name.lower())
            names[m.id] = name
            index.append((m.id, names[m.id], m.type.value, m.status.value, m.created_at))
    out.mkdir(parents=True, exist_ok=True)
    n = links = 0
    for page in pages(engine):
        for rec in page["memories"]:
            path = out / f"{names[rec['id']]}.md"
            path.parent.mkdir(exist_ok=True)
            text, k = _note(rec, names)
            path.write_text(text, encoding="utf-8")
            n += 1
            links += k
            if progress:
                progress(n, total)
    (out / "index.md").write_text(_index(index), encoding="utf-8")
    return {"memories": n, "links": links, "notes": n + 1}


def _note(rec: dict[str, Any], names: dict[str, str]) -> tuple[str, int]:
    from ..clock import iso
    from ..vault.props import render_frontmatter

    props: dict[str, Any] = {
        "id": rec["id"], "type": rec["type"], "layer": rec["layer"], "status": rec["status"],
        "tags": rec["tags"], "created": iso(rec["created_at"]), "updated": iso(rec["updated_at"]),
        "last_used": iso(rec["last_used"]), "uses": rec["use_count"], "pinned": rec["pinned"],
        "importance": round(rec["importance"], 4), "strength": round(rec["strength"], 4), "source": rec["source"],
    }
    for key in ("wing", "room", "session_id", "note_path", "archived_at", "superseded_by", "duplicate_of"):
        if rec.get(key) is not None:
            props[key] = iso(rec[key]) if key == "archived_at" else rec[key]
    fp = rec.get("fingerprint") or {}
    if fp.get("entities"):
        props["entities"] = fp["entities"]
    if rec.get("meta"):
        props["meta"] = rec["meta"]
    body = [render_frontmatter(props), rec["content"].rstrip(), ""]
    shown = 0
    if rec["links"]:
        body += ["## Links", ""]
        for dst, rel, _origin, _weight, _at in rec["links"]:
            target = names.get(dst)
            body.append(f"- {rel}: [[{target.split('/', 1)[1]}]]" if target else f"- {rel}: {dst} (not exported)")
            shown += 1
        body.append("")
    if rec["uses"]:
        body += ["## Uses", ""]
        body += [f"- {iso(at)} ({kind})" for at, kind, _ in rec["uses"]]
        body.append("")
    return "\n".join(body), shown


def _index(rows: list[tuple[str, str, str, str, float]]) -> str:
    from ..clock import iso

    lines = ["# mnemo export", "", f"{len(rows)} memories, newest first.", "",
             "| memory | type | status | created |", "| --- | --- | --- | --- |"]
    for _id, name, mtype, status, created in sorted(rows, key=lambda r: -r[4]):
        stem = name.split("/", 1)[1].replace("|", "\\|")
        lines.append(f"| [[{stem}]] | {mtype} | {status} | {(iso(created) or '')[:10]} |")
    return "\n".join(lines) + "\n"
