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

if TYPE_CHECKING:
    from .engine import Mnemo, Progress

MAX_LINE_BYTES = 1024 * 1024
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


def import_jsonl(engine: Mnemo, path: Path, progress: Progress | None = None, batch: int = 256) -> ImportResult:
    t0 = time.perf_counter()
    items = read_jsonl(path)
    errors: list[str] = []
    for item in items:
        lineno = item.pop("__line__")
        try:
            engine._draft(item, f"line {lineno}: ")
        except InvalidInput as exc:
            errors.append(exc.message)
    if errors:
        _fail(path, errors)
    results = engine.save_many(items, progress=progress)
    return ImportResult(saved=len(results), ids=tuple(r.memory.id for r in results), seconds=time.perf_counter() - t0)
