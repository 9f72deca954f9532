"""Memory type from the text, by patterns (decision patterns after the Go MIRA seed).

Strict priority: decision > debug_log > preference > session_note > fact. Deterministic; the
pluggable judge can override it where one is configured.
"""

from __future__ import annotations

import re

from ..models import MemoryType

DECISION = [
    re.compile(r"\b(?:we|i|they|team|\w+)\s+(?:have\s+)?(?:decided|chose|chosen|selected|opted|agreed)\b", re.I),
    re.compile(r"\b(?:decision|choice|verdict)\s*:\s*\S", re.I),
    re.compile(r"\b(?:we|i)\s+(?:will|shall|are going to|'ll)\s+(?:use|adopt|go with|migrate to|switch to|take)\b", re.I),
    re.compile(r"\b(?:let'?s|we should)\s+(?:go with|use|adopt|stick with|switch to)\b", re.I),
    re.compile(r"\b(?:settled on|going forward we|from now on we)\b", re.I),
]
DEBUG = [
    re.compile(r"\b(?:traceback|stack ?trace|exception|segfault|errno|exit code|stderr)\b", re.I),
    re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b"),
    re.compile(r"\b(?:bug|crash(?:ed|es)?|failing test|fails? with|broke|regression|debugg?(?:ed|ing))\b", re.I),
    re.compile(r"\bline \d+\b|\.py:\d+|HTTP [45]\d\d\b", re.I),
]
PREFERENCE = [
    re.compile(r"\b(?:i|we|they|he|she|user)\s+(?:really\s+|much\s+|strongly\s+)?(?:prefer|like|love|enjoy|hate|dislike|want|favou?r|can't stand)s?\b", re.I),
    re.compile(r"\b(?:my|our|his|her|their) (?:favou?rite|preferred|go-to)\b", re.I),
    re.compile(r"\b(?:always|never) (?:use|do|write|put|want)\b", re.I),
    re.compile(r"\brather than\b|\binstead of\b", re.I),
]
SESSION = [
    re.compile(r"\b(?:today|this session|right now|currently|just now|earlier today|in this meeting|standup)\b", re.I),
    re.compile(r"\b(?:todo|next step|working on|wip|follow up)\b", re.I),
]


def classify(text: str) -> MemoryType:
    head = text[:4000]
    if any(p.search(head) for p in DECISION):
        return MemoryType.DECISION
    if any(p.search(head) for p in DEBUG):
        return MemoryType.DEBUG_LOG
    if any(p.search(head) for p in PREFERENCE):
        return MemoryType.PREFERENCE
    if any(p.search(head) for p in SESSION):
        return MemoryType.SESSION_NOTE
    return MemoryType.FACT
