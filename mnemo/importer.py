"""``mnemo import FILE.jsonl``: one JSON object per line with the ``save`` fields.

All or nothing: every line is decoded and validated before anything is written; one bad line
(invalid UTF-8, malformed JSON, a bad field) stops the import with its line number and stores
nothing. Blank lines are skipped. Valid files are then saved in embedding batches.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import InvalidInput
from .models import ImportResult
from .save import save_many

if TYPE_CHECKING:
    from .core import Core, Progress

MAX_LINE_BYTES = 1024 * 1024
STREAM = 4096  # memories saved per slice of a big import
MAX_REPORTED = 5


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InvalidInput(f"no such file: {path}") from None
    except IsADirectoryError:
        raise InvalidInput(f"{path} is a folder, not a JSONL file") from None
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from exc
    items: list[dict[str, Any]] = []
    errors: list[str] = []
    raw = raw.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte order mark, as Windows editors write
    for lineno, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        if len(line) > MAX_LINE_BYTES:
            errors.append(f"line {lineno}: longer than {MAX_LINE_BYTES} bytes")
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            errors.append(f"line {lineno}: not valid UTF-8 (byte {exc.start + 1})")
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            errors.append(f"line {lineno}: malformed JSON ({exc.msg} at column {exc.colno})")
            continue
        except RecursionError:
            errors.append(f"line {lineno}: JSON nested too deeply")
            continue
        if not isinstance(obj, dict):
            errors.append(f"line {lineno}: expected a JSON object, got {type(obj).__name__}")
            continue
        obj["__line__"] = lineno
        items.append(obj)
    if errors:
        _fail(path, errors)
    return items


def _fail(path: Path, errors: list[str]) -> None:
    shown = "; ".join(errors[:MAX_REPORTED])
    more = f" (and {len(errors) - MAX_REPORTED} more)" if len(errors) > MAX_REPORTED else ""
    raise InvalidInput(
        f"{path}: {shown}{more}. Nothing was imported.",
        hint="fix the line(s) and import again; an import stores every line or none",
    )


def import_jsonl(core: Core, path: Path, progress: Progress | None = None, batch: int = 256) -> ImportResult:
    from .inputs import new_ids

    t0 = time.perf_counter()
    items = read_jsonl(path)
    errors: list[str] = []
    draft_ids: list[str] = []
    for item in items:
        lineno = item.pop("__line__")
        try:
            draft_ids.append(core.draft(item, f"line {lineno}: ")[0].id)
        except InvalidInput as exc:
            errors.append(exc.message)
    if errors:
        _fail(path, errors)
    new_ids(core.store, draft_ids)  # ids repeated in the file or taken: refused before anything is stored
    # Saved a slice at a time, each slice's drafts and results let go before the next: a big
    # import holds one slice of memories in memory, not the whole file (a daemon keeps its peak).
    ids: list[str] = []
    for start in range(0, len(items), STREAM):
        part = items[start : start + STREAM]
        items[start : start + STREAM] = [{}] * len(part)  # the slice's dicts go with it
        ids += [r.memory.id for r in save_many(core, part, progress=progress)]
    return ImportResult(saved=len(ids), ids=tuple(ids), seconds=time.perf_counter() - t0)
