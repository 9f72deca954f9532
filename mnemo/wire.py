"""The JSON form of core calls, shared by the daemon (encode results, decode arguments) and
its thin client (encode arguments, decode results).

Results are encoded with each value's ``to_dict`` (the frozen dataclasses of ``models``) and
decoded back into the type annotated on the core method, so a caller of the remote client
gets the same ``Memory``/``Hit``/... objects the in-process core returns. Standard library
and ``models`` only: thin clients import this.
"""

from __future__ import annotations

import json
import typing
from enum import Enum
from pathlib import PurePath
from typing import Any

# ``inspect`` and ``models`` are imported where they are used: a hook process encodes one
# request with ``dumps`` and must not pay ~40 ms for the dataclasses it never decodes.

_NO_HINT = object()

# The header that carries a caller's own time (``--now``/``MNEMO_NOW``) with one request: the
# daemon runs that request at it without moving its own clock.
NOW_HEADER = "X-Mnemo-Now"


def to_jsonable(value: Any) -> Any:
    """Plain JSON data for a result or an argument."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_jsonable(v) for v in value]
    if isinstance(value, PurePath):
        return str(value)
    if value is None or isinstance(value, str | int | float | bool):
        return value
    # numpy scalars and arrays without importing numpy here
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "item"):
        return value.item()
    return str(value)


def dumps(value: Any) -> bytes:
    return json.dumps(to_jsonable(value), ensure_ascii=False, allow_nan=False, default=str).encode("utf-8")


def annotation_of(func: Any, name: str) -> Any:
    """The evaluated annotation of parameter ``name`` (or ``"return"``) of ``func``, or
    ``_NO_HINT`` when there is none or it cannot be evaluated (e.g. a name imported only under
    TYPE_CHECKING): then the value passes through as plain JSON."""
    raw = getattr(func, "__annotations__", {}).get(name)
    if raw is None:
        return _NO_HINT
    if not isinstance(raw, str):
        return raw
    import sys

    from . import models

    module = sys.modules.get(getattr(func, "__module__", ""), None)
    namespace = {**vars(typing), **vars(models), **(vars(module) if module else {})}
    try:
        return eval(raw, namespace)  # noqa: S307 - our own annotation strings
    except Exception:  # noqa: BLE001
        return _NO_HINT


def decode(value: Any, annotation: Any) -> Any:
    """JSON data → the annotated type (dataclasses with from_dict, enums, lists/tuples of them);
    anything else (dicts, str, numbers) passes through unchanged."""
    if annotation is _NO_HINT or annotation is Any:
        return value
    from .models import _typed

    try:
        return _typed(value, annotation)
    except (TypeError, ValueError, KeyError):
        return value


def bind_arguments(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], bound_method: bool = False) -> dict[str, Any]:
    """Positional and keyword arguments → one keyword dict following ``func``'s signature
    (``**fields`` flattened in). Raises TypeError like a direct call would."""
    import inspect

    sig = inspect.signature(func)
    bound = sig.bind(*(() if bound_method else (None,)), *args, **kwargs)
    out: dict[str, Any] = {}
    for name, value in bound.arguments.items():
        param = sig.parameters[name]
        if name == "self":
            continue
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            out.update(value)
        elif param.kind is inspect.Parameter.VAR_POSITIONAL:
            raise TypeError(f"{func.__name__}() takes no variable positional arguments over the API")
        else:
            out[name] = value
    return out


def accepts(func: Any, name: str) -> bool:
    """Whether ``func`` takes a keyword ``name`` (explicitly)."""
    import inspect

    try:
        return name in inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
