"""Memory type from the text, by patterns (decision patterns after the Go MIRA seed).

Strict priority: decision > debug_log > preference > session_note > fact. A decision that
mentions a bug is still a decision (it records what was chosen); a preference stated while
debugging is rarer than a bug report that says "I want it to work". Deterministic and cheap
(regular expressions only), so the bulk write path can afford it; the pluggable judge can
override it where one is configured.
"""

from __future__ import annotations

import re

from ..models import MemoryType

_DECIDE_VERB = r"(?:decided|chose|chosen|selected|opted|agreed|picked(?!\s+up)|went with)"
DECISION = [
    re.compile(rf"\b(?:we|i|they|team|\w+)\s+(?:have\s+|had\s+|finally\s+)?{_DECIDE_VERB}\b", re.I),
    re.compile(r"\b(?:decision|choice|verdict|resolution)\s*:\s*\S", re.I),
    re.compile(r"\b(?:we|i)\s*(?:will|shall|are going to|'ll|’ll)\s+(?:use|adopt|go with|migrate to|switch to|move to|take|stick with|keep|drop|add|implement|introduce|remove|enable|disable|replace|pin|upgrade|downgrade|rewrite|deprecate|split|book|hire|buy|cancel|postpone|schedule|ship|release|launch|merge|revert|roll back|deploy|move)\b", re.I),
    re.compile(r"\b(?:let'?s|let’s|we should|we'll|we’ll)\s+(?:go with|use|adopt|stick with|switch to|migrate to|move to|keep|drop)\b", re.I),
    re.compile(r"\b(?:settled on|going forward we|from now on we|the plan is to|we're going with|we are going with)\b", re.I),
    re.compile(r"\b(?:decided|agreed)\s+(?:to|on|against|not to)\b", re.I),
    # A switch is a decision taken: "we switched the cache from Redis to Memcached".
    re.compile(r"\b(?:we|i|they|team)\s+(?:have\s+|finally\s+)?(?:switched|migrated|moved)\s+(?:\S+\s+){0,4}?(?:from|to|over to)\b", re.I),
]
DEBUG = [
    re.compile(r"\b(?:traceback|stack ?trace|exception|segfault|segmentation fault|errno|exit code|stderr|core dump)\b", re.I),
    re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b"),
    re.compile(r"\b(?:bug|crash(?:ed|es|ing)?|failing tests?|fails? with|failed with|broke|broken|regression|debugg?(?:ed|ing))\b", re.I),
    re.compile(r"\b(?:timed out|times out|timeouts|timeout errors?|deadlock(?:ed)?|memory leak|race condition|out of memory|OOM|null pointer|panicked|failed|failing|failures?)\b", re.I),
    re.compile(r"\bline \d+\b|\.py:\d+|\bHTTP [45]\d\d\b|\b(?:status|error) (?:code )?[45]\d\d\b", re.I),
]
PREFERENCE = [
    # First person and pronouns, any tense of the verb.
    re.compile(r"\b(?:i|we|they|he|she|user|users)\s+(?:(?:really|much|strongly|still|usually|now|also|generally|always|definitely|actually|mostly)\s+)*(?:prefer|like|love|enjoy|hate|dislike|want|favou?r|can't stand|cannot stand)s?\b", re.I),
    # A person's habit: "I use tabs", "I always use spaces" ("we use" is a team's fact).
    re.compile(r"\bi\s+(?:(?:always|usually|normally|mostly|generally|now)\s+)?use\b", re.I),
    # A named person or a role: "Alice prefers dark mode", "the client hates pop-ups".
    re.compile(r"\b\w+\s+(?:(?:really|strongly|still|usually|now|also|definitely|actually)\s+)*(?:prefers|likes|loves|enjoys|hates|dislikes|favou?rs|can't stand|cannot stand)\b", re.I),
    re.compile(r"\b(?:my|our|his|her|their|\w+'s)\s+(?:favou?rite|preferred|go-to)\b", re.I),
    re.compile(r"\b(?:always|never)\s+(?:use|do|write|put|want|wants|uses)\b", re.I),
    re.compile(r"\b(?:would|'d)\s+rather\b|\bis preferred\b", re.I),
]
SESSION = [
    re.compile(r"\b(?:today|tonight|this (?:session|morning|afternoon|week)|right now|currently|just now|earlier today|in this meeting|standup|stand-up)\b", re.I),
    re.compile(r"\b(?:todo|to-do|next steps?|working on|wip|follow up|follow-up|blocked on|picking up)\b", re.I),
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
