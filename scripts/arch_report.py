#!/usr/bin/env python3
"""Counts that tell how the package hangs together (the core issue's before/after figures).

Prints: modules whose functions take the façade (``Mnemo``), SQL sites outside ``store/``,
function-level imports, and the import circles (strongly connected components of more than one
module), once counting every import and once only those that run (``TYPE_CHECKING`` left out).

    .venv/bin/python scripts/arch_report.py [--root mnemo] [--json]
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

# SQL as this project writes it (upper-case keywords): the same pattern as the README's grep.
SQL = re.compile(r"\b(SELECT\b.*\bFROM|INSERT( OR \w+)? INTO|UPDATE \w+ SET|DELETE FROM|CREATE (TABLE|INDEX|VIRTUAL|TRIGGER|UNIQUE)"
                 r"|DROP (TABLE|INDEX|TRIGGER)|PRAGMA \w+|REPLACE INTO|ALTER TABLE|json_extract\(|MATCH \?)", re.S)


def module_name(root: Path, path: Path) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def resolve(mod: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def type_checking_nodes(tree: ast.Module) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else ""
            if name == "TYPE_CHECKING":
                for sub in node.body:
                    for n in ast.walk(sub):
                        out.add(id(n))
    return out


def analyse(root: Path) -> dict[str, object]:
    files = sorted(root.rglob("*.py"))
    mods = {module_name(root, f): f for f in files}
    edges_all: dict[str, set[str]] = {m: set() for m in mods}
    edges_run: dict[str, set[str]] = {m: set() for m in mods}
    facade_modules: set[str] = set()
    facade_functions = 0
    sql_sites: list[str] = []
    fn_imports = 0
    for mod, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        tc = type_checking_nodes(tree)
        is_pkg = path.name == "__init__.py"
        top = {id(n) for n in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                targets: list[str] = []
                if isinstance(node, ast.Import):
                    targets = [a.name for a in node.names]
                else:
                    base = resolve(mod, is_pkg, node)
                    targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
                for t in targets:
                    while t and t not in mods:
                        t = t.rpartition(".")[0]
                    if t and t != mod:
                        edges_all[mod].add(t)
                        if id(node) not in tc:
                            edges_run[mod].add(t)
                if id(node) not in top and id(node) not in tc:
                    fn_imports += 1
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not mod.endswith(".engine") and mod.split(".")[-1] != "engine":
                args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                if any(a.annotation is not None and "Mnemo" in ast.unparse(a.annotation).split(".")[-1].strip("'\"")
                       and "API" not in ast.unparse(a.annotation) for a in args):
                    facade_functions += 1
                    facade_modules.add(mod)
            elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.search(node.value)
                  and not (mod.endswith(".store") or ".store." in mod)):
                sql_sites.append(f"{path}:{node.lineno}")
    return {
        "modules": len(mods),
        "facade_functions": facade_functions,
        "facade_modules": sorted(facade_modules),
        "sql_sites_outside_store": sql_sites,
        "function_level_imports": fn_imports,
        "circles_all": [sorted(c) for c in scc(edges_all) if len(c) > 1],
        "circles_runtime": [sorted(c) for c in scc(edges_run) if len(c) > 1],
    }


def scc(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components (iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    out.append(comp)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent / "mnemo")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    r = analyse(args.root.resolve())
    if args.json:
        json.dump(r, sys.stdout, indent=2)
        print()
        return 0
    print(f"modules: {r['modules']}")
    print(f"functions taking the façade (Mnemo): {r['facade_functions']} in {len(r['facade_modules'])} modules")
    print(f"SQL sites outside store/: {len(r['sql_sites_outside_store'])} "
          f"in {len({s.rsplit(':', 1)[0] for s in r['sql_sites_outside_store']})} modules")
    print(f"function-level imports: {r['function_level_imports']}")
    for key, label in (("circles_all", "every import"), ("circles_runtime", "run-time imports")):
        circles = r[key]
        sizes = ", ".join(str(len(c)) for c in circles) or "none"
        print(f"import circles ({label}): {len(circles)} (sizes: {sizes})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
