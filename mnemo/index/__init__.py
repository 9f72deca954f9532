"""The search layer, and the derived indexes it searches.

Keyword search (BM25 over memories and note chunks, ``keywords``; its FTS5 SQL is the store's,
``store/fts.py``) and vector search (cosine in Chroma, ``vectors``) side by side, behind one
filter value (``filters.Filters``), which each side renders in its own dialect. ``chroma`` is the
vector index (embedded, or a server: ``server``). Everything here can be rebuilt from the
sources of truth."""
