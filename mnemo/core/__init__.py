"""The core below the features: store, vector index, embedder, clock, settings and the one
write unit (see ``core.core`` and ``core.write``)."""

from .core import HOT, Core, Progress
from .write import Write, WriteUnit, vector_meta

__all__ = ["HOT", "Core", "Progress", "Write", "WriteUnit", "vector_meta"]
