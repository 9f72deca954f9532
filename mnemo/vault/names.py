"""Safe note names and vault-confined paths.

A title becomes a file name that every OS and Obsidian accept: no ``# | ^ : % [ ] / \\ < > " * ?``
(Obsidian breaks links on the first five, Windows refuses the rest), no control characters, no
leading dot (hidden, and skipped by sync tools), no trailing dot or space (Windows strips them),
never a Windows device name (``CON``, ``NUL``, ``COM1`` …), at most ``MAX_NAME_BYTES`` of UTF-8.

Every path mnemo touches goes through ``resolve_in_vault``: absolute paths and ``..`` that leave
the vault, symlinks that point out of it, dot folders and ``.obsidian`` are refused.
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path, PurePosixPath

from ..errors import UnsafePath

FORBIDDEN = '#|^:%[]/\\<>"*?'
_FORBIDDEN_RE = re.compile("[" + re.escape(FORBIDDEN) + r"\x00-\x1f\x7f]")
_SPACES = re.compile(r"\s+")
RESERVED = frozenset(
    {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)), *(f"LPT{i}" for i in range(1, 10))}
)
MAX_NAME_BYTES = 120  # well under the 255-byte limit of common file systems, leaving room for " (id)"
MD = ".md"


def safe_title(title: str, fallback: str = "Untitled") -> str:
    """A title that is also a safe file name stem (see the module docstring)."""
    text = unicodedata.normalize("NFC", str(title or ""))
    text = _FORBIDDEN_RE.sub(" ", text)
    text = _SPACES.sub(" ", text).strip()
    text = text.lstrip(". ").rstrip(". ")
    text = _truncate(text, MAX_NAME_BYTES).rstrip(". ")
    if not text:
        text = fallback
    head, dot, rest = text.partition(".")
    if head.strip().upper() in RESERVED:
        # Windows reserves the device name whatever follows the first dot: change that part.
        text = f"{head.strip()} note{dot}{rest}"
    return text


def _truncate(text: str, max_bytes: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    cut = data[:max_bytes].decode("utf-8", errors="ignore")
    # Prefer a word boundary when one is reasonably close.
    space = cut.rfind(" ")
    return cut[:space] if space > max_bytes // 2 else cut


def note_filename(title: str) -> str:
    return safe_title(title) + MD


def title_of(rel_path: str) -> str:
    """Obsidian's title of a note is its file name without ``.md``."""
    name = PurePosixPath(rel_path).name
    return name[: -len(MD)] if name.lower().endswith(MD) else name


def is_dot_path(rel: str) -> bool:
    return any(part.startswith(".") for part in PurePosixPath(rel).parts)


def _parts(rel: str) -> list[str]:
    # A backslash is a separator on Windows: treat it as one everywhere so ``..\\x`` cannot slip by.
    return [p for p in rel.replace("\\", "/").split("/") if p not in ("", ".")]


def vault_rel(vault: Path, path: str | Path) -> str:
    """The vault-relative POSIX path of ``path`` (absolute inside the vault, or relative).
    Raises UnsafePath for anything that would leave the vault."""
    p = str(path)
    if not p.strip():
        raise UnsafePath("an empty note path", hint="give a path inside the vault, e.g. Memories/Note.md")
    if "\x00" in p:  # the OS would refuse it with a ValueError, deep inside a path call
        raise UnsafePath("a note path with a NUL character", hint="give a path inside the vault, e.g. Memories/Note.md")
    root = Path(os.path.realpath(vault))
    if os.path.isabs(p) or re.match(r"^[A-Za-z]:[\\/]", p):
        absolute = Path(os.path.abspath(p))
        for base in (Path(os.path.abspath(vault)), root):
            try:
                rel = absolute.relative_to(base)
            except ValueError:
                continue
            return rel.as_posix()
        raise UnsafePath(f"{p} is outside the vault {vault}", hint="give a path inside the vault")
    parts = _parts(p)
    if not parts or ".." in parts:
        raise UnsafePath(f"{p!r} leaves the vault", hint="give a path inside the vault, without '..'")
    return "/".join(parts)


def resolve_in_vault(vault: Path, path: str | Path, *, write: bool = False) -> tuple[Path, str]:
    """(absolute path, vault-relative POSIX path) for a path that stays inside the vault, even
    after following symlinks. With ``write``, dot paths (``.obsidian``, ``.trash`` …) are refused
    too: mnemo never writes there."""
    rel = vault_rel(vault, path)
    parts = rel.split("/")
    if ".." in parts or not parts or parts == [""]:
        raise UnsafePath(f"{path!r} leaves the vault", hint="give a path inside the vault")
    if parts[0].lower() == ".obsidian" or (write and any(x.startswith(".") for x in parts)):
        raise UnsafePath(f"mnemo does not write to {rel}", hint="dot folders and .obsidian are off limits")
    root = os.path.realpath(vault)
    target = os.path.join(root, *parts)
    real = os.path.realpath(target)
    if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
        raise UnsafePath(f"{rel} resolves outside the vault (a symlink?)", hint="mnemo only works inside the vault")
    return Path(target), rel


def join_rel(folder: str, name: str) -> str:
    folder = "/".join(_parts(folder))
    return f"{folder}/{name}" if folder else name
