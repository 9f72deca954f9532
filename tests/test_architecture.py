"""The import direction of the package (design.md §10): surfaces → façade → features → core →
models, nothing upward. Every import counts, the ones inside functions and under
``TYPE_CHECKING`` too: a feature that names ``Mnemo`` in an annotation depends on the façade as
much as one that calls it.

The layers, by module (the longest matching prefix decides):
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "mnemo"

ORDER = ("models", "core", "features", "facade", "surfaces")
LAYERS: dict[str, tuple[str, ...]] = {
    # plain values: no I/O, no mnemo imports beyond each other
    "models": ("mnemo.models", "mnemo.errors", "mnemo.results"),
    # the parts every feature works on: store (all SQL), index (FTS5 + Chroma), embedder and the
    # rest of nlp, pure scoring, clock, settings, validation of outside values, the write unit
    "core": (
        "mnemo.core", "mnemo.store", "mnemo.index", "mnemo.nlp", "mnemo.scoring", "mnemo.clock",
        "mnemo.config", "mnemo.lock", "mnemo.security", "mnemo.faults", "mnemo.progress", "mnemo.inputs",
        "mnemo.heap", "mnemo.wire",
    ),
    # what mnemo does, each taking a Core
    "features": (
        "mnemo.recall", "mnemo.lifecycle", "mnemo.graph", "mnemo.vault", "mnemo.sources", "mnemo.export",
        "mnemo.ingest", "mnemo.capture", "mnemo.save", "mnemo.importer", "mnemo.edit", "mnemo.doctor",
        "mnemo.judge", "mnemo.judge_extract", "mnemo.reindex", "mnemo.obsidian",
    ),
    # the public operations, and the helpers that drive them (through any MnemoAPI: in-process or
    # the daemon's client)
    "facade": (
        "mnemo", "mnemo.engine", "mnemo.api", "mnemo.operations", "mnemo.export.write",
        "mnemo.sources.run",
    ),
    # what people and clients talk to
    "surfaces": (
        "mnemo.cli", "mnemo.daemon", "mnemo.mcp_bridge", "mnemo.hooks", "mnemo.client", "mnemo.connect", "mnemo.setup",
        "mnemo.__main__",
    ),
}

__doc__ += "\n" + "\n".join(f"- {name}: {', '.join(LAYERS[name])}" for name in ORDER)


def layer_of(module: str) -> str | None:
    best: tuple[int, str] | None = None
    for name, prefixes in LAYERS.items():
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and (best is None or len(p) > best[0]):
                best = (len(p), name)
    return best[1] if best else None


def module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, module: str, known: set[str]) -> list[tuple[str, int]]:
    """(imported mnemo module, line) for every import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_pkg = path.name == "__init__.py"
    out: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names if a.name.split(".")[0] == "mnemo"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = module.split(".") if is_pkg else module.split(".")[:-1]
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base.split(".")[0] != "mnemo":
                continue
            for a in node.names:
                # ``from . import faults`` imports the module mnemo.faults, not the package
                out.append((f"{base}.{a.name}" if f"{base}.{a.name}" in known else base, node.lineno))
    return out


def upward_imports(root: Path = PACKAGE) -> tuple[list[str], list[str]]:
    files = sorted(root.rglob("*.py"))
    known = {module_of(f) for f in files}
    bad, unmapped = [], []
    for f in files:
        mod = module_of(f)
        here = layer_of(mod)
        if here is None:
            unmapped.append(mod)
            continue
        for target, line in imports(f, mod, known):
            there = layer_of(target)
            if there is not None and ORDER.index(there) > ORDER.index(here):
                bad.append(f"{f.relative_to(ROOT)}:{line}: {mod} ({here}) imports {target} ({there})")
    return bad, unmapped


def test_every_module_has_a_layer() -> None:
    _, unmapped = upward_imports()
    assert not unmapped, f"modules with no layer in tests/test_architecture.py: {unmapped}"


def test_no_import_points_upward() -> None:
    bad, _ = upward_imports()
    assert not bad, "imports against the layer order:\n" + "\n".join(bad)


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    """The check itself: a feature that imports the façade, even only for an annotation, fails."""
    pkg = tmp_path / "mnemo"
    (pkg / "recall").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "engine.py").write_text("class Mnemo: ...\n")
    (pkg / "recall" / "__init__.py").write_text("")
    (pkg / "recall" / "pipeline.py").write_text(textwrap.dedent("""
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from ..engine import Mnemo
    """))
    global ROOT
    saved = ROOT
    ROOT = tmp_path
    try:
        bad, _ = upward_imports(pkg)
    finally:
        ROOT = saved
    assert bad == ["mnemo/recall/pipeline.py:4: mnemo.recall.pipeline (features) imports mnemo.engine (facade)"]


def test_sql_lives_only_in_the_store() -> None:
    """No SQL text outside ``mnemo/store/`` (the README's Development section gives the same
    check as a grep)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import arch_report
    finally:
        sys.path.pop(0)
    sites = arch_report.analyse(PACKAGE)["sql_sites_outside_store"]
    assert not sites, "SQL outside mnemo/store/:\n" + "\n".join(sites)


@pytest.mark.skipif(sys.platform == "win32", reason="the grep of the README")
def test_readme_grep_finds_no_sql_outside_the_store() -> None:
    out = subprocess.run(
        ["grep", "-rnE", "--include=*.py", r"\b(SELECT|INSERT( OR [A-Z]+)? INTO|UPDATE [a-z_]+ SET|DELETE FROM|CREATE (TABLE|INDEX|VIRTUAL)|PRAGMA [a-z_]+)\b",
         "mnemo", "--exclude-dir=store"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert out.stdout == "", out.stdout
