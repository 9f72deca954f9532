"""Reading an export as a stream: the ``.zip`` as downloaded, the folder it unpacks to, or the
JSON file itself; the top-level array is parsed one element at a time (``ijson``, its C
backend), so memory stays flat however large the export.

``Tally`` wraps the byte stream and counts what the parser has consumed: that is the progress
a bar can show before the number of conversations is known.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from ..errors import InvalidInput
from . import Conversation, Seen, Skipped


class Tally:
    """A read-only byte stream that counts the bytes read through it."""

    def __init__(self, raw: IO[bytes], size: int, seen: Seen | None = None) -> None:
        self.raw, self.size, self.done, self.seen = raw, size, 0, seen

    def read(self, n: int = -1) -> bytes:
        data = self.raw.read(n)
        self.done += len(data)
        if self.seen is not None:
            self.seen(self.done, self.size)
        return data


@contextmanager
def open_export(path: Path, member: str = "conversations.json", seen: Seen | None = None) -> Iterator[Tally]:
    """The export's ``member`` as a counted byte stream, wherever it is: inside a ``.zip``
    (at any depth), in a folder, or ``path`` itself."""
    path = Path(path).expanduser()
    if path.is_dir():
        found = sorted(path.rglob(member), key=lambda p: len(p.parts))
        if not found:
            raise InvalidInput(f"no {member} in {path}", hint="give the export's .zip or its conversations.json")
        path = found[0]
    if not path.is_file():
        raise InvalidInput(f"no such file: {path}", hint="give the export's .zip as downloaded, or its conversations.json")
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as zf:
                names = [i for i in zf.infolist() if Path(i.filename).name == member and not i.is_dir()]
                if not names:
                    raise InvalidInput(f"{path.name} holds no {member}", hint="is this the data export's .zip?")
                info = min(names, key=lambda i: i.filename.count("/"))
                with zf.open(info) as raw:
                    yield Tally(raw, info.file_size, seen)
            return
        with path.open("rb") as raw:
            yield Tally(raw, path.stat().st_size, seen)
    except zipfile.BadZipFile as exc:
        raise InvalidInput(f"{path.name} is a damaged zip archive ({exc})", hint="download the export again") from None
    except PermissionError:
        raise InvalidInput(f"cannot read {path}: permission denied") from None


def items(stream: Tally, what: str = "conversation") -> Iterator[tuple[int, Any] | Skipped]:
    """The elements of the top-level JSON array, numbered from 1. A file that is not a JSON list
    is refused; malformed JSON further on ends the stream with one ``Skipped`` saying where
    (nothing after that point can be trusted, everything before it was read)."""
    import ijson

    n = 0
    head = _first_byte(stream)
    if head != b"[":  # not an export of this kind at all: an error, not a skipped entry
        shown = repr(head.decode("utf-8", "replace")) if head else "an empty file"
        raise InvalidInput(f"expected a JSON list of {what}s, found {shown} at the start",
                           hint="give the export's .zip as downloaded, or the conversations.json inside it")
    try:
        for n, item in enumerate(ijson.items(_Prefixed(head, stream), "item", use_float=True), start=1):  # noqa: B007
            yield n, item
    except ijson.JSONError as exc:
        yield Skipped(f"after {what} {n}", f"the JSON is malformed near byte {stream.done} ({_short(exc)}); the rest of the file was not read")
    except (UnicodeDecodeError, zipfile.BadZipFile, OSError) as exc:
        yield Skipped(f"after {what} {n}", f"the file cannot be read past byte {stream.done} ({_short(exc)})")


def _first_byte(stream: Tally) -> bytes:
    """The first byte that is not white space (or a UTF-8 byte order mark)."""
    while True:
        b = stream.read(1)
        if b in (b" ", b"\n", b"\r", b"\t", b"\xef", b"\xbb", b"\xbf"):
            continue
        return b


class _Prefixed:
    """``stream`` with ``head`` (already read) put back in front."""

    def __init__(self, head: bytes, stream: Tally) -> None:
        self.head, self.stream = head, stream

    def read(self, n: int = -1) -> bytes:
        if self.head and n != 0:  # ijson reads 0 bytes first to learn the stream's type
            data, self.head = self.head, b""
            return data
        return self.stream.read(n)


def _short(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text if len(text) <= 120 else text[:119] + "…"


def read_conversations(path: Path, parse: Callable[[Any, int], Conversation | Skipped],
                       seen: Seen | None = None) -> Iterator[Conversation | Skipped]:
    """An export whose ``conversations.json`` is a list of conversations, each one ``parse``d."""
    with open_export(path, seen=seen) as stream:
        for got in items(stream):
            yield got if isinstance(got, Skipped) else parse(got[1], got[0])


def identify(raw: Any, n: int, keys: tuple[str, ...]) -> tuple[str, str] | Skipped:
    """(the conversation's id from the first of ``keys`` it has, where it is for messages), or
    why the entry is not a conversation."""
    if not isinstance(raw, dict):
        return Skipped(f"conversation {n}", f"expected an object, got {type(raw).__name__}")
    cid = next((raw[k] for k in keys if raw.get(k)), None)
    where = f"conversation {n}" + (f" ({cid})" if isinstance(cid, str) else "")
    if not isinstance(cid, str) or not cid.strip():
        return Skipped(where, f"no {keys[0]}")
    return cid.strip(), where
