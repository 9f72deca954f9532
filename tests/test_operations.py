"""Each operation is declared once (``@operation`` on ``engine.Mnemo``), and everything that
serves or calls it is derived from that declaration: the in-process engine and the daemon's
client expose the same operations with the same signatures, the daemon serves exactly the
registered ones, and nothing public on the engine escapes the registry."""

from __future__ import annotations

import inspect
import typing
from pathlib import Path

import pytest

from mnemo import results
from mnemo.api import OPERATIONS, REGISTRY
from mnemo.client import RemoteMnemo
from mnemo.config import load_settings
from mnemo.daemon.server import Daemon
from mnemo.engine import Mnemo
from mnemo.errors import NotFound
from mnemo.nlp.embedder import HashEmbedder
from mnemo.operations import Operation, collect, operation
from mnemo.wire import _NO_HINT, decode

from . import test_daemon_api as api

daemon, client = api.daemon, api.client  # a real daemon (in this process) and its client

# Public methods of Mnemo that are not operations: opening, closing and the clock of a call.
NOT_OPERATIONS = {"open", "close", "now", "at"}


def _public_methods(cls: type) -> set[str]:
    return {name for name, value in vars(cls).items()
            if not name.startswith("_") and (callable(value) or isinstance(value, classmethod | staticmethod))}


def _shape(sig: inspect.Signature) -> tuple[object, ...]:
    return (tuple((p.name, p.kind, p.default, p.annotation) for p in sig.parameters.values()), sig.return_annotation)


@pytest.fixture
def local(tmp_path: Path):
    eng = Mnemo(load_settings(home=tmp_path / "local", overrides={"embedding.model": "hash-64"}), embedder=HashEmbedder(64))
    yield eng
    eng.close()


def test_every_public_engine_method_is_a_registered_operation() -> None:
    # Fails when an operation is added to Mnemo without @operation (the daemon would not serve
    # it, the client would not have it).
    unmarked = _public_methods(Mnemo) - set(REGISTRY) - NOT_OPERATIONS
    assert not unmarked, f"public methods of Mnemo without @operation: {sorted(unmarked)}"
    assert not NOT_OPERATIONS & set(REGISTRY)
    assert collect(Mnemo) == REGISTRY and dict(OPERATIONS) == {n: op.mutates for n, op in REGISTRY.items()}
    for name, op in REGISTRY.items():
        assert op.name == name and op.function is vars(Mnemo)[name]


def test_every_operation_has_a_decodable_request_and_result() -> None:
    for name, op in REGISTRY.items():
        assert op.returns is not _NO_HINT, f"{name}: its return annotation cannot be evaluated"
        for param in op.signature.parameters.values():
            assert param.annotation is not inspect.Parameter.empty, f"{name}({param.name}) has no annotation"
            assert param.kind is not inspect.Parameter.VAR_POSITIONAL, f"{name} takes *{param.name}: not sendable"
            if param.name != "progress":  # a callback is never sent
                assert op.parameter_type(param.name) is not _NO_HINT, f"{name}({param.name}): annotation unresolvable"


def test_client_and_engine_expose_the_same_operations_and_signatures(local: Mnemo, client: RemoteMnemo) -> None:
    for name in REGISTRY:
        here, there = inspect.signature(getattr(local, name)), inspect.signature(getattr(client, name))
        assert _shape(here) == _shape(there), f"{name}: engine {here} != client {there}"
    with pytest.raises(AttributeError):
        client.core  # noqa: B018 - not an operation: the client has no core
    for name in NOT_OPERATIONS - {"close"}:
        with pytest.raises(AttributeError):
            getattr(client, name)


def test_the_daemon_serves_exactly_the_registered_operations(daemon: Daemon, client: RemoteMnemo) -> None:
    # Fails when the dispatch serves something the engine does not declare, or misses one.
    served = client.operations()
    assert set(served) == set(REGISTRY)
    for name, listed in served.items():
        op = REGISTRY[name]
        assert listed["mutating"] is op.mutates and listed["streams_progress"] is op.reports_progress
        assert set(listed["params"]) == set(op.signature.parameters) - {"progress"}
        assert daemon._method(name).__func__ is op.function  # type: ignore[attr-defined]
    for name in ("close", "now", "at", "core", "open"):  # on the engine, but not operations
        with pytest.raises(NotFound):
            daemon._method(name)
        with pytest.raises(NotFound):
            client.call(name, {})


def test_the_request_is_checked_against_the_declared_signature(daemon: Daemon) -> None:
    from mnemo.errors import InvalidInput

    with pytest.raises(InvalidInput, match="bad arguments for save") as info:
        daemon._arguments("save", {"tags": ["x"]})
    assert info.value.hint == "save takes: content, tags, meta, fields"
    with pytest.raises(InvalidInput, match="bad arguments for save_many") as info:
        daemon._arguments("save_many", {"itmes": []})
    assert info.value.hint == "save_many takes: items, enrich"
    assert daemon._arguments("link", {"a": "x", "b": "y", "rel": "because", "weight": 2}) == {
        "a": "x", "b": "y", "rel": "because", "weight": 2}


def test_an_unmarked_method_is_not_collected() -> None:
    class Engine:
        @operation(mutates=True)
        def write(self, text: str) -> results.ReindexResult:
            raise AssertionError

        @operation(mutates=False)
        def read(self, key: str, limit: int = 5) -> int:
            raise AssertionError

        def helper(self) -> None:
            raise AssertionError

    found = collect(Engine)
    assert list(found) == ["write", "read"] and found["write"].mutates and not found["read"].mutates
    assert isinstance(found["read"], Operation) and list(found["read"].signature.parameters) == ["key", "limit"]
    assert not found["read"].reports_progress


def test_typed_results_decode_to_the_plain_dicts_they_came_as() -> None:
    typed = [op for op in REGISTRY.values() if typing.is_typeddict(op.returns)
             or any(typing.is_typeddict(a) for a in typing.get_args(op.returns))]
    assert len(typed) >= 20
    for op in typed:
        value = [{"any": 1, "keys": [2]}] if typing.get_origin(op.returns) is list else {"any": 1, "keys": [2]}
        got = decode(value, op.returns)
        assert got == value and type(got) is type(value), op.name
        if isinstance(value, list):
            assert type(got[0]) is dict


def test_no_operation_returns_an_untyped_dict() -> None:
    untyped = [name for name, op in REGISTRY.items()
               if op.returns in (dict, typing.Any) or typing.get_origin(op.returns) is dict
               and typing.get_args(op.returns)[1] is typing.Any
               or typing.get_origin(op.returns) is list and typing.get_origin(typing.get_args(op.returns)[0]) is dict]
    assert not untyped, f"operations returning dict[str, Any]: {untyped}"
