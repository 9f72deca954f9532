"""Recall: candidates from BM25 (FTS5) and vectors (Chroma), fused by weighted reciprocal rank
fusion with intent weights (MIRA seed). See ``pipeline.py``."""
