"""Recall: from a query to the memories and notes that answer it, and to a prompt-sized block.

Design (design.md §6; the seeds give the numbers):

- ``query``      intent (BM25/vector weights), exact phrases, stopword-aware keyword queries
- ``filters``    tier, wing/room, type, layer, tags, status, time range
- ``candidates`` FTS5 BM25 and Chroma cosine over memories and vault note chunks
- ``keywords``   the BM25 side kept fast on big stores (filters after FTS5, common words pruned)
- ``fusion``     intent-weighted fusion of normalised scores (weighted RRF as a setting)
- ``neighbours`` conversation turns borrow relevance from the turns around them
- ``rerank``     relevance floor, retention/importance weight, near-duplicates, chunks per note
- ``expand``     typed links from the top hits, depth-limited and damped
- ``pipeline``   the steps in order, review blending, reinforcement (``touch``)
- ``budget``     the Go MIRA context budget allocator (CBA) and its render modes
- ``render``     memories and chunks as allocator items
- ``context``    ``mnemo context``: pinned, session notes, relevant, review sections

Nothing here writes unless the caller lets recall reinforce what it returns (``touch=True``).
"""
