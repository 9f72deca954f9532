"""The statement filter's learned head: a linear score over a candidate's MiniLM vector and what
the parse and the conversation say of it.

A logistic regression (``scripts/train_statement.py``, scikit-learn at training time only) was
fitted on our own hand-labelled material, never on LoCoMo: the candidates ``extract.candidates``
makes of the labelled conversations of tests/labelled/ (the spent splits: train*.txt and
test.txt ... test10.txt), each labelled by the unit it states (chatter or not), and the
hand-written ``statement_examples.txt`` / ``statement_prototypes.txt`` sentences, each as a turn
of its own. Only its coefficients ship (``heads/statement.json``); here it is a dot product:
the training's standardisation is folded into them, so nothing is scaled at run time. The
columns that barely vary over the training rows (``train_statement.STD_FLOOR``: MiniLM's
dimensions 127, 223 and 319, constant up to rounding) weigh 0, so a score never hangs on the
embedder's rounding (another runtime, torch against ONNX).

The features beside the vector (``FEATURES``) are those the margin's rounds measured one at a
time as added weights: whether it reports anything at all (``statement.reports``: "Lunch was
nice today" evaluates, it does not report), the four kinds of evidence (``statement.kinds``), the content words new
to the conversation (``extract.content_words``), the turn's first-person words, whether the
parse called it a reaction (weighed instead of dropped when ``extract.REACTION_PENALTY`` is
finite), its length, a second-person memory, the form of its vector (with the speaker's name in
front or bare) and its type. Trained together with the vector, each weighs what the others
leave. Left out for want of examples: a question in the candidate's turn and the number of
sentences joined in it (in the labelled conversations, a turn is mostly one unit: under 1% of
the rows have either, against a fifth to a quarter of LoCoMo's candidates; the first, fitted on
ten rows, took the largest weight of all).
"""

from __future__ import annotations

import json
import math
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..models import MemoryType

if TYPE_CHECKING:
    from .extract import Candidate

HEAD = Path(__file__).with_name("heads") / "statement.json"

FEATURES = ("reports", "own", "when", "thing", "past", "novel", "self", "reacts", "words", "you", "named", "decision",
            "preference", "debug_log", "session_note")
_YOU = re.compile(r"\b(?:you|your|yours|yourself|you're|you've|you'd|you'll)\b", re.I)
_WORD = re.compile(r"[A-Za-z][\w'’-]*")
_TYPES = (MemoryType.DECISION, MemoryType.PREFERENCE, MemoryType.DEBUG_LOG, MemoryType.SESSION_NOTE)


def features(c: Candidate, named: bool) -> np.ndarray:
    """The candidate's features in ``FEATURES`` order; ``named``: its vector is of its text with
    the speaker's name in front."""
    from .statement import kinds, reports

    found = [kinds(s) for s in c.spans]
    ev = [any(k[i] for k in found) for i in range(4)]
    row = [any(reports(s) for s in c.spans), *ev, math.log1p(c.novel), math.log1p(c.self_refs), c.reacts, math.log1p(len(_WORD.findall(c.text))),
           bool(_YOU.search(c.text)), named, *(c.type == t for t in _TYPES)]
    return np.asarray(row, dtype=np.float32)


class Head:
    """A linear score: ``vector · w + features · u + bias`` (the log-odds that a candidate is a
    statement worth keeping, as trained)."""

    def __init__(self, vector_w: np.ndarray, feature_w: np.ndarray, bias: float, model: str) -> None:
        self.vector_w = vector_w
        self.feature_w = feature_w
        self.bias = bias
        self.model = model

    @classmethod
    def load(cls, path: Path | None = None) -> Head:
        path = path or HEAD
        raw = json.loads(path.read_text(encoding="utf-8"))
        names = tuple(raw["features"])
        if names != FEATURES:
            raise ValueError(f"{path}: trained on features {names}, this code computes {FEATURES}")
        return cls(np.asarray(raw["vector"], dtype=np.float32), np.asarray(raw["weights"], dtype=np.float32),
                   float(raw["bias"]), str(raw["model"]))

    def score(self, vectors: np.ndarray, feats: np.ndarray) -> np.ndarray:
        if not len(vectors):
            return np.zeros(0, dtype=np.float32)
        return np.asarray(vectors, dtype=np.float32) @ self.vector_w + np.asarray(feats, dtype=np.float32) @ self.feature_w + self.bias


_cache: dict[Path, Head | None] = {}
_lock = threading.Lock()


def head(embedder: Any, path: Path | None = None) -> Head | None:
    """The shipped head when it was trained on ``embedder``'s model; None otherwise, or when the
    file is missing or was trained on other features (the margin decides then:
    ``statement.Prototypes``)."""
    path = path or HEAD
    with _lock:
        if path not in _cache:
            try:
                _cache[path] = Head.load(path)
            except (OSError, ValueError, KeyError):
                _cache[path] = None
        h = _cache[path]
    if h is None or getattr(embedder, "name", None) != h.model:
        return None
    return h
