"""The store: SQLite in ``MNEMO_HOME`` is the source of truth for short-term memories, their
links, every use (one row each, with its time), the activity days and the jobs journal.

Design:
- WAL mode, ``synchronous=NORMAL`` for throughput, but every acknowledged write is committed
  before the call returns, so a ``kill -9`` after an acknowledgement loses nothing.
- One connection guarded by a lock: the core is the only user and the daemon serves
  requests from several threads.
- Migrations are append-only and named; ``schema_migrations`` records which ran.
- The FTS5 table is derived data (BM25 over content and tags) kept in step with each write
  and rebuilt by ``reindex``.
"""

from .sqlite import Store

__all__ = ["Store"]
