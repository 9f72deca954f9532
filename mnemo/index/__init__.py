"""Derived indexes: Chroma for vectors (embedded or a server), SQLite FTS5 for BM25 (in the
store), and rank fusion. Everything here can be rebuilt from the sources of truth."""
