"""Fault injection for the crash tests (``tests/test_faults.py``); inert unless
``MNEMO_FAULT_KILL_AT`` is set when the process starts.

``point()`` sits just before each durable write: an SQLite commit (or an autocommitted
statement), a write to the vector index, a note's atomic replace and a note's removal. With
``MNEMO_FAULT_KILL_AT=N`` the process sends itself SIGKILL at the Nth point it reaches: no
``finally`` block, no ``atexit`` handler and no buffered write runs, exactly as with ``kill -9``
or a power cut between two writes. The tests draw N from a seeded random generator, so every
kill lands at a random write of an import, a promotion, a vault index or a dream run, yet each
trial can be replayed. ``MNEMO_FAULT_KILL_AT=0`` only counts (``passed``), which tells a test
how many points an operation has.

Unset (every normal run), ``point()`` is one attribute test and a return.
"""

from __future__ import annotations

import os
import signal

ENV = "MNEMO_FAULT_KILL_AT"

_setting = os.environ.get(ENV, "").strip()
armed = _setting.isdigit()
kill_at = int(_setting) if armed else 0
passed = 0


def point() -> None:
    """A write is about to happen: count it, and die here if this is the chosen one."""
    global passed
    if not armed:
        return
    passed += 1
    if passed == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
