"""Is a sentence a statement worth keeping, and what kind? From the parse and from examples.

Two signals, both cheap next to the embedding the write path computes anyway:

- **The parse** (spaCy): a sentence that asserts something about someone or something has a
  subject and a verb about it. Reactions, compliments and small talk have a shape of their own:
  an evaluation of "that / this / it / your X" ("That's so cool!", "Your store looks great"),
  praise of the addressee ("You'd be a great counselor"), an imperative or a wish ("Keep it
  up!", "Let's boogie!", "Can't wait!"), an interjection with a noun ("Wow, nice spot!"), an
  agreement ("I totally agree"). ``reaction`` spots these.
- **Examples** (``statement_examples.txt``: the train split of the hand-labelled conversations
  in tests/labelled/, never the held-out test split and nothing from LoCoMo): the MiniLM
  similarity of a sentence to its nearest statements minus that to its nearest chatter gives a
  ``margin`` (kept when >= ``extract.STATEMENT_THRESHOLD``), and a vote of its nearest labelled
  statements gives a type where the patterns of ``classify`` find none.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import numpy as np

from ..models import MemoryType

EXAMPLES = Path(__file__).with_name("statement_examples.txt")
K = 3  # neighbours averaged on each side of the margin
TYPE_K = 5  # neighbours voting for a type

_FIRST = frozenset({"i", "we", "my", "our", "me", "us", "mine", "ours", "myself", "ourselves"})
_DEMONSTRATIVE = frozenset({"that", "this", "it", "which", "what", "these", "those"})
_EVAL_VERBS = frozenset(
    {"is", "'s", "’s", "was", "are", "'re", "were", "be", "been", "looks", "look", "looked", "sounds", "sound", "sounded",
     "seems", "seem", "seemed", "feels", "feel", "felt", "means", "mean", "meant"}
)
_PRAISE_VERBS = _EVAL_VERBS | {"do", "doing", "did", "rock", "rocks", "got", "deserve", "deserves", "have", "'ve", "make", "made",
                               "go", "keep", "inspire", "inspired", "inspiring"}
_SOFT_VERBS = frozenset({"agree", "hope", "wish", "bet", "appreciate", "admire", "wait"})
_OPENERS = re.compile(
    r"^(?:let'?s|let’s|can'?t wait|cannot wait|gonna be|good luck|congrat\w*|glad\b|so glad|sorry|keep (?:it )?up|"
    r"way to go|well done|take care|talk (?:to you )?(?:soon|later)|see you|have (?:a|fun)|enjoy\b|stay\b|hang in|"
    r"thanks|thank you|totally|same here|me too|you too|happy (?:birthday|holidays|new year)|bless)",
    re.I,
)
_INTERJECTION = re.compile(r"^(?:wow|woah|whoa|aww+|oh|ooh|yay|omg|haha\w*|lol|ugh|yikes|ouch|oof|damn|dang|gosh|yeah|yes|yep|nice|cool|great|awesome)\b", re.I)


def reaction(sent: Any) -> bool:
    """Whether a parsed sentence reacts (evaluates, praises, wishes, agrees) rather than states."""
    toks = [t for t in sent if not (t.is_punct or t.is_space)]
    if not toks:
        return True
    text = sent.text.strip()
    if _OPENERS.match(text):
        return True
    named = any(e.label_ not in ("ORDINAL", "CARDINAL") for e in sent.ents)
    first = any(t.lower_ in _FIRST for t in toks)
    root = sent.root
    subj = next((t for t in root.children if t.dep_ in ("nsubj", "nsubjpass", "csubj")), None)
    complement = any(c.dep_ in ("acomp", "attr", "oprd", "ccomp", "xcomp") for c in root.children)
    adjective = any(c.dep_ == "acomp" or (c.dep_ in ("attr", "oprd") and c.pos_ == "ADJ") for c in root.children)
    if subj is None:
        if root.tag_ == "VB" and root.i == toks[0].i:
            return True  # imperative: "Check this out", "Believe in yourself"
        if root.pos_ in ("ADJ", "INTJ", "NOUN") and not first and not named:
            return True  # "Cool setup!", "Wow, nice spot!"
        return bool(_INTERJECTION.match(text)) and not first and not named and len(toks) < 6
    s = subj.lower_
    marks = {c.lower_ for c in subj.children if c.dep_ in ("det", "poss")}
    if _INTERJECTION.match(text) and len(toks) < 6 and not named:
        return True
    if first and root.lower_ in _SOFT_VERBS and not any(c.dep_ == "dobj" and c.pos_ in ("NOUN", "PROPN") for c in root.children):
        return True  # "I totally agree", "I hope so"
    if s == "you" or "your" in marks:
        return root.lower_ in _PRAISE_VERBS or adjective or not named
    if (s in _DEMONSTRATIVE or marks & _DEMONSTRATIVE) and root.lower_ in _EVAL_VERBS and complement and not named:
        # "That's so cool", "It was an awesome feeling"; but "It was a poetry reading where ..." states.
        attr = next((c for c in root.children if c.dep_ == "attr" and c.pos_ in ("NOUN", "PROPN")), None)
        if adjective:
            return True
        return attr is not None and len(toks) <= 7 and any(c.dep_ == "amod" for c in attr.children) and not first
    if s in ("they", "he", "she") and root.lower_ in _EVAL_VERBS and adjective and not named:
        return True
    return subj.pos_ == "VERB" and adjective and not first  # "Winning first place is amazing!"


def load_examples(path: Path = EXAMPLES) -> list[tuple[str, str]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            label, _, text = line.partition("\t")
            out.append((label, text))
    return out


class Prototypes:
    """The labelled examples embedded once per embedder."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        examples = load_examples()
        self.labels = np.array([label for label, _ in examples])
        vectors = np.asarray(embedder.embed([text for _, text in examples]), dtype=np.float32)
        chatter = self.labels == "chatter"
        self.chatter = vectors[chatter]
        self.statements = vectors[~chatter]
        self.statement_labels = self.labels[~chatter]

    def margin(self, vectors: np.ndarray) -> np.ndarray:
        """Mean similarity to the K nearest statements minus that to the K nearest chatter."""
        if not len(vectors):
            return np.zeros(0, dtype=np.float32)
        near_s = np.sort(vectors @ self.statements.T, axis=1)[:, -K:].mean(axis=1)
        near_c = np.sort(vectors @ self.chatter.T, axis=1)[:, -K:].mean(axis=1)
        return near_s - near_c

    def near(self, vector: np.ndarray, label: str, k: int = TYPE_K) -> bool:
        """Whether one of the ``k`` nearest labelled statements has ``label``."""
        idx = np.argsort(-(self.statements @ vector))[:k]
        return bool((self.statement_labels[idx] == label).any())

    def vote(self, vectors: np.ndarray) -> list[tuple[MemoryType, float]]:
        """The type most of the TYPE_K nearest labelled statements have, with its share."""
        out = []
        sims = vectors @ self.statements.T
        for row in sims:
            idx = np.argsort(-row)[:TYPE_K]
            weights: dict[str, float] = {}
            for i in idx:
                weights[self.statement_labels[i]] = weights.get(self.statement_labels[i], 0.0) + float(max(row[i], 0.0))
            label, w = max(weights.items(), key=lambda kv: kv[1])
            total = sum(weights.values()) or 1.0
            out.append((MemoryType(label), w / total))
        return out


_cache: dict[int, tuple[Any, Prototypes]] = {}
_lock = threading.Lock()


def prototypes(embedder: Any) -> Prototypes | None:
    """The examples for ``embedder``, or None when it has no semantics (the hash embedder)."""
    from .embedder import HashEmbedder

    if embedder is None or isinstance(embedder, HashEmbedder):
        return None
    with _lock:
        hit = _cache.get(id(embedder))
        if hit is None or hit[0] is not embedder:
            hit = (embedder, Prototypes(embedder))
            _cache[id(embedder)] = hit
        return hit[1]
