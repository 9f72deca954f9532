"""``Rows``: the base of the store's mixins (one per table family). It declares, for the type
checker only, the connection methods that ``sqlite.Store`` provides and every mixin uses, so
each mixin states just the other ``Store`` methods it calls."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from contextlib import AbstractContextManager


class Rows:
    if TYPE_CHECKING:
        def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[sqlite3.Row]: ...
        def query_in(self, sql: str, ids: Sequence[Any], size: int = 500) -> list[sqlite3.Row]: ...
        def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Cursor: ...
        def tx(self) -> AbstractContextManager[sqlite3.Connection]: ...
