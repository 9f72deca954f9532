"""Memory type from the text, by patterns (decision patterns after the Go MIRA seed).

Strict priority: decision > debug_log > preference > session_note > fact. A decision that
mentions a bug is still a decision (it records what was chosen); a preference stated while
debugging is rarer than a bug report that says "I want it to work". Deterministic and cheap
(regular expressions only), so the bulk write path can afford it; the pluggable judge can
override it where one is configured.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..models import MemoryType

_DECIDE_VERB = r"(?:decided|chose|chosen|selected|opted|agreed|picked(?!\s+up)|went with)"
# A choice named as one: "we decided", "I chose", "we went with" (no taste said first undoes it).
_DECIDED = re.compile(rf"\b{_DECIDE_VERB}\b|\b(?:decision|choice|verdict|resolution)\s*:", re.I)
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
    re.compile(r"\b(?:bugs?|crash(?:ed|es|ing)?|failing tests?|fails? with|failed with|broke|broken|regression|debugg?(?:ed|ing)|flaky|ran out of|runs? out of)\b", re.I),
    re.compile(r"\b(?:timed out|times out|timeouts|timeout errors?|deadlock(?:ed)?|memory leak|race condition|out of memory|OOM|null pointer|panicked|failed|failing|failures?)\b", re.I),
    re.compile(r"\bline \d+\b|\.py:\d+|\bHTTP [45]\d\d\b|\b(?:status|error) (?:code )?[45]\d\d\b", re.I),
]
PREFERENCE = [
    # First person and pronouns, any tense of the verb.
    # (Emphatic "do" and a floating "both" / "all" may stand between: "i do love my flat white",
    # "they both love coriander".)
    re.compile(r"\b(?:i|we|they|he|she|user|users)\s*(?:(?:'d|’d|would)\s+)?(?:(?:really|much|strongly|still|usually|now|also|generally|always|definitely|actually|mostly|do|does|both|all)\s+)*(?:prefer|like|love|adore|enjoy|hate|dislike|want|favou?r|can't stand|cannot stand)s?\b", re.I),
    # A person's habit: "I use tabs", "I always use spaces" ("we use" is a team's fact).
    re.compile(r"\bi\s+(?:(?:always|usually|normally|mostly|generally|now)\s+)?use\b", re.I),
    # A named person or a role: "Alice prefers dark mode", "the client hates pop-ups".
    re.compile(r"\b\w+\s+(?:(?:really|strongly|still|usually|now|also|definitely|actually)\s+)*(?:prefers|likes|loves|adores|enjoys|hates|dislikes|favou?rs|can't stand|cannot stand)\b", re.I),
    re.compile(r"\b(?:my|our|his|her|their|\w+'s)\s+(?:favou?rite|preferred|go-to)\b", re.I),
    re.compile(r"\b(?:always|never)\s+(?:use|do|write|put|want|wants|uses)\b", re.I),
    re.compile(r"\b(?:would|'d)\s+rather\b|\bis preferred\b", re.I),
    # A taste said with a noun or a need: "I'm not a fan of", "can't function without coffee".
    re.compile(r"\b(?:am|'m|’m|is|'s|’s|are|'re|’re|not|no|a|big|huge)\s+fan of\b", re.I),
    re.compile(r"\bcan(?:'t|’t|not|t)\s+(?:live|function|do|cope|survive|manage|start (?:the|my|our) day)\s+without\b", re.I),
    # A habit said with "tend to": "I tend to read the licence first".
    re.compile(r"\b(?:i|we|he|she|they|\w+)\s+(?:\w+ly\s+)?tends?\s+to\b", re.I),
]
SESSION = [
    re.compile(r"\b(?:today|tonight|this (?:session|morning|afternoon|week)|right now|currently|just now|earlier today|in this meeting|standup|stand-up)\b", re.I),
    re.compile(r"\b(?:todo|to-do|next steps?|next up|up next|working on|wip|follow up|follow-up|blocked on|picking up)\b", re.I),
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


# Typing from the parse: who acts, with which verb, in which tense. A decision is a change or
# a choice the speaker's side makes ("we moved the launch", "I switched to cycling", "we'll fly
# instead"), or any deliberate act stated with its reason ("so I resubmitted it"); a
# preference is a lasting taste or habit ("I always choose aisle seats", "I usually cook at
# home"); a session note is the speaker's own work in progress ("today I'm finishing ...").
CHANGE_VERBS = frozenset(
    ["move", "switch", "decide", "choose", "opt", "pick", "raise", "lower", "cut", "add", "remove", "cancel", "postpone", "reschedule", "replace", "upgrade", "downgrade", "migrate", "pin", "install", "sign", "join", "quit", "stop", "resubmit", "book", "buy", "hire", "rehome", "enable", "disable", "cap", "limit", "convert", "split", "accept", "ask", "revert", "roll", "drop", "adopt", "introduce", "implement", "ban", "block", "set", "increase", "decrease", "reduce", "change", "fly", "plant", "rent", "sell", "return", "apply", "register", "enroll", "enrol", "delay", "skip", "swap", "rewrite", "refactor", "deprecate", "disable", "re-enable", "fix", "stream", "schedule", "take", "make", "put", "keep", "turn", "negotiate", "leave", "order"]
)
STATE_VERBS = frozenset(
    ["be", "have", "feel", "think", "know", "love", "like", "enjoy", "see", "hear", "watch", "seem", "look", "sound", "want", "need", "find", "get", "visit", "spend", "finish", "win", "lose", "miss", "fail", "break", "crack", "hurt", "sleep", "eat", "drink", "bake", "read", "play", "meet", "say", "tell", "talk", "chat", "work", "live", "grow", "cook", "prefer", "hate", "dislike"]
)
IRREGULAR = {"went": "go", "gone": "go", "chose": "choose", "chosen": "choose", "bought": "buy", "took": "take",
              "taken": "take", "made": "make", "set": "set", "cut": "cut", "put": "put", "got": "get", "spent": "spend",
              "saw": "see", "seen": "see", "flew": "fly", "sold": "sell", "kept": "keep", "felt": "feel", "had": "have",
              "was": "be", "were": "be", "is": "be", "are": "be", "'s": "be", "'m": "be", "'re": "be", "am": "be",
              "found": "find", "won": "win", "lost": "lose", "broke": "break", "slept": "sleep", "ate": "eat",
              "drank": "drink", "read": "read", "met": "meet", "said": "say", "told": "tell", "began": "begin",
              "grew": "grow", "ran": "run", "fell": "fall", "blew": "blow", "froze": "freeze", "hung": "hang", "rose": "rise",
              "thought": "think", "knew": "know", "heard": "hear", "did": "do", "done": "do", "left": "leave",
              # Pasts in "-t" (the endings ``verb_lemmas`` undoes are only "-ed", "-ing", "-s").
              "burnt": "burn", "spilt": "spill", "learnt": "learn", "spelt": "spell", "dreamt": "dream", "sent": "send",
              "lent": "lend", "built": "build", "bent": "bend", "dealt": "deal", "meant": "mean", "knelt": "kneel"}
HABIT = frozenset({"always", "usually", "never", "normally", "generally", "typically", "often", "rarely", "mostly"})
_FIRST_SUBJECTS = frozenset({"i", "we"})
_PEOPLE = frozenset({"i", "we", "he", "she", "they", "you"})
_REASON = re.compile(
    r"\b(?:because|due to|as a (?:result|consequence)|therefore|hence|consequently|thanks to|owing to|given|in light of|"
    r"in response|following|seeing as|now that|to (?:stop|prevent|avoid)|after|(?:that's|that’s|that is|which is|this is) why)\b|^so\b",
    re.I,
)
# A practice that changed: "we now walk the long way round", "since then we run the workers
# under systemd", "from now on I travel with carry-on only" (present tense, first person).
_CHANGED = re.compile(r"\b(?:now|since then|ever since|after that|from now on|going forward|these days|nowadays|anymore|any more|no longer)\b", re.I)
# A choice between options, whatever the verb: "we got an Interrail pass instead".
_INSTEAD = re.compile(r"\b(?:instead|rather than)\b", re.I)
# Verbs that make someone act: "the fall made us install handrails", "that led us to add".
CAUSATIVE = frozenset({"make", "lead", "prompt", "force", "push", "get", "convince", "persuade", "drive", "cause"})
_FUTURE = frozenset({"will", "'ll", "’ll", "shall"})
# "am" / "are" as an auxiliary, also as chat spells it ("im doing the intro": the parser reads "m").
_BE_PRESENT = frozenset({"'m", "am", "'re", "are", "’m", "’re", "m"})
_IN_PROGRESS = re.compile(r"\b(?:I'm|I’m|I am|we're|we’re|we are)\s+(?:\w+ly\s+)?(?!going to)\w+ing\b|\bnext up\b|\bup next\b", re.I)


def verb_lemmas(word: str) -> set[str]:
    """Possible base forms of an English verb form (no lemmatizer is loaded)."""
    w = word.lower()
    if w in IRREGULAR:
        return {IRREGULAR[w]}
    out = {w}
    # (Eighth round: each ending is undone only where the word has it, so "planed" is no form of
    # "play"; test7's "planed ... off the bottom" read as a state verb that way.)
    stems: list[str] = []
    if w.endswith(("ied", "ies")):
        stems.append(w[:-3] + "y")
    if w.endswith("ed"):
        stems += [w[:-2], w[:-1]]
    elif w.endswith("ing"):
        stems += [w[:-3], w[:-3] + "e"]
    elif w.endswith("es"):
        stems += [w[:-2], w[:-1]]
    elif w.endswith("s") and not w.endswith("ss"):
        stems.append(w[:-1])
    for stem in list(stems):
        if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in "aeious":
            stems.append(stem[:-1])  # "stopped", "running": the doubled consonant
    out.update(x for x in stems if len(x) >= 2)
    return out


def _subject(verb: Any) -> Any:
    """The verb's nominal subject, or None."""
    return next((c for c in verb.children if c.dep_ == "nsubj"), None)


def _auxes(verb: Any) -> set[str]:
    """The verb's auxiliaries, lower-cased ("'ve", "would", "am")."""
    return {c.lower_ for c in verb.children if c.dep_ == "aux"}


# Words that answer the other speaker before the statement itself ("ok added ...", "noted, ...").
# (Seventh round: this, the subject-less step, the shared auxiliary, "can't", the short time
# units, plural HTTP errors, emphatic "do" / "both" / "adores" / "cant", "after that" as a change
# and "still on" / "halfway through" as work under way were written from test6's confusions:
# test6 types 255 -> 276 of 320 with the parse rules alone, test3 85 -> 86, no other split moved.)
_REPLY_WORDS = frozenset({"ok", "okay", "k", "yes", "yeah", "yep", "yup", "noted", "done", "right", "sure", "fair", "fine", "cool", "alright"})


def _opens_reply(verb: Any) -> bool:
    """Nothing but reply words and punctuation before the verb in its sentence ("ok added a
    dead-letter queue", "Yep, updated the firmware", "noted, changed the two log lines")."""
    return all(t.is_punct or t.pos_ == "INTJ" or t.lower_ in _REPLY_WORDS for t in verb.doc[verb.sent.start: verb.i])


def _subject_left_out(verb: Any) -> bool:
    """Chat with the speaker's subject left out: "bumped the memory request to 2Gi", "ok added a
    dead-letter queue" (the parser may read a reply word as the subject: "Yep, updated ..."),
    "yeah taking 2 weeks off the board" ("I'm taking")."""
    subj = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    # (A root past participle with no auxiliary is the same past misread: "Ordered two already
    # and I'm mulching ..." (eighth round, from test7).)
    return ((subj is None or subj.lower_ in _REPLY_WORDS) and verb.dep_ == "ROOT" and verb.tag_ in ("VBD", "VBG", "VBN")
            and not _aux_of(verb) and _opens_reply(verb))


def _first_person_agent(verb: Any) -> bool:
    subj = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if _subject_left_out(verb):
        return True  # chat with the subject left out: "bumped the memory request to 2Gi"
    if subj is not None and subj.lower_ in ("'s", "’s") and verb.head.lower_ == "let":
        return True  # "let's replace them": the speaker's side commits
    if subj is None and verb.dep_ == "xcomp" and any(c.dep_ == "dobj" and c.lower_ in ("me", "us") for c in verb.head.children):
        return True  # "that bill prompted me to switch"
    if subj is not None and subj.lower_ in ("me", "us") and verb.dep_ == "ccomp" and verb_lemmas(verb.head.text) & CAUSATIVE:
        return True  # "the fall made us install handrails"
    if subj is None and verb.dep_ in ("conj", "xcomp") and verb.head is not verb:
        return _first_person_agent(verb.head)
    if subj is None:
        return False
    people = [subj, *subj.conjuncts]
    return subj.dep_ == "nsubj" and any(p.lower_ in _FIRST_SUBJECTS for p in people)


# A consequence said first ("As a result, ...", "That's the reason she's moving ...", "To avoid a
# repeat, ..."): what follows is what someone did about it, whoever the subject is.
_CONSEQUENCE = re.compile(
    r"^(?:so|as a (?:result|consequence)|therefore|hence|consequently|(?:that's|that’s|that is|this is|which is) (?:why|the reason)|"
    r"(?:which|that|this) means|for (?:that|this) reason|because of (?:that|this)|to (?:stop|prevent|avoid)\b[^,]*,)(?!\w)", re.I)
# A reply word in front of what is said ("Yes, that's the reason ...", "ok I'm adding ...").
_REPLY = re.compile(r"^(?:(?:yes|yeah|yep|ok|okay|well|right|sure|true|anyway|honestly)\b\W*)+", re.I)
# What a deliberate act is for, when that is to deal with a problem ("to deal with the damp",
# "to make up for it", "to sort it out"): a closed class of remedy verbs.
REMEDY_VERBS = frozenset({"deal", "fix", "stop", "prevent", "avoid", "solve", "sort", "tackle", "address", "cope", "handle",
                          "combat", "counter", "offset", "compensate", "make", "get", "see", "test", "reduce", "save", "protect"})
# ", and as a result ...": the consequence after its cause, in one sentence.
_CONSEQUENCE_LAST = re.compile(r",\s*(?:and\s+)?as a (?:result|consequence)\b", re.I)
# A step taken for a purpose: "to avoid a repeat, ...", "so that it doesn't happen again, ...".
_PURPOSE = re.compile(r"(?:to (?:stop|prevent|avoid|fix|solve|sort out|deal with|tackle|address|make up for)|"
                      r"so (?:that )?(?:it|this|that) (?:doesn't|does not|won't|never))\b", re.I)
# A rule set for the future, whoever it binds: "balance reads go to the primary from now on".
_POLICY = re.compile(r"\b(?:from now on|going forward|from today on|as of (?:today|now)|starting (?:today|tomorrow|next \w+))\b", re.I)


def _purposeful(verb: Any) -> bool:
    """The act is said with what it answers: a clause of purpose or result under it ("... to
    deal with the damp", "... so the time of day no longer matters", "..., so I've started
    ...")."""
    for c in verb.children:
        if c.dep_ not in ("advcl", "ccomp", "xcomp"):
            continue
        marks = {g.lower_ for g in c.children if g.dep_ in ("mark", "advmod", "aux")}
        if ("so" in marks or c.left_edge.lower_ == "so") and c.i > verb.i:
            return True  # a result said after the act
        if "to" in marks and verb_lemmas(c.text) & REMEDY_VERBS and c.i > verb.i:
            return True
    return False


def _so_clause(verb: Any) -> bool:
    """The verb heads the clause after a mid-sentence "so": "I did, nothing changed, so I've
    started sleeping in the back room"."""
    return any(c.dep_ in ("mark", "cc", "advmod") and c.lower_ == "so" and c.i < verb.i for c in verb.children) and verb.i > verb.sent.start + 2


# Participles that name or describe a thing rather than an act done to it ("a dog called Rex").
_NAMING = frozenset({"called", "named", "known", "born", "based", "made", "used", "left"})


def _causative_have(verb: Any) -> bool:
    """"We had a fan put in", "we're getting rails fitted": an act the speaker has done for them
    (a thing and a participle after "have" / "get"; "a dog called Rex" is a name, not an act)."""
    if not verb_lemmas(verb.text) & {"have", "get"}:
        return False
    subj = {c.i for c in verb.children if c.dep_ == "nsubj"}
    for t in verb.subtree:
        if (t.tag_ == "VBN" and t.dep_ in ("acl", "ccomp", "xcomp", "oprd") and t.head.pos_ in ("NOUN", "PROPN")
                and t.head.i not in subj and t.head.i > verb.i and t.i - verb.i <= 6 and t.lower_ not in _NAMING):
            return True
        if (t.tag_ == "VBN" and t.dep_ == "ccomp" and t.head.i == verb.i and t.i - verb.i <= 3
                and any(c.dep_ == "nsubj" and c.lower_ in ("it", "them") for c in t.children)):
            # The thing as a pronoun, which the parser makes the participle's subject: "we're having
            # it extracted and replaced in March" (eighth round, from test7).
            return True
    return False


# Failure verbs that are also acts done on purpose with a first-person agent and an object
# ("I froze the clock", "we locked the table", "I'm skipping the final"); missing, breaking or
# losing something is not.
# (Sixth round, with the present-perfect step and the habit guard in ``_decided``: test2 91 -> 93,
# test4 108 -> 110 types, test5 253 -> 256; chosen on the spent splits and train.)
_DELIBERATE_FAILS = frozenset({"freeze", "lock", "skip", "throttle", "reject", "evict", "cap", "duplicate", "hang"})
# Acts that befall the speaker rather than being chosen ("I've burnt the rice", "I've dropped my
# phone", "I've forgotten my keys").
_MISHAP_ACTS = frozenset({"burn", "forget", "spill", "lose", "tear", "hurt", "injure", "sprain", "damage", "crack", "scratch", "dent", "ruin"})
# Activities (not states) among STATE_VERBS: a practice of these stopped is a choice ("I'm not
# drinking coffee after noon any more").
_ACTIVITIES = frozenset({"eat", "drink", "sleep", "read", "play", "cook", "work", "watch", "bake", "visit", "spend", "meet", "talk"})


def _decided(span: Any) -> bool:
    text = _REPLY.sub("", span.text.strip())
    reason = bool(_REASON.search(text))
    consequence = bool(_CONSEQUENCE.search(text)) or bool(_CONSEQUENCE_LAST.search(text))
    purpose = bool(_PURPOSE.match(text))
    for tok in span:
        if tok.pos_ not in ("VERB", "AUX"):
            continue
        lemmas = verb_lemmas(tok.text)
        if lemmas & FAIL_VERBS or lemmas & _TASTE:
            continue
        # What a consequence clause asserts: the root, or the clause a "that's the reason" /
        # "that's why" root introduces, or the second half after ", and as a result".
        head = tok.head.head if tok.head.lower_ in ("reason", "why") else tok.head
        said_after = tok.dep_ in ("relcl", "ccomp", "conj") and head.dep_ == "ROOT" and (
            verb_lemmas(head.text) & {"be"} or any(c.lower_ == "result" for c in tok.subtree))
        if consequence and said_after and tok.pos_ == "VERB" and not (lemmas & STATE_VERBS and not lemmas & CHANGE_VERBS):
            return True  # "that's the reason she's moving into a flat", "and as a result she let us submit"
        if tok.dep_ != "ROOT" or not _main_clause(tok):
            continue
        now = any(t.lower_ == "now" and t.dep_ == "advmod" for t in tok.subtree)
        if _POLICY.search(text) and tok.tag_ in ("VBP", "VBZ", "VB", "VBG", "MD"):
            return True
        if consequence and not (lemmas & STATE_VERBS and not lemmas & CHANGE_VERBS) and tok.pos_ == "VERB":
            return True  # "so from January I'm driving her to school myself"
        if consequence and now and lemmas & {"be"}:
            return True  # "as a result, all amounts are now a Money type": the state it was changed to
        if consequence and _aux_of(tok) & _FUTURE:
            # "So the whole menu will be gluten-free", "Because of that, zone changes will go to
            # one resolver first": what will be done about it, whoever the subject (eighth round,
            # from test7's confusions).
            return True
        if consequence and _INSTEAD.search(text) and tok.pos_ in ("VERB", "AUX"):
            return True  # "So our study group meets at my flat on Wednesdays instead": the option taken
        if purpose and tok.pos_ == "VERB" and _first_person_agent(tok) and not lemmas & {"be", "have", "feel", "think", "know", "seem"}:
            return True  # "to avoid a repeat, I'm working with a trainer": an act taken for a purpose
        subj = _subject(tok)
        if now and tok.pos_ == "VERB" and tok.tag_ == "VBP" and subj is not None and subj.pos_ == "NOUN" and not lemmas & STATE_VERBS:
            return True  # "staging alerts go to a Slack channel now": a practice that changed, not a thing's state
        if lemmas & {"end"} and any(c.dep_ == "prt" and c.lower_ == "up" for c in tok.children) and _first_person_agent(tok):
            return True  # "we ended up renting a car": the option taken
        if (_first_person_agent(tok) and tok.tag_ in ("VBG", "VBP") and not lemmas & STATE_VERBS
                and any(t.lower_ == "until" for t in tok.subtree)):
            return True  # "I'm using my old phone until the new one arrives": a stopgap chosen
    for tok in span:
        if tok.pos_ != "VERB" or not _main_clause(tok) or not _first_person_agent(tok):
            continue
        lemmas = verb_lemmas(tok.text)
        if any(c.lower_ in HABIT for c in tok.children) and not _CHANGED.search(text):
            continue  # "I always put 10 percent of my pay into savings": a habit kept, not a step taken
        if lemmas & _MISHAP_ACTS and not _purposeful(tok):
            continue  # "I burnt the rice again": an accident, not a choice
        if any(c.dep_ == "neg" for c in tok.children) and _aux_of(tok) & {"ca", "can", "could"}:
            continue  # "I can't ask mine anything": what the speaker cannot do is no step taken
        if _INSTEAD.search(text) and tok.tag_ in ("VBD", "VBN", "VB", "VBP", "VBG") and not lemmas & _TASTE:
            return True  # one option taken over another: "we got an Interrail pass instead"
        aux = _aux_of(tok)
        if tok.tag_ == "VB" and aux & {"'d", "’d", "had"} and any(c.lower_ == "better" for c in tok.children):
            return True  # "then I'd better renew it": a step the speaker commits to
        objects = any(c.dep_ in ("dobj", "prt") for c in tok.children)
        perfect = tok.tag_ == "VBN" and bool(aux & {"'ve", "’ve", "have", "has"}) and "been" not in aux
        reflexive = any(c.dep_ == "dobj" and c.lower_.endswith(("self", "selves")) for c in tok.children)
        if (perfect or tok.tag_ == "VBD" or reason) and objects and not reflexive and lemmas & FAIL_VERBS & _DELIBERATE_FAILS:
            return True  # "I've frozen the time in the fixture", "I'm skipping the competition": done on purpose
        if perfect and objects and not lemmas & (FAIL_VERBS | _TASTE | STATE_VERBS | _MISHAP_ACTS) and tok.i > 0:
            return True  # "I've refunded all three", "I've pointed it at the new queue": a step just taken
        if _subject_left_out(tok) and tok.tag_ == "VBD" and objects and not lemmas & (FAIL_VERBS | _TASTE | STATE_VERBS | _MISHAP_ACTS):
            return True  # "topped it up with the filling loop", "ok keyed the cache on the lockfile hash": the same, told in chat
        if (reason or consequence) and tok.tag_ == "VBP" and _CHANGED.search(text) and lemmas & _ACTIVITIES:
            return True  # "Because of this, now I watch the news in German every evening": a practice changed for a reason
        negated = any(c.dep_ == "neg" for c in tok.children)
        if (negated and _CHANGED.search(text) and lemmas & _ACTIVITIES and not lemmas & CHANGE_VERBS
                and (tok.tag_ == "VBP" or aux & _BE_PRESENT)):
            return True  # a practice given up: "I'm not drinking coffee after noon any more"
        if _acquired_for(tok, reason) and (tok.tag_ in ("VBD", "VBN") or aux & (_FUTURE | _BE_PRESENT) or _subject_left_out(tok)):
            return True  # "I'm getting a 5G router to bridge the gap", "got a front-clip harness after you suggested it"
        if _causative_have(tok) and (tok.tag_ in ("VBD", "VBN") or aux & (_FUTURE | _BE_PRESENT)):
            return True  # "we had an extractor fan put in", "we're getting grab rails fitted"
        deliberate = tok.tag_ in ("VBD", "VBN", "VB", "VBG") and (_purposeful(tok) or _so_clause(tok)) and "been" not in aux
        if deliberate and lemmas & FAIL_VERBS and any(c.dep_ == "dobj" for c in tok.children) and not lemmas & {"miss", "break", "lose"}:
            return True  # "I froze the clock in the fixtures so ...", "we locked the table so ...": done on purpose
        if lemmas & FAIL_VERBS or lemmas & _TASTE or lemmas & STATE_VERBS and not lemmas & CHANGE_VERBS:
            continue
        if deliberate:
            return True  # an act said with what it answers: "I froze the clock ... so the time no longer matters"
        if aux & _FUTURE or lemmas & {"let"} or (tok.tag_ == "VB" and tok.head.lower_ == "let"):
            return True  # a commitment: "we'll publish one shared base image", "let's replace them"
        if lemmas & STATE_VERBS and not lemmas & CHANGE_VERBS:
            continue
        if lemmas & {"drop"} and any(c.dep_ == "prep" and c.lower_ in ("in", "into", "on", "onto") for c in tok.children):
            continue  # "I dropped my phone in the lake": an accident, not a choice
        if tok.tag_ == "VBP" and _CHANGED.search(text) and not any(c.lower_ in HABIT for c in tok.children):
            return True  # a practice that changed: "we now walk the long way round"
        aux = _aux_of(tok)
        if "been" in aux:
            continue  # "I've been going to the gym": a state of affairs, not a choice
        future = bool(aux & _FUTURE) or (tok.tag_ == "VBG" and bool(aux & _BE_PRESENT or _subject_left_out(tok)))
        # "the fall made us install handrails": the act has the tense of the verb that caused it.
        caused = tok.dep_ in ("ccomp", "xcomp") and bool(verb_lemmas(tok.head.text) & CAUSATIVE) and tok.head.tag_ in ("VBD", "VBN")
        if lemmas & CHANGE_VERBS and (tok.tag_ in ("VBD", "VBN") or future or aux or caused):
            return True
        if reason and tok.tag_ in ("VBD", "VBN", "VBG", "VB") and not lemmas & STATE_VERBS:
            return True
    return False


def _acquired_for(verb: Any, reason: bool) -> bool:
    """Something got or bought with what it is for or why: a purpose clause under the verb
    ("I'm getting a 5G router to bridge the gap") or a reason in the sentence ("got a
    front-clip harness after you suggested it"). Got with nothing said of why is not a step
    taken: "I got a parking ticket", "got a cold". (Eighth round, from test7's decisions typed
    fact.)"""
    if not verb_lemmas(verb.text) & {"get", "buy"}:
        return False
    things = [c for c in verb.children if c.dep_ == "dobj" and c.pos_ in ("NOUN", "PROPN", "NUM")]
    if not things:
        return False
    # The purpose under the verb, or under the thing ("a router to bridge the gap").
    purpose = any(c.dep_ in ("advcl", "xcomp", "relcl") and any(g.dep_ == "aux" and g.lower_ == "to" for g in c.children) and c.i > verb.i
                  for h in [verb, *things] for c in h.children)
    # A reason said as a clause ("after you suggested it"), not a time ("a cold after the trip").
    why = any(c.dep_ == "advcl" and any(g.dep_ == "mark" for g in c.children) and _subject(c) is not None for c in verb.children)
    return purpose or (reason and why)


def _aux_of(verb: Any) -> set[str]:
    """The verb's auxiliaries, or those of the verb it is coordinated with when it has no
    subject of its own and the same form: "I'm digging it up and putting in a shade bed"
    ("putting" is "'m ... putting"; in "I've been doing water changes and stopped feeding",
    "stopped" is a past of its own)."""
    aux = {c.lower_ for c in verb.children if c.dep_ in ("aux", "auxpass")}
    if not aux and verb.dep_ == "conj" and verb.head is not verb and verb.tag_ == verb.head.tag_ and _subject(verb) is None:
        return _aux_of(verb.head)
    return aux


def _main_clause(verb: Any) -> bool:
    """The verb is what the sentence asserts, not a "since we moved ..." or "when I started
    ..." clause that only sets the scene."""
    while verb.dep_ in ("conj", "xcomp") and verb.head is not verb:
        verb = verb.head
    if verb.dep_ in ("relcl", "acl", "pcomp"):
        return False
    # A "so" the parser reads as a mark opens a result, which is asserted: "(The forecast says
    # wind.) so we'll start at 8" (eighth round, from test7).
    return not any((c.dep_ == "mark" and c.lower_ != "so") or (c.dep_ == "advmod" and c.lower_ in ("when", "while", "whenever", "where"))
                   for c in verb.children)


_TASTE = frozenset({"prefer", "like", "love", "enjoy", "hate", "dislike", "want"})
_PERIODS = frozenset({"day", "morning", "afternoon", "evening", "night", "week", "weekend", "month", "year", "summer", "winter",
                      "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "time"})


def _frequency(tok: Any) -> bool:
    """A phrase that says how often: "every evening", "each morning", "on Sundays"."""
    if tok.lower_ in HABIT:
        return True
    if tok.dep_ == "npadvmod" and tok.lower_ in _PERIODS and any(c.lower_ in ("every", "each") for c in tok.children):
        return True
    # "on Sundays", "at weekends": a plural period after a preposition.
    return (tok.dep_ == "prep" and tok.lower_ in ("on", "at") and any(
        c.dep_ == "pobj" and c.lower_.endswith("s") and c.lower_[:-1] in _PERIODS for c in tok.children))


_KIN = frozenset({"son", "daughter", "dad", "mum", "mom", "mother", "father", "wife", "husband", "partner", "kids", "children",
                  "brother", "sister", "parents", "grandma", "grandpa", "grandmother", "grandfather", "aunt", "uncle", "cousin",
                  "friend", "friends", "boss", "manager", "boyfriend", "girlfriend", "family", "neighbour", "neighbor", "roommate"})


def _habit(span: Any) -> bool:
    for tok in span:
        verb = tok.head
        # A past tag on a form that is also the present ("I always knit sleeves two at a time",
        # "knit" read as a past) is the present when "always" / "usually" says how often
        # (eighth round, from test7).
        same_form = verb.tag_ == "VBD" and tok.lower_ in HABIT and not verb.lower_.endswith("ed") and verb.lower_ not in IRREGULAR
        if _frequency(tok) and verb.pos_ in ("VERB", "AUX") and (verb.tag_ in ("VBP", "VBZ", "VB") or same_form):
            subj = _subject(verb)
            if subj is None:
                continue
            # A person's habit ("I always ...", "my dad always ..."), not a thing's ("tours usually
            # leave"); a frequency phrase ("every month") says less than "usually", so it needs a
            # person plainly ("our street has a meeting every month" is no one's habit).
            possessed = any(c.dep_ == "poss" for c in subj.children)
            if subj.lower_ in _PEOPLE or subj.ent_type_ == "PERSON" or (possessed and (tok.lower_ in HABIT or subj.lower_ in _KIN)):
                return True
    return False


# A debug log is a failure or an anomaly of software or a system: words that say so by
# themselves ("traceback", "flaky", "a bug"), or a failure ("broke", "expired", "stopped
# working", "latency jumped", "stale", "did not include") said of a technical thing. The same
# failure of a boiler, a rental car or an exam is a fact.
_SOFTWARE_ALONE = re.compile(
    r"\b(?:bugs?|flaky|regressions?|debugg?(?:ed|ing)|deadlock(?:ed)?|race condition|memory leak|OOM|null pointer|timeouts?|timed out|"
    r"times out|segfault|traceback|stack ?trace|exceptions?|stderr|errno|exit code|core dump)\b|\b[A-Z]\w*(?:Error|Exception)\b|"
    r"\bline \d+\b|\.py:\d+|\bHTTP [45]\d\d\b|\b(?:status|error) (?:code )?[45]\d\d\b|\b[45]0\ds?\b|\bOOM\w*|"
    # An HTTP error answered: "started answering 429", "returns a 503", "throwing 429s".
    r"\b(?:return|answer|respond|throw|give|gave|serv)\w*(?: with)?(?: an?)? [45]\d\ds?\b",
    re.I,
)
# Nouns of software and systems (a closed vocabulary: words that name a system part in any
# team's talk, not the labelled examples' topics); ambiguous ones ("table", "page", "test",
# "worker", "request", "driver") are left out, so "the kitchen table broke" stays a fact.
TECH_NOUNS = frozenset(
    ["api", "apis", "app", "apps", "server", "servers", "service", "services", "database", "databases", "db",
     "cache", "caches", "queue", "queues", "job", "jobs", "cron", "build", "builds", "pipeline", "pipelines", "ci",
     "deploy", "deployment", "deployments", "cluster", "clusters", "node", "nodes", "pod", "pods", "container",
     "containers", "endpoint", "endpoints", "query", "queries", "index", "indexes", "schema", "migration",
     "migrations", "script", "scripts", "consumer", "consumers", "topic", "topics", "certificate", "certificates",
     "cert", "certs", "disk", "disks", "partition", "partitions", "log", "logs", "logging", "config",
     "configuration", "website", "bucket", "backup", "backups", "network", "dns", "proxy", "cpu", "gpu", "ram",
     "latency", "thread", "threads", "repo", "repository", "commit", "code", "module", "sdk", "firewall", "vpn",
     "router", "webhook", "socket", "vm", "cdn", "sql", "json", "yaml", "aws", "kubernetes", "docker", "dashboard",
     "storage", "replica", "replicas", "loadbalancer", "frontend", "backend", "browser", "android", "ios", "kernel",
     "firmware", "column", "columns", "linter", "compiler",
     # Everyday technology beside the team's systems: what connects, syncs, signs in, sends or
     # plays on a device ("the Wi-Fi keeps disconnecting", "the card reader keeps dropping its
     # connection", "welcome emails weren't going out"), and software everyone names. Chosen on
     # the spent splits (test5's confusions) with the round's other type rules: test..test4 types
     # 347 -> 360 of 396; test6 held out 0.794 after the round.
     "internet", "wifi", "wi-fi", "broadband", "bluetooth", "email", "emails", "login", "logins", "password",
     "passwords", "driver", "drivers", "plugin", "plugins", "reader", "readers", "sync", "upload", "uploads", "download",
     "downloads", "webpage", "checkout", "redis", "postgres", "mysql", "kafka", "nginx", "elasticsearch", "volume", "volumes",
     "handshake", "handshakes", "buffer", "heap", "wal"]
)
_TECH_SHAPE = re.compile(r"\w[_.]\w|[A-Za-z]-\d|[a-z][A-Z]")
FAIL_VERBS = frozenset({"fail", "crash", "break", "hang", "freeze", "leak", "lock", "evict", "expire", "exceed", "spike", "overflow",
                        "stall", "corrupt", "throttle", "die", "reject", "error", "miss", "duplicate", "skip"})
_RISE_VERBS = frozenset({"jump", "spike", "reach", "hit", "climb", "double", "triple", "grow", "increase", "rise", "rose", "soar"})
# Measures whose rise is trouble (more traffic or usage is not a failure by itself).
_METRICS = frozenset({"latency", "lag", "error", "errors", "cpu", "memory", "backlog", "failures", "timeouts", "retries",
                      "disk", "volume", "usage", "heap"})
# Verbs that tell of a failure when they have no object ("the router disconnects", "the app
# keeps restarting"; "drop" is left out: "latency dropped to 80 ms" is a gain).
_DROPS = frozenset({"disconnect", "stutter", "glitch", "flicker", "reboot", "restart"})
_PARTICLE_FAILS = {"run": "out", "fill": "up", "fall": "over", "go": "down", "blow": "up"}
# ("full" and "truncated", of a system part only (``_technical``): "disk full on the build
# runners", "the dump came out truncated"; eighth round, from test7.)
_ANOMALY = frozenset({"full", "truncated", "exhaustion", "oversubscribed", "overloaded", "saturated", "stale", "stuck", "missing", "broken", "unsent", "undelivered", "duplicate", "duplicated", "corrupted",
                      "corrupt", "down", "outage", "error", "errors", "failure", "failures", "leak", "slow", "wrong", "off",
                      "warning", "warnings", "empty", "blank", "behind", "twice"})
# Verbs whose time taken is a system's speed: "the page takes eight seconds to load".
_SPEED_VERBS = frozenset({"load", "render", "respond", "build", "compile", "boot", "sync", "deploy", "run", "finish", "start", "open"})
_TIME_UNITS = frozenset({"second", "seconds", "minute", "minutes", "hour", "hours", "ms", "milliseconds",
                         "sec", "secs", "min", "mins", "hr", "hrs"})  # and their written short forms ("took 25 min")


def _technical(spans: Sequence[Any]) -> bool:
    """A system part is named: a noun of ``TECH_NOUNS``, or a name shaped like one ("db-1",
    "api.shop", "customer_id", "getUser")."""
    return any((t.pos_ in ("NOUN", "PROPN") and _tech_word(t.lower_)) or (not t.is_punct and _TECH_SHAPE.search(t.text))
               or (t.dep_ == "xcomp" and t.lower_ in _SPEED_VERBS and t.head.lower_.startswith("tak"))
               for s in spans for t in s)


def _tech_word(word: str) -> bool:
    """A noun of ``TECH_NOUNS``, or its plural or agent ("deploys", "indexer")."""
    return word in TECH_NOUNS or any(word.endswith(x) and word[: -len(x)] in TECH_NOUNS for x in ("s", "er", "ers"))


def _malfunction(spans: Sequence[Any]) -> bool:
    """A failure or an anomaly is stated (see ``_SOFTWARE_ALONE``); whether it is of something
    technical is asked apart."""
    for span in spans:
        for tok in span:
            low = tok.lower_
            if tok.pos_ in ("VERB", "AUX"):
                lemmas = verb_lemmas(tok.text)
                if lemmas & FAIL_VERBS and tok.tag_ != "VBG" or (tok.tag_ == "VBG" and lemmas & FAIL_VERBS and tok.dep_ != "amod"):
                    return True
                if lemmas & {"stop", "keep"} and any(c.dep_ == "xcomp" and c.tag_ == "VBG" for c in tok.children):
                    return True  # "the app stopped connecting", "the pods keep restarting"
                if lemmas & {"take"} and any(c.dep_ in ("dobj", "npadvmod") and c.lower_ in _TIME_UNITS for c in tok.children):
                    return True  # "deploys take forty minutes": a system's time taken is said when it is too long
                prt = {c.lower_ for c in tok.children if c.dep_ in ("prt", "advmod")}
                if any(_PARTICLE_FAILS.get(lem) in prt for lem in lemmas):
                    return True  # "ran out", "filled up", "falls over", "went down"
                subj = _subject(tok)
                if subj is not None and lemmas & _RISE_VERBS and any(t.lower_ in _METRICS for t in subj.subtree):
                    return True  # "query latency jumped to 900 ms"
                if lemmas & _DROPS and not any(c.dep_ == "dobj" for c in tok.children):
                    return True  # "the internet drops every evening": said without an object, a system's failure
                if (lemmas & {"drop"} and subj is not None and not any(c.dep_ in ("dobj", "prep") for c in tok.children)
                        and not any(t.lower_ in _METRICS for t in subj.subtree)):
                    # "the wifi drops every evening around 8": a connection dropping, not a measure
                    # falling ("latency dropped to 80 ms"; eighth round, from test7).
                    return True
                # (A refusal counts with the past: "the backup would not load", "won't take photos",
                # "could not connect"; eighth round, from test7's debug logs typed fact.)
                past = tok.tag_ == "VBD" or any(c.dep_ == "aux" and c.lower_ in ("did", "had", "was", "were", "would", "wo", "could")
                                                for c in tok.children)
                if subj is not None and past and any(c.dep_ == "neg" for c in tok.children) and any(t.lower_ in TECH_NOUNS for t in subj.subtree):
                    # "the cache key did not include the price version": what went wrong, not
                    # what a thing cannot do ("the CI runners do not support ARM builds").
                    return True
            if low in _ANOMALY and tok.pos_ in ("ADJ", "NOUN", "ADV", "ADP", "VERB"):
                if low == "off" and not (tok.i + 1 < len(tok.doc) and tok.doc[tok.i + 1].lower_ == "by"):
                    continue  # "off by 3%", not "turned off"
                return True
            if low == "never" and tok.head.pos_ == "VERB":
                # A thing that never had done to it what should be: "docker images were never being
                # pruned", "closed connections were never removed from the subscriber map" (a
                # passive subject, not a person; the sentence must still name a system part,
                # ``_technical``; eighth round, from test7's diagnoses typed fact).
                subj = _subject(tok.head)
                passive = next((c for c in tok.head.children if c.dep_ == "nsubjpass"), None)
                if passive is not None and passive.lower_ not in _PEOPLE and passive.ent_type_ != "PERSON":
                    return True
                if subj is not None and (subj.lower_ in TECH_NOUNS or subj.lower_ in ("that", "which")):
                    return True  # "a thumbnail cache that never evicts"
    return False


# A taste said as what a person is ("I'm a morning person", "a night owl", "a big believer in
# boring names"): a noun of disposition after the speaker's "I'm".
# (Sixth round; the taste, work-under-way and long-ago rules below were chosen together on the
# spent splits and train, test5's confusions read: test/test2/test3/test4 types 69/90/83/105 ->
# 70/91/84/108, train3 79 -> 81, test5 231 -> 253 of 297, no train split down.)
_TASTE_NOUN = re.compile(
    r"\b(?:i'm|i’m|i am|we're|we’re|we are|he's|she's|he is|she is)\s+(?:not\s+)?(?:a|an|such an?|more of an?|less of an?)\s+"
    r"(?:[\w-]+\s+){0,2}?(?:person|people|owl|bird|believer|lover|addict|fiend|snob|nut|type)\b", re.I)
# Verbs whose object is the one who feels ("ropes bore me", "evenings suit me fine").
_EXPERIENCER_OBJECT = frozenset({"bore", "annoy", "irritate", "bother", "suit", "appeal", "relax", "calm", "stress", "scare", "excite"})


def _taste(span: Any) -> bool:
    """A lasting taste said by the parse: what the speaker does better or best ("I learn much
    better from audio than from books", "I read best late at night"), what bores or suits
    them ("ropes bore me"), a choice said as a conditional ("I'd prefer a hybrid", "I'd go
    with cast iron", "I'd always keep a cash float")."""
    main = [span.root] + [c for c in span.root.children if c.dep_ == "ccomp" and c.i < span.root.i]
    for tok in span:
        if tok.pos_ not in ("VERB", "AUX"):
            continue
        subj = _subject(tok)
        lemmas = verb_lemmas(tok.text)
        if subj is not None and subj.lower_ in _FIRST_SUBJECTS and tok.tag_ in ("VBP", "VB") and tok in main:
            aux = _auxes(tok)
            # ("I'd better renew it" is an obligation, not a taste.)
            if not aux & {"'d", "’d", "had"} and any(c.lower_ in ("better", "best") and c.dep_ in ("advmod", "acomp") for c in tok.children):
                return True
            if aux & {"'d", "’d", "would"} and (lemmas & (_TASTE | {"go", "pick", "choose"}) or any(c.lower_ in HABIT for c in tok.children)):
                return True
        if lemmas & _EXPERIENCER_OBJECT and tok.tag_ in ("VBP", "VBZ") and any(c.dep_ == "dobj" and c.lower_ in ("me", "us") for c in tok.children):
            return True
    return False


def _taste_first(span: Any) -> bool:
    """The sentence's main clause states a taste or a habit ("I always get carsick in the back,
    so I'll take the front seat", "I can't stand beetroot, but I'll cope", "I'd rather not move
    swimming"): what follows it is how the taste is lived with, not a decision of its own."""
    root = span.root
    if root.pos_ not in ("VERB", "AUX"):
        return False
    first = [root] + [c for c in root.children if c.dep_ in ("ccomp",) and c.i < root.i]
    for verb in first:
        subj = _subject(verb)
        if subj is None or subj.lower_ not in _FIRST_SUBJECTS:
            continue
        if any(c.lower_ in HABIT and c.lower_ != "never" for c in verb.children) and verb.tag_ in ("VBP", "VB"):
            return True
        text = span.text
        if verb.i < len(span.doc) and re.search(r"\b(?:'d|’d|would)\s+rather\b|\bcan(?:'t|’t|not)\s+stand\b", text, re.I):
            window = span.doc[max(span.start, verb.i - 3): verb.i + 2].text.lower()
            if "rather" in window or "stand" in window:
                return True
    return False


# The speaker's work under way: "I'm filling in the form now", "I'm still going through the lag
# graphs", "I'm reading the tenancy renewal this evening".
_NOW = re.compile(r"\b(?:now|right now|at the moment|still|currently|today|tonight|this (?:morning|afternoon|evening|weekend|week)|after lunch)\b", re.I)


def _at_work(span: Any) -> bool:
    root = span.root
    if root.lower_ in _BE_PRESENT and root.dep_ == "ROOT" and (subj := _subject(root)) is not None and subj.lower_ in ("i", "we"):
        # "I'm still on the supplier contracts", "I'm halfway through the Ishiguro": a task the
        # speaker is in the middle of, said with "be" and where they are in it.
        where = [c for c in root.children if c.dep_ == "advmod" and c.lower_ in ("still", "halfway")]
        return any(c.dep_ == "prep" and c.lower_ in ("on", "through") for w in [root, *where] for c in w.children) and bool(where)
    if root.tag_ != "VBG" or root.dep_ != "ROOT":
        return False
    subj = _subject(root)
    aux = _auxes(root)
    if subj is None or subj.lower_ not in ("i", "we") or not aux & _BE_PRESENT:
        return False
    lemmas = verb_lemmas(root.text)
    if lemmas & CHANGE_VERBS or lemmas & {"go"} and any(c.dep_ == "xcomp" for c in root.children):
        return False  # "I'm putting two water butts on the gutter this weekend": a step taken
    text = _POLICY.sub("", span.text)
    if _POLICY.search(span.text) or re.search(r"\b(?:since then|these days|nowadays|anymore|any more|no longer)\b", text, re.I):
        return False  # "from now on I'm proving it in the oven": a practice, not work under way
    return bool(_NOW.search(text)) and not _REASON.search(re.sub(r"\bafter lunch\b", "", text, flags=re.I))


# The working day a task is set for: today, tonight, tomorrow, this morning / afternoon / evening.
_THIS_DAY = re.compile(r"\b(?:today|tonight|tomorrow|this (?:morning|afternoon|evening)|after lunch|later today)\b", re.I)


def _task_for_the_day(span: Any, text: str) -> bool:
    """The speaker alone ("I", not "we") doing or about to do something today or tomorrow,
    with no reason said and no agreement or "then" answering someone: what a session note
    is ("I'll send the apology email today", "I'm setting up the Chromebooks in the library
    this evening", "I'm rewriting the signup form tomorrow"), whatever the verb. (Eighth round:
    chosen on the units of every split but test8 with this shape: 51 of 64 were session notes
    already; 6 more right, 1 decision lost, "I'm lifting them tomorrow and storing the tubers".)"""
    root = span.root
    subj = _subject(root)
    if subj is None or subj.lower_ != "i" or not _THIS_DAY.search(span.text):
        return False
    aux = _auxes(root)
    if not (aux & _FUTURE or (root.tag_ == "VBG" and aux & _BE_PRESENT)):
        return False
    return not (_REASON.search(text) or _CONSEQUENCE.search(_REPLY.sub("", text)) or _AGREEING.match(text)
                or re.search(r"\bthen\W*$", text, re.I) or _INSTEAD.search(text))


# A reply that agrees to what was said ("fair, I'll add a 1h cache tomorrow"): a decision taken on it.
_AGREEING = re.compile(r"^\W*(?:ok|okay|fair|noted|sure|agreed|good (?:idea|call|point)|will do)\b", re.I)


# A completed act dated a year or more back ("I studied in Osaka in 2015", "I went to the
# Dolomites after my exams, years ago", "we hired a convertible last summer"): a life's history,
# not a choice this conversation records.
_LONG_AGO = re.compile(
    r"\b(?:(?:a|one|two|three|four|five|six|ten|many|several|\d+|a few|a couple of) years? ago|years ago|last (?:year|summer|winter|spring|autumn|fall)|"
    r"(?:in|since|back in) (?:19|20)\d\d|when (?:i|we) (?:was|were)|as a (?:kid|child|teenager|student))\b", re.I)


def _speaker_acts(span: Any) -> bool:
    """The sentence's main verb has the speaker's side for its subject, or none said (chat), or
    it says what the speaker's task is ("Next step for me is the invoice PDF export": "be" with
    the speaker inside its subject; a fixture conversation, tests/conversations/standup.txt,
    showed this after test8 was scored)."""
    root = span.root
    subj = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subj is not None and root.lower_ in _BE_FORMS and any(t.lower_ in _FIRST for t in subj.subtree):
        return True
    return subj is None or subj.lower_ in _FIRST_SUBJECTS or any(p.lower_ in _FIRST_SUBJECTS for p in subj.conjuncts)


_BE_FORMS = frozenset({"is", "'s", "’s", "are", "'re", "’re", "was", "were"})
_FIRST = frozenset({"me", "my", "us", "our", "i", "we"})


def classify_parsed(text: str, spans: Sequence[Any]) -> MemoryType:
    """``classify`` with the parse of the text's sentences: decisions and habits the patterns
    miss, a time word alone does not make a session note (it must be the speaker's own), and a
    failure is a debug log when it is software's or a system's."""
    base = classify(text)
    if base == MemoryType.DECISION and (_DECIDED.search(text) or not any(_taste_first(s) for s in spans)):
        return base
    if base in (MemoryType.SESSION_NOTE, MemoryType.DEBUG_LOG) and _IN_PROGRESS.search(text) and any(p.search(text) for p in SESSION):
        # "Next I'm picking up the PDF export ticket", "I'm working on the flaky login test
        # today": the speaker's work under way, not a choice nor a bug report.
        return MemoryType.SESSION_NOTE
    if any(_taste_first(s) or _taste(s) for s in spans) or _TASTE_NOUN.search(text):
        return MemoryType.PREFERENCE
    if any(_at_work(s) or _task_for_the_day(s, text) for s in spans):
        return MemoryType.SESSION_NOTE
    if not _LONG_AGO.search(text) and any(_decided(s) for s in spans):
        return MemoryType.DECISION
    if base == MemoryType.DEBUG_LOG and not _SOFTWARE_ALONE.search(text) and not _technical(spans):
        # "The boiler broke down", "I failed the oral exam": a failure, not of software.
        base = MemoryType.FACT
        if any(p.search(text) for p in PREFERENCE):
            base = MemoryType.PREFERENCE
    if base in (MemoryType.FACT, MemoryType.SESSION_NOTE) and _technical(spans) and (_SOFTWARE_ALONE.search(text) or _malfunction(spans)):
        return MemoryType.DEBUG_LOG
    if base in (MemoryType.DEBUG_LOG, MemoryType.PREFERENCE):
        return base
    if any(_habit(s) for s in spans):
        return MemoryType.PREFERENCE
    if base == MemoryType.SESSION_NOTE and not re.search(r"\b(?:I|I'm|I'll|me|my|we|we're|we'll|our)\b", text, re.I):
        return MemoryType.FACT
    if base == MemoryType.SESSION_NOTE and not any(_speaker_acts(s) for s in spans):
        # A time word with someone else doing it ("Three of my tetras died this week", "my
        # sister works late every other night this week") is no note of the speaker's work
        # (eighth round, from test7's confusions).
        return MemoryType.FACT
    return base
