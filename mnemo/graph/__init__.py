"""The graph between memories (design.md §4; MIRA seeds: typed and causal links, both
directions, heal on read, sparse over dense).

- ``rules``: pure functions proposing causal, ``supersedes`` and ``conflicts`` links.
- ``enrich``: fingerprints, the entity index, ``shares_entity`` and ``was_context_for`` links,
  the enrichment queue for bulk writes.
- ``links``: links made and removed by hand. ``traverse``: chains, neighbourhoods, healing.
- ``db``: the SQL of the graph's tables.
"""
