"""``mnemo reindex --to URL|embedded``: move the vector index to a Chroma server, or back.

The vectors are copied, not re-embedded: the source index is read a page at a time (ids,
vectors, metadata) and written to the target under this home's collection names, for both
collections (``memories`` and the vault's ``chunks``). Re-embedding 100,000 memories takes
minutes on a laptop CPU; copying them takes seconds. Only when the source cannot be read (a
server that is gone, a damaged folder) are the memories re-embedded from the store, and the
note chunks are marked for the next vault index to re-embed.

Then the new place is recorded as ``index.chroma_url`` in ``MNEMO_HOME/config.toml`` (removed
for ``embedded``), so every later command and the daemon use it. The config edit is computed
and checked before anything moves; an ``MNEMO_INDEX_CHROMA_URL`` in the environment overrides
the file, and the result says so. The old index is left as it was (it is derived data: delete
``MNEMO_HOME/chroma`` or the server's collections when you no longer want them).
"""

from __future__ import annotations

import json
import os
import re
import tomllib
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, InvalidInput, StorageError
from .chroma_server import parse_url

if TYPE_CHECKING:
    from ..core import Core, Progress
    from .chroma import VectorIndex

EMBEDDED = ("embedded", "local")
COLLECTIONS = ("memories", "chunks")
ENV_VAR = "MNEMO_INDEX_CHROMA_URL"
_HEADER = re.compile(r"^\s*\[\s*index\s*\]\s*(#.*)?$")
_ANY_HEADER = re.compile(r"^\s*\[")
_KEY = re.compile(r"^\s*chroma_url\s*=")


def target_url(to: str) -> str | None:
    """The normalised server URL, or None for the embedded index."""
    text = (to or "").strip()
    if not text:
        raise InvalidInput("--to needs a Chroma server URL or 'embedded'", hint="e.g. --to http://127.0.0.1:8000")
    return None if text.lower() in EMBEDDED else parse_url(text).url


def describe(url: str | None, home: Path) -> str:
    return url or f"embedded ({home / 'chroma'})"


def move_index(core: Core, to: str, progress: Progress | None = None) -> dict[str, Any]:
    target = target_url(to)
    current = parse_url(core.settings.index.chroma_url).url if core.settings.index.chroma_url else None
    if target == current:
        raise InvalidInput(
            f"the index is already at {describe(target, core.home)}",
            hint="`mnemo reindex` (without --to) rebuilds it in place",
        )
    config_text = config_with_url(core.settings.config_file, target)  # fail before moving anything
    from .chroma import VectorIndex

    core.deferred_meta.flush(core)  # copy the metadata as the store has it
    with core.write_lock:
        source: VectorIndex | None
        try:
            source = core.index
            failure = None
        except StorageError as exc:  # the source is gone: re-embed from the store instead
            source, failure = None, exc.message
        if target is None:
            dest = VectorIndex(path=core.home / "chroma", batch=core.settings.index.batch)
        else:
            dest = VectorIndex(url=target, batch=core.settings.index.batch, prefix=core.index_prefix())
        try:
            if source is not None:
                _refuse_same_server(source, dest, target)
                counts = {name: copy_collection(source, dest, name, progress if name == "memories" else None)
                          for name in COLLECTIONS}
                method = "copied"
            else:
                counts = _reembed(core, dest, progress)
                method = "re-embedded"
        except BaseException:
            core.swap_index(None, expected=dest)
            dest.close()
            raise
        _write_config(core.settings.config_file, config_text)
        core.settings.index.chroma_url = target
        core.swap_index(dest)
        if source is not None:
            source.close()
    result: dict[str, Any] = {
        "from": describe(current, core.home),
        "to": describe(target, core.home),
        "method": method,
        **counts,
        "config": str(core.settings.config_file),
    }
    if failure:
        result["source_error"] = failure
    env = os.environ.get(ENV_VAR)
    if env is not None and (env.strip() or None) != target:
        want = f"{ENV_VAR}={target}" if target else f"unset {ENV_VAR}"
        result["note"] = f"{ENV_VAR} is set in the environment and overrides config.toml: {want}"
    return result


def copy_collection(source: VectorIndex, dest: VectorIndex, name: str, progress: Progress | None = None) -> int:
    """Copy every vector of ``name`` with its metadata; the target collection is replaced."""
    dest.drop(name)
    n = 0
    for page in source.entries(name, include=("embeddings", "metadatas")):
        metas = [m or {} for m in (page.get("metadatas") or [{}] * len(page["ids"]))]
        dest.upsert(name, page["ids"], page["embeddings"], metas)
        n += len(page["ids"])
        if progress:
            progress(len(page["ids"]))
    have = dest.count(name)
    if have != n:
        raise StorageError(f"copying {name!r} to {dest.where} stored {have} of {n} vectors",
                           hint="run the move again; the old index is untouched")
    return n


def _refuse_same_server(source: VectorIndex, dest: VectorIndex, target: str | None) -> None:
    """Two spellings of one server (``localhost`` and ``127.0.0.1``) share this home's
    collections: dropping the target's would drop the source."""
    if not (source.url and dest.url):
        return
    try:
        same = source.collection("memories").id == dest.client.get_collection(dest._name("memories")).id
    except Exception:  # noqa: BLE001 - absent on the target: a different server
        same = False
    if same:
        raise InvalidInput(f"{target} is the server the index is already on", hint="nothing to move")


def _reembed(core: Core, dest: VectorIndex, progress: Progress | None) -> dict[str, int]:
    core.swap_index(dest)
    n = core.rebuild_vectors(progress)
    core.store.kv_set("index.model_hash", core.embedder.model_hash)
    core.store.kv_set("index.dirty", "0")
    dest.drop("chunks")
    # The vault indexer re-embeds every chunk when the recorded model differs from the current.
    core.store.kv_set("vault.model_hash", "index-moved")
    return {"memories": n, "chunks": 0}


# -- config.toml ----------------------------------------------------------------------------------
def config_with_url(path: Path, url: str | None) -> str:
    """The text of ``config.toml`` with ``[index] chroma_url`` set to ``url`` (removed for None),
    every other line kept as written. Checked by parsing it back."""
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    value = f"chroma_url = {json.dumps(url)}\n" if url else None
    head = next((i for i, ln in enumerate(lines) if _HEADER.match(ln)), None)
    if head is None:
        if value:
            lines += (["\n"] if lines else []) + ["[index]\n", value]
    else:
        end = next((i for i in range(head + 1, len(lines)) if _ANY_HEADER.match(lines[i])), len(lines))
        key = next((i for i in range(head + 1, end) if _KEY.match(lines[i])), None)
        if key is not None:
            lines[key : key + 1] = [value] if value else []
        elif value:
            lines.insert(head + 1, value)
    new = "".join(lines)
    try:
        found = tomllib.loads(new).get("index", {}).get("chroma_url")
    except tomllib.TOMLDecodeError:
        found = "unreadable"
    if (found or None) != url:
        setting = f'[index] chroma_url = "{url}"' if url else "no [index] chroma_url"
        raise ConfigError(
            f"cannot record the index location in {path} automatically; nothing was moved",
            hint=f"edit it to have {setting}, or set {ENV_VAR}, then run the move again",
        )
    return new


def _write_config(path: Path, text: str) -> None:
    """Atomic and private (0600): the file may name a server on the network."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        try:
            os.write(fd, text.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
