"""Lifecycle: what happens to a memory over time — reinforcement on use, promotion into the
vault, archival and cold storage, and the dream cycle. Decisions come from the pure functions
in ``scoring``; this package applies them to the store, the index and the vault."""
