"""mnemo: long-term memory for LLM assistants that lives beside an Obsidian vault.

``from mnemo import Mnemo`` is the library API; the CLI, the daemon and the MCP bridge are thin
layers over it. Heavy parts (models, Chroma) load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import MnemoError

if TYPE_CHECKING:
    from .engine import Mnemo

__all__ = ["Mnemo", "MnemoError"]
__version__ = "0.1.0"


def __getattr__(name: str) -> type:  # lazy, so `import mnemo` stays light
    if name == "Mnemo":
        from .engine import Mnemo

        return Mnemo
    raise AttributeError(name)
