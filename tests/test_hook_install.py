"""`mnemo hook install/uninstall` on real settings files: merged in, nothing else touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnemo.errors import InvalidInput
from mnemo.hooks.install import hook_command, install, settings_file, uninstall

from .conftest import invoke_main

# A settings file as a person keeps it: hooks of other tools (one on an event mnemo uses too),
# unrelated settings before and after, non-ASCII text, the client's two-space indentation.
ORIGINAL = """{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(npm run lint)",
      "Read(~/.zshrc)"
    ],
    "deny": []
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "~/bin/check-bash.sh",
            "timeout": 5
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "type": "command",
            "command": "echo 'Grüße from the team'"
          }
        ]
      }
    ]
  },
  "env": {
    "FOO": "bar"
  }
}
"""


def _hooks_of(data: dict, event: str) -> list:
    return data.get("hooks", {}).get(event, [])


def test_install_merges_twice_is_once_and_uninstall_restores_the_bytes(tmp_path: Path, home: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(ORIGINAL, encoding="utf-8")
    before = json.loads(ORIGINAL)

    r = install(path, home)
    assert r["added"] == ["SessionStart", "PreCompact", "SessionEnd"]
    after_text = path.read_text(encoding="utf-8")
    after = json.loads(after_text)
    # Every key in its place and order; every existing value byte-for-byte as it was.
    assert list(after) == list(before)
    for key in ("model", "permissions", "env"):
        assert json.dumps(after[key], indent=2, ensure_ascii=False) == json.dumps(before[key], indent=2, ensure_ascii=False)
    assert after["hooks"]["PreToolUse"] == before["hooks"]["PreToolUse"]
    assert after["hooks"]["SessionStart"][0] == before["hooks"]["SessionStart"][0]  # theirs first, untouched
    assert list(after["hooks"])[:2] == ["PreToolUse", "SessionStart"]
    ours = after["hooks"]["SessionStart"][1]["hooks"][0]
    assert ours == {"type": "command", "command": hook_command("session-start"), "timeout": 10}
    assert _hooks_of(after, "PreCompact")[0]["hooks"][0]["command"].endswith("mnemo hook pre-compact")
    # The file's own lines are kept verbatim: the original text is the new one minus the added lines.
    assert "Grüße" in after_text and after_text.startswith('{\n  "model": "opus",\n  "permissions": {')
    assert all(line in after_text.splitlines() for line in ORIGINAL.splitlines())

    again = install(path, home)
    assert again["changed"] is False and again["added"] == []
    assert path.read_text(encoding="utf-8") == after_text  # install twice == install once

    r = uninstall(path, home)
    assert r["restored"] is True and path.read_bytes() == ORIGINAL.encode("utf-8")
    assert uninstall(path, home)["changed"] is False  # nothing left to remove


def test_uninstall_after_a_hand_edit_removes_only_mnemos_entries(tmp_path: Path, home: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(ORIGINAL, encoding="utf-8")
    install(path, home, events=("session-start", "pre-compact", "session-end", "stop"))
    data = json.loads(path.read_text(encoding="utf-8"))
    data["theme"] = "dark"  # the person (or the client) changed the file since
    data["hooks"]["SessionEnd"][0]["hooks"].append({"type": "command", "command": "notify-send bye"})
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")

    r = uninstall(path, home)
    assert r["restored"] is False and sorted(r["removed"]) == ["PreCompact", "SessionEnd", "SessionStart", "Stop"]
    left = json.loads(path.read_text(encoding="utf-8"))
    assert left["theme"] == "dark"
    assert left["hooks"]["SessionEnd"] == [{"hooks": [{"type": "command", "command": "notify-send bye"}]}]
    assert "PreCompact" not in left["hooks"] and "Stop" not in left["hooks"]
    assert left["hooks"]["SessionStart"] == json.loads(ORIGINAL)["hooks"]["SessionStart"]
    assert "mnemo" not in path.read_text(encoding="utf-8")


def test_install_creates_the_file_and_uninstall_removes_it(tmp_path: Path, home: Path) -> None:
    path = tmp_path / "proj" / ".claude" / "settings.local.json"
    install(path, home)
    assert set(json.loads(path.read_text())["hooks"]) == {"SessionStart", "PreCompact", "SessionEnd"}
    assert uninstall(path, home)["restored"] is True and not path.exists()


@pytest.mark.parametrize("text", ['{"model": "opus",', "[1, 2]", '{"hooks": []}', '{"hooks": {"Stop": {"x": 1}}}'])
def test_malformed_settings_are_refused_and_left_alone(tmp_path: Path, home: Path, text: str) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidInput, match="not touching it"):
        install(path, home)
    assert path.read_text(encoding="utf-8") == text
    assert not (home / "hooks-installed.json").exists()


def test_cli_install_and_uninstall(tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "settings.json"
    path.write_text(ORIGINAL, encoding="utf-8")
    code, out, _ = invoke_main(capsys, "hook", "install", "claude-code", "--settings", str(path), "--stop", "--json")
    assert code == 0 and json.loads(out)["added"] == ["SessionStart", "PreCompact", "SessionEnd", "Stop"]
    # MNEMO_HOME was set explicitly (by the environment), so the hooks name it
    assert f"--home {home}" in json.loads(path.read_text())["hooks"]["Stop"][0]["hooks"][0]["command"]
    code, out, _ = invoke_main(capsys, "hook", "uninstall", "--settings", str(path))
    assert code == 0 and "restored" in out and path.read_text(encoding="utf-8") == ORIGINAL
    path.write_text("{oops", encoding="utf-8")
    code, _, err = invoke_main(capsys, "hook", "install", "claude-code", "--settings", str(path))
    assert code == 1 and "not valid JSON" in err and path.read_text() == "{oops"


def test_settings_file_scopes(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    assert settings_file("project", root / "src") == root / ".claude" / "settings.local.json"
    assert settings_file("user") == Path.home() / ".claude" / "settings.json"
