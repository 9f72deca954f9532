"""Load a file of ``scripts/`` as a module, for the tests of the scripts (they are not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def load_script(name: str, module_name: str | None = None, *, reuse: bool = False) -> ModuleType:
    """``scripts/{name}.py`` executed as the module ``module_name`` (default ``name``), registered in
    ``sys.modules`` before it runs because its dataclasses look their module up. ``reuse`` returns a
    module already loaded under that name instead of running the file again."""
    module_name = module_name or name
    if reuse and module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
