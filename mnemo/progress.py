"""Progress that keeps moving during long work.

A progress callback is called ``progress(n)`` when ``n`` more units are done, and
``progress(0, step)`` to say what is happening now (``click``'s bar shows the step beside
itself; the daemon streams it as ``{"progress": 0, "stage": step}``). Two things made a first
``vault index`` look hung: a one-time step (loading, or exporting the model to ONNX Runtime)
that reports nothing for up to a minute, and a batch of notes embedded in one call. So a step
is announced and re-announced every ``HEARTBEAT`` seconds while it runs, and texts are embedded
in slices sized to take about ``SLICE_SECONDS`` each, so the bar moves at least every second or
two whatever the machine's speed.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

Progress = Callable[..., Any]  # progress(n) or progress(0, "what is happening")
HEARTBEAT = 1.0  # seconds between re-announcements of a step that reports nothing itself
SLICE_SECONDS = 0.8  # aim per embedding slice: under the 2 s a bar may stand still, with room for a slower slice
FIRST_SLICE = 4  # texts in the first slice, before the rate is known
MAX_SLICE = 256


@contextmanager
def announced(progress: Progress | None, step: str, clock: Callable[[], float] = time.monotonic) -> Iterator[None]:
    """Say ``step`` now and again every ``HEARTBEAT`` seconds (with the time spent) until the
    block ends. The heartbeat runs on its own thread: the step itself is one blocking call."""
    if progress is None:
        yield
        return
    progress(0, step)
    stop = threading.Event()
    start = clock()

    def beat() -> None:
        while not stop.wait(HEARTBEAT):
            try:
                progress(0, f"{step} ({clock() - start:.0f} s)")
            except Exception:  # noqa: BLE001 - a gone client or a stopping daemon: the work itself decides
                return

    thread = threading.Thread(target=beat, name="mnemo-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def prepare_embedder(embedder: Any, progress: Progress | None) -> None:
    """Load (or, the first time, export) the embedding model under an announced step, so the
    one-time cost is named and the bar keeps moving while it is paid."""
    step = getattr(embedder, "setup_step", lambda: None)()
    if step is None:
        return
    with announced(progress, step):
        embedder.prepare()


def embed_in_slices(embed: Callable[[list[str]], np.ndarray], texts: Sequence[str],
                    on_slice: Callable[[int, int], None], clock: Callable[[], float] = time.monotonic) -> np.ndarray:
    """``embed(texts)`` in slices of about ``SLICE_SECONDS`` each, calling ``on_slice(done,
    total)`` after each one. The slice size follows the measured rate, so a slow machine gets
    small slices and a fast one big ones (which embed a little faster)."""
    texts = list(texts)
    out: list[np.ndarray] = []
    size, done = FIRST_SLICE, 0
    while done < len(texts):
        part = texts[done : done + size]
        started = clock()
        out.append(np.asarray(embed(part)))
        took = clock() - started
        done += len(part)
        on_slice(done, len(texts))
        per_text = took / len(part)
        size = MAX_SLICE if per_text <= 0 else max(1, min(MAX_SLICE, int(SLICE_SECONDS / per_text)))
    return np.concatenate(out) if out else np.zeros((0, 0), dtype=np.float32)
