"""``mnemo hook install claude-code`` / ``mnemo hook uninstall``: mnemo's hooks in the client's
settings file, merged in and taken out again without touching anything else.

Claude Code reads hooks from ``~/.claude/settings.json`` (``--user``) and, per project, from
``.claude/settings.json`` (shared through the repository) or ``.claude/settings.local.json``
(personal, ignored by git). ``--project`` writes the local one: the hook command names this
machine's Python, which means nothing on a teammate's machine. The shape is
``{"hooks": {"SessionStart": [{"matcher": ..., "hooks": [{"type": "command", "command": ...,
"timeout": ...}]}]}}``; mnemo appends one group per event, with no matcher (every source of
SessionStart, manual and automatic compaction).

Install:
- refuses a file that is not a JSON object, or whose ``hooks`` is not in the documented shape,
  and writes nothing then;
- appends, never reorders: every key, every existing hook group and every value stays where it
  was and as it was; a file already holding mnemo's command for an event is left alone, so
  installing twice changes nothing the second time;
- writes through a temporary file and a rename, after checking that the file did not change
  since it was read (nothing is clobbered), in the file's own indentation;
- remembers the file's original bytes in ``MNEMO_HOME/hooks-installed.json``.

Uninstall removes exactly mnemo's groups. If the file is still exactly what install wrote, the
original bytes come back as they were (the file is removed if install created it); if someone
changed it since, only mnemo's entries are taken out and their changes stay.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import re
import shlex
import sys
import uuid
from pathlib import Path
from typing import Any

from ..errors import ConflictError, InvalidInput
from .run import EVENTS

DEFAULT_EVENTS = ("session-start", "pre-compact", "session-end")  # `stop` runs after every reply: opt in
TIMEOUT = 10  # seconds the client lets one hook run (the hooks answer in well under one)
STASH = "hooks-installed.json"
OURS = re.compile(r"(?:^|[\s/])(?:mnemo|-m mnemo)(?:\s+--home\s+\S+)?\s+hook\s+(?:" + "|".join(EVENTS) + r")\b")


def settings_file(scope: str, cwd: str | Path | None = None) -> Path:
    """The client's settings file for ``user`` or ``project`` scope."""
    if scope == "user":
        return Path.home() / ".claude" / "settings.json"
    from ..capture import project_of

    return Path(project_of(cwd or Path.cwd())) / ".claude" / "settings.local.json"


def hook_command(event: str, home: str | Path | None = None) -> str:
    """The command the client runs: this interpreter, so it works outside any virtualenv."""
    parts = [sys.executable, "-m", "mnemo", *(["--home", str(home)] if home else []), "hook", event]
    return shlex.join(parts)


def _sha(data: bytes | None) -> str | None:
    return hashlib.sha256(data).hexdigest() if data is not None else None


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise InvalidInput(f"{path} is a folder, not a settings file") from None


def _parse(path: Path, data: bytes | None) -> dict[str, Any]:
    if data is None or not data.strip():
        return {}
    try:
        obj = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{path} is not UTF-8 text (byte {exc.start + 1}); not touching it") from None
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); not touching it",
                           hint="fix the file (or move it away), then install again") from None
    if not isinstance(obj, dict):
        raise InvalidInput(f"{path} is not a JSON object; not touching it")
    hooks = obj.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise InvalidInput(f"'hooks' in {path} is not an object; not touching it")
    for name, groups in (hooks or {}).items():
        if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
            raise InvalidInput(f"'hooks.{name}' in {path} is not a list of hook groups; not touching it")
    return obj


def _indent(text: str) -> int | str:
    m = re.search(r"\n([ \t]+)\S", text)
    if not m:
        return 2
    return len(m.group(1)) if set(m.group(1)) == {" "} else m.group(1)


def _dump(obj: dict[str, Any], like: bytes | None) -> bytes:
    text = like.decode("utf-8-sig") if like else ""
    out = json.dumps(obj, indent=_indent(text), ensure_ascii=False)
    if not text or text.endswith("\n"):
        out += "\n"
    return out.encode("utf-8")


def _write(path: Path, data: bytes | None, expected: str | None) -> None:
    """Replace ``path`` with ``data`` (None removes it) if it still hashes to ``expected``."""
    if _sha(_read(path)) != expected:
        raise ConflictError(f"{path} changed while mnemo was editing it; nothing was written", hint="run the command again")
    if data is None:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = 0o600
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        if _sha(_read(path)) != expected:
            raise ConflictError(f"{path} changed while mnemo was editing it; nothing was written", hint="run the command again")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


def _stash(home: Path) -> dict[str, Any]:
    try:
        data = json.loads((home / STASH).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save_stash(home: Path, stash: dict[str, Any]) -> None:
    from ..security import private_file

    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = home / STASH
    if not stash:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return
    tmp = path.with_name(f".{STASH}.{uuid.uuid4().hex[:8]}")
    tmp.write_text(json.dumps(stash, indent=1), encoding="utf-8")
    private_file(tmp)
    os.replace(tmp, path)


def _ours(hook: Any, commands: set[str]) -> bool:
    cmd = hook.get("command") if isinstance(hook, dict) else None
    return isinstance(cmd, str) and (cmd in commands or bool(OURS.search(cmd)))


def install(path: Path, home: Path, events: tuple[str, ...] = DEFAULT_EVENTS, command_home: str | None = None) -> dict[str, Any]:
    """Merge mnemo's hooks for ``events`` into the settings file at ``path``."""
    path = Path(path).expanduser()
    before = _read(path)
    obj = _parse(path, before)
    hooks = obj.setdefault("hooks", {}) if "hooks" in obj else None
    added: list[str] = []
    commands: dict[str, str] = {}
    for event in events:
        name = EVENTS[event]
        cmd = hook_command(event, command_home)
        commands[event] = cmd
        groups = (hooks or {}).get(name, [])
        if any(h.get("command") == cmd for g in groups for h in g.get("hooks", []) if isinstance(h, dict)):
            continue
        if hooks is None:
            hooks = obj["hooks"] = {}
        hooks.setdefault(name, []).append({"hooks": [{"type": "command", "command": cmd, "timeout": TIMEOUT}]})
        added.append(name)
    result = {"settings": str(path), "added": added, "changed": bool(added), "commands": commands}
    if not added:
        return result
    data = _dump(obj, before)
    _write(path, data, _sha(before))
    stash = _stash(home)
    entry = stash.get(str(path))
    if entry is None:
        entry = {"exact": True, "original": base64.b64encode(before).decode() if before is not None else None, "commands": []}
    elif entry.get("installed_sha") != _sha(before):
        entry["exact"] = False  # changed by hand since the first install: uninstall takes out only mnemo's entries
    entry["installed_sha"] = _sha(data)
    entry["commands"] = sorted(set(entry.get("commands", [])) | set(commands.values()))
    stash[str(path)] = entry
    _save_stash(home, stash)
    return result


def uninstall(path: Path, home: Path) -> dict[str, Any]:
    """Take mnemo's hooks out of the settings file at ``path``."""
    path = Path(path).expanduser()
    before = _read(path)
    stash = _stash(home)
    entry = stash.pop(str(path), None)
    result: dict[str, Any] = {"settings": str(path), "removed": [], "restored": False, "changed": False}
    if before is None:
        _save_stash(home, stash)
        return result
    obj = _parse(path, before)
    commands = set((entry or {}).get("commands", []))
    hooks = obj.get("hooks") or {}
    removed: list[str] = []
    for name in list(hooks):
        kept_groups = []
        for g in hooks[name]:
            inner = g.get("hooks", [])
            mine = [h for h in inner if _ours(h, commands)] if isinstance(inner, list) else []
            if not mine:
                kept_groups.append(g)
                continue
            removed.append(name)
            rest = [h for h in inner if not _ours(h, commands)]
            if rest:
                kept_groups.append({**g, "hooks": rest})
        if kept_groups:
            hooks[name] = kept_groups
        else:
            del hooks[name]
    if "hooks" in obj and not hooks:
        del obj["hooks"]
    result["removed"] = removed
    if entry is not None and entry.get("exact") and entry.get("installed_sha") == _sha(before):
        original = entry.get("original")
        _write(path, base64.b64decode(original) if original is not None else None, _sha(before))
        result.update(restored=True, changed=True)
    elif removed:
        _write(path, _dump(obj, before), _sha(before))
        result["changed"] = True
    _save_stash(home, stash)
    return result
