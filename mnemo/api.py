"""The engine interface every surface is written against, derived from its one declaration.

An operation is declared once, as a method of ``engine.Mnemo`` marked ``@operation``
(``operations.py``): its signature is the request, its return annotation the result. From
that declaration come

- ``REGISTRY``: name → ``operations.Operation`` (mutates, signature, return type, doc). The
  daemon serves exactly these (dispatch, argument check, ``GET /v1/operations``, the
  background queue) and the thin client (``client.RemoteMnemo``) builds its methods from them,
  decoding each result into the annotated type, so callers cannot tell the two apart;
- ``OPERATIONS``: name → whether it changes state, the view the daemon's queue needs;
- ``MnemoAPI``: the static type. It is an alias of ``Mnemo`` itself, not a Protocol: a Protocol
  has to list every method again by hand (the old one did, and ``save_many`` and ``ingest``
  drifted from the engine), and Python's type system cannot derive a Protocol from the marked
  subset of a class. The client is typed as the engine class for the checker
  (``client.RemoteMnemo``'s base under ``TYPE_CHECKING``), so mypy checks calls through either
  against the one declaration. The alias also shows ``Mnemo``'s few non-operations (``core``,
  ``settings``, ``now``, ``at``): a surface that may get the daemon's client calls only the
  registered operations, which ``tests/test_operations.py`` proves the client has, with the
  engine's signatures.

Add an operation by writing it on ``Mnemo`` with the mark, and every surface has it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TypeAlias

from .engine import Mnemo
from .operations import Operation, collect

REGISTRY: Mapping[str, Operation] = MappingProxyType(collect(Mnemo))

# Operations the daemon API serves (name → whether it changes state).
OPERATIONS: Mapping[str, bool] = MappingProxyType({name: op.mutates for name, op in REGISTRY.items()})

MnemoAPI: TypeAlias = Mnemo
