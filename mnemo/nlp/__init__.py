"""Language tools, each loaded lazily: the embedder (sentence-transformers), token counts
(tiktoken), named entities (spaCy). Importing this package imports none of them."""
