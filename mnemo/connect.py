"""How a surface gets an engine: the running daemon's client when one owns the home, else an
in-process engine holding the owner lock. Both implement ``api.MnemoAPI``."""

from __future__ import annotations

from typing import Any

from .clock import Clock, parse_time
from .config import Settings


def open_engine(settings: Settings, clock: Clock | None = None, embedder: Any = None) -> Any:
    from .engine import Mnemo

    if clock is None and settings.now:
        clock = Clock(parse_time(settings.now))
    return Mnemo(settings, clock=clock, embedder=embedder)
