"""Each public operation is declared once: a method of ``engine.Mnemo`` marked ``@operation``.

The mark records what every surface derives from that one declaration: the operation's name,
whether it changes state, its signature (the request: typed keyword parameters) and its return
annotation (the result: a ``models`` dataclass or a ``results`` TypedDict). ``collect`` reads
the marks off the class; ``api.REGISTRY`` is its result for ``Mnemo``, and the daemon's
dispatch, argument check and ``GET /v1/operations``, its background queue and the thin client
(``client.RemoteMnemo``) all read that registry. A method without the mark is not served;
``tests/test_operations.py`` fails when a public method of ``Mnemo`` has none.

Nothing of mnemo is imported here but ``wire`` (to evaluate annotations the way the client
decodes them), so the engine can import this module.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, TypeVar

from .wire import annotation_of

F = TypeVar("F", bound=Callable[..., Any])

MARK = "__mnemo_mutates__"  # the attribute the mark sets on the function: whether it changes state


def operation(*, mutates: bool) -> Callable[[F], F]:
    """Mark an engine method as a public operation; ``mutates``: it changes state (the daemon
    queues only those in the background, and reports it in ``GET /v1/operations``)."""

    def mark(func: F) -> F:
        setattr(func, MARK, mutates)
        return func

    return mark


@dataclass(frozen=True)
class Operation:
    """One declared operation: the unbound engine method and what is derived from it."""

    name: str
    mutates: bool
    function: Callable[..., Any]

    @cached_property
    def signature(self) -> inspect.Signature:
        """The request: the method's parameters without ``self`` (annotations as written)."""
        sig = inspect.signature(self.function)
        return sig.replace(parameters=list(sig.parameters.values())[1:])

    @cached_property
    def returns(self) -> Any:
        """The result type, evaluated (``wire.annotation_of``), for decoding JSON back into it."""
        return annotation_of(self.function, "return")

    def parameter_type(self, name: str) -> Any:
        """The evaluated annotation of one parameter (``wire.annotation_of``)."""
        return annotation_of(self.function, name)

    @property
    def reports_progress(self) -> bool:
        """Whether it takes a ``progress`` callback (the daemon then streams progress lines)."""
        return "progress" in self.signature.parameters

    @property
    def doc(self) -> str:
        return inspect.getdoc(self.function) or ""


def collect(cls: type) -> dict[str, Operation]:
    """The marked methods of ``cls`` (and its bases), in the order they are declared."""
    out: dict[str, Operation] = {}
    for klass in reversed(cls.__mro__):
        for name, value in vars(klass).items():
            mutates = getattr(value, MARK, None)
            if isinstance(mutates, bool):
                out[name] = Operation(name, mutates, value)
    return out
