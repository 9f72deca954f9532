"""Lifecycle: what happens to a memory over time — reinforcement on use, promotion into the
vault, archival and cold storage, and the dream cycle. Decisions come from the pure functions
in ``scoring``; this package applies them to the store, the index and the vault.

- ``reinforce``    a use (touch, recall, observe, restore): last use, use count, strength,
                   cross-domain boost, working → episodic after two uses
- ``assess``       measure a batch of memories against the store's clocks and score them;
                   ``explain`` lays every factor out
- ``eligibility``  which memories have earned a vault note (``promote --auto`` asks it)
- ``gc``           the forgetting pass: layer moves, archive, cold storage (never deletes)
- ``cold``         freezing to and warming from cold storage
- ``pin``          pinned memories are never forgotten
- ``review``       the spaced-repetition queue as the core serves it
- ``promote``      notes in the vault; ``dream`` the dream cycle
"""
