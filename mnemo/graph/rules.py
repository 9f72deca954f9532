"""Deterministic link rules: pure functions from memories to proposed links.

"Sparse links over dense links: better to miss weak signals than add noise" (MIRA seed), so
every rule asks for evidence beyond a shared word:

- **Overlap** between two fingerprints is scored: a shared entity counts 2, a shared
  multi-word subject 2, a shared single-word subject 1, a shared head noun of two multi-word
  subjects ("connection pool" / "thread pool") 1. A link needs at least ``MIN_OVERLAP`` = 2,
  so one common word never links two memories (subjects already exclude generic nouns).
- **Causal links** (Go MIRA seed): a cue in the new memory's text (``because``, ``led to``,
  ``fixed``, ``actually``, ``switched`` ...) plus an overlap with one of the recent memories
  (at most 50, at most 30 days older, same wing when both have one), or an explicit mention of
  its id. The overlap is measured on the part of the sentence the cue points at ("because of
  *the Redis timeouts*", "*the outage* led to"), so a reason that is about something else does
  not link. A cue that points back with a pronoun ("because of that", "so we ...") links to
  the memory said just before, in the same conversation, one turn apart at most. Per cue, only
  the best-matching memory is linked. A reported problem explained later ("the TimeoutError
  happens because the test starts too early") gets the explanation as its cause.
- **Direction**: a causal link runs from cause to effect, earlier to later: ``old → new`` with
  ``rel`` saying how the new one relates (it happened *because* of the old, the old
  *triggered* it, it *resolves* / *updates* / *contradicts* the old). ``supersedes`` runs
  ``new → old`` ("new supersedes old"); ``conflicts`` runs new → old and means both ways.
- **Supersedes**: same type, and the new one states an update (cue) of an older one on the same
  subject, or states an update that is mutually exclusive with it. A decision replaces only a
  decision that chose something for the same thing, or what the update says it moves away from
  ("switched from chunked reads" replaces "stream in chunks"); a preference only the same
  person's. **Conflicts**: mutually
  exclusive statements of the same type with no update cue (both stand; a person or the dream
  cycle decides). Mutually exclusive means the same statement with the polarity flipped
  ("likes" / "does not like"), an antonym swapped (dark / light, tabs / spaces), the chosen
  thing swapped in a decision or preference, or one decision choosing what the other rejected.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import takewhile
from typing import Any

from ..models import Link, Memory, MemoryType
from ..nlp.classify import IRREGULAR
from ..nlp.fingerprint import GENERIC_ADJECTIVES, GENERIC_NOUNS, entity_key, singular

MIN_OVERLAP = 2.0
CAUSAL_WEIGHT = 0.7  # the seed's weight for rule-detected causal edges
SUPERSEDES_WEIGHT = 0.8
CONFLICTS_WEIGHT = 0.7
MAX_CONFLICTS = 2
ANAPHOR_MAX_TURNS = 3  # the memory said just before may sit behind a turn or two of chatter
ANAPHOR_MAX_SECONDS = 15 * 60

# Relations that form causal chains, by which end is upstream (the cause).
CAUSAL_FORWARD = frozenset({"because", "triggered", "resolves", "updates", "causes"})  # src is the cause
CAUSAL_BACKWARD = frozenset({"motivated_by", "invalidated_by"})  # dst is the cause
# The links a rule proposes from a cause to what it explains (a decision with one needs no other).
CAUSAL_RELS = frozenset({"because", "triggered", "resolves"})
ANSWER_MIN_WORDS = 2  # one shared word is never a link (a common word, a name said in passing)
# A decision with no cue and no words in common with the fact said just before it answers that
# fact when the two are about the same thing (MiniLM cosine of the statements, speakers' names
# taken off). Chosen on train..train4 (scripts/eval_labelled.py): the decisions' causes said
# just before without a cue score 0.415-0.59 (a blood test and a supplement, a diagnosis and
# cutting out sugar, a card used abroad and blocking it), an unrelated fact before a decision
# 0.18-0.40 ("going to the gym since January" / "join a climbing club" 0.396, the highest).
RELATED_MIN = 0.42
# A turn between a mishap and a step that left no memory, is no question, names a word of the
# step and is longer than a reaction ("Bummer, you love cats.") holds what the step takes up
# (``_unsaid_reply``). Thirteenth round, from test9..test12's wrong links (in sample): 2 wrong
# links of test10/test11 and 2 of test12 gone, none right lost there; on the older splits, not
# looked at while writing it, it cost test8 one right link (a hardship fund the step applies to,
# labelled a cause beside the mishap); the word floor keeps train's cat allergy (4 words).
UNSAID_MIN_WORDS = 5
NEARER_MARGIN = 0.0  # see ``_answered``: a later statement more related to the step than the named problem
# How related two memories are (a cosine), when a semantic embedder is at hand.
Related = Callable[[Memory, Memory], float]
# Debug hook: while a list, ``propose`` appends (cause, effect, path) for each causal link it
# makes, the path naming the rule and branch that made it (the per-path precision tables of #16).
TRACE: list[tuple[Memory, Memory, str]] | None = None


@dataclass(frozen=True)
class Cue:
    rel: str
    pattern: re.Pattern[str]
    scope: str  # after | before | object | all | anaphor | anaphor_decision | result: where the referenced thing is said
    may_be_time: bool = False  # the cue word also opens a time ("since"): see ``_since_as_time``


def _cue(rel: str, pattern: str, scope: str, may_be_time: bool = False) -> Cue:
    return Cue(rel, re.compile(pattern, re.I), scope, may_be_time)


# Order is priority: one pair gets at most one causal link, the first cue that finds it.
CUES: tuple[Cue, ...] = (
    _cue("resolves", r"\b(?:fixed|fixes|fixing|resolved|resolves|solved|solves|patched|mitigated|the fix (?:for|is|was)|workaround for|to fix|"
         r"(?:which|that|this|it) (?:avoids|prevents))\b", "object"),
    _cue("because", r"^(?:that's|that’s|that is|this is|which is) (?:why|the reason)\b|^(?:so|therefore|consequently|hence|thus|as a (?:result|consequence)|for (?:that|this) reason)\b|"
         r"\bto (?:stop|prevent|avoid) (?:it|that|this)(?: from)? (?:happening|recurring)(?: again)?\b|\bto avoid a repeat\b|^(?:that|this|which) explains\b|"
         # The consequence said last: "we hired a tutor as a result", "... in response", or last
         # before an aside: "we've ordered a new line as a result, two weeks' wait".
         r"\b(?:as a (?:result|consequence)|in response|because of (?:that|this|it)|for (?:that|this) reason)(?:\W*$|\s*,)|"
         # "... so it doesn't happen again", "..., which is why this won't happen again".
         r"\b(?:it|that|this)(?: (?:won't|will not|doesn't|does not|can't|cannot|never)|n't) (?:happen|recur)s?(?: again)?\b|"
         # Said mid-sentence: "I told my doctor, which is why she lowered the dose" goes on from
         # what was said before as much as from its own first clause.
         r",\s*(?:which|that|and that)(?:'s| is| was) (?:why|the reason)\b|"
         # "Which means we're scrapping the offsite": what follows is what the last statement means.
         r"^(?:which|that|this|and that) means\b|"
         # Inside the sentence too: "We have therefore applied to the tribunal" (test6: 2 links
         # found, 1 wrong one gone; no link of train ... test5 moves).
         r"\b(?:therefore|consequently)\b", "anaphor"),
    # A step taken for a purpose that points back ("to stop that", "to sort it out", "to make up
    # for it", "to see if that's it"), or one option taken over what was just said ("... instead."):
    # said of a decision, it answers the statement before.
    _cue("because", r"\bto (?:\w+ ){1,3}(?:it|that|this)(?: out| again| up)?\W*$|\bto see (?:if|whether) (?:it|that|this)(?:'s| is| was| helps)\b|"
         r"\binstead\W*$|"
         # "In that case, please order four new tyres", "in which case we'll ...": a decision
         # taken on the condition just stated goes on from it (twelfth round, from test11's missed
         # links; decisions only, like the purpose above).
         r"^(?:(?:ok|okay|right|then|and|well)\W+)?in (?:that|this|which) case\b", "anaphor_decision"),
    _cue("because", r"\b(?:because(?: of)?|due to|as a result of|caused by|thanks to|owing to|given(?: how)?|the reason (?:is|was)(?: that)?|"
         r"in light of|in response to|following|seeing as|now that|in the wake of|comes? from|came from|stems? from|stemmed from)\b", "after"),
    _cue("because", r"(?:^|,\s*)since\b", "after", may_be_time=True),
    _cue("triggered", r"\b(?:triggered|led (?:us |me |him |her |them )?to|leads (?:us |me |him |her |them )?to|resulted in|results in|prompted|caused|kicked off|sparked|"
         r"made (?:us|me|him|her|them)|forced (?:us|me|him|her|them)|"
         # "That pushed me to switch", "that's what got us to put solar panels on the roof".
         r"(?:pushed|got|drove|convinced|persuaded|talked|spurred) (?:us|me|him|her|them) (?:to|into)\b)", "before"),
    _cue("triggered", r"^after\b", "after"),
    # A circumstance opening the sentence: "with rates this high, we ...", "with her gone, I ...".
    _cue("because", r"^with\b(?=[^,]{3,60},)", "after"),
    # An undone change is a fix of what the change broke: "we rolled back to the old chain".
    _cue("resolves", r"\b(?:rolled back|roll back|rolling back|reverted|revert(?:ing)?)\b", "object"),
    # What a decision achieved names the problem it answers: "we pinned the consumer group, so
    # the rebalances stopped"; "..., so that we don't pay the higher rate". Decisions only: in
    # any other statement ", so" introduces a consequence of its own first clause.
    _cue("resolves", r",\s*so\b(?: that\b)?", "result"),
    _cue("contradicts", r"\b(?:contradicts?|that's not (?:true|right|correct)|(?:is|was)(?: not|n't) (?:true|correct|right)|turns out|turned out|wrong about|contrary to|not actually)\b|^actually\b", "all"),
    _cue("updates", r"\b(?:update:|updated|now (?:use|uses|using|prefer|prefers|is|are|runs?)|switched|switching|changed|changing|moved (?:to|from)|no longer|anymore|from now on|replaced|replacing|migrated|migrating|revised|going forward)\b", "all"),
)
# (Sixth round, with the temporal "since" and "instead" past a named reason: chosen on test5's
# wrong links; test5 precision 38 / 46 -> 39 / 44 on top of the type rules (36 / 48 before the
# round), train4 29 / 32 -> 30 / 32, test..test4 unchanged.)
_INSTEAD = re.compile(r"\binstead\b", re.I)
# A cue about a repeat ("to stop it happening again", "so it can't recur", "to avoid a repeat").
_REPEAT = re.compile(r"\b(?:happen\w*|recur\w*|repeat)\b", re.I)
_ANAPHORS = frozenset({"that", "this", "it", "these", "those", "which", "them", "then"})
_PRONOUNS = frozenset({"it", "he", "she", "him", "her", "they", "them"})
_ANAPHOR_FILLER = frozenset({"of", "the", "a", "an", "all", "issue", "problem", "error", "bug", "outage", "change", "incident", "failure"}) | _ANAPHORS
_WORD = re.compile(r"[A-Za-z][\w.+#-]*")
_STOPWORDS = frozenset(
    ["a", "an", "the", "and", "or", "but", "if", "then", "so", "of", "to", "in", "on", "at", "for", "with", "by", "from", "as", "is", "are", "was", "were", "be", "been", "being", "it", "its", "this", "that", "these", "those", "we", "i", "you", "he", "she", "they", "our", "my", "your", "his", "her", "their", "us", "me", "them", "do", "does", "did", "have", "has", "had", "will", "would", "shall", "should", "can", "could", "may", "might", "must", "just", "also", "too", "very", "really", "actually", "now", "still", "again", "there", "here", "what", "which", "who", "whom", "when", "where", "why", "how", "all", "any", "some", "each", "every", "about", "into", "over", "under", "after", "before", "than", "up", "down", "out", "off", "more", "most", "much", "many", "such", "only", "own", "same", "both", "few", "other", "new", "want", "wants"]
)
NEGATORS = frozenset({"not", "n't", "no", "never", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "won't", "can't", "cannot", "nobody", "none", "neither", "nor", "without", "against"})
NEGATIVE_VERBS = frozenset({"hate", "hates", "dislike", "dislikes", "avoid", "avoids", "stop", "stopped", "reject", "rejected", "disable", "disabled"})
POSITIVE_VERBS = frozenset({"prefer", "prefers", "like", "likes", "love", "loves", "enjoy", "enjoys", "use", "uses", "using", "enable", "enabled", "want", "wants"})
ANTONYMS = {
    frozenset(p)
    for p in (
        ("dark", "light"), ("tab", "space"), ("on", "off"), ("true", "false"), ("yes", "no"), ("always", "never"),
        ("sync", "async"), ("synchronous", "asynchronous"), ("public", "private"), ("allow", "deny"), ("accept", "reject"),
        ("enable", "disable"), ("enabled", "disabled"), ("monolith", "microservice"), ("sql", "nosql"), ("manual", "automatic"),
        ("increase", "decrease"), ("more", "less"), ("early", "late"), ("morning", "evening"), ("local", "remote"),
        ("static", "dynamic"), ("mutable", "immutable"), ("optional", "required"), ("online", "offline"), ("open", "closed"),
        ("weekly", "daily"), ("vertical", "horizontal"), ("strict", "lenient"), ("short", "long"), ("min", "max"),
    )
}


@dataclass(frozen=True)
class Terms:
    entities: frozenset[str]
    subjects: frozenset[str]
    phrases: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.entities or self.subjects or self.phrases)


@functools.lru_cache(maxsize=4096)
def phrases(text: str) -> frozenset[str]:
    """Adjacent pairs of content words ("invoice table", "connection pool"), singular and
    lower-cased. The small parser often misses a noun phrase that these still catch; one
    shared word is never enough, a shared pair is."""
    words = [singular(w.lower()) for w in re.findall(r"[A-Za-z][A-Za-z'-]*|[^\sA-Za-z]+", text)]
    out = set()
    for a, b in zip(words, words[1:], strict=False):
        if _content(a) and _content(b):
            out.add(f"{a} {b}")
    return frozenset(out)


def _content(w: str) -> bool:
    return (
        len(w) >= 3 and w.isalpha() and w not in _STOPWORDS and w not in GENERIC_NOUNS
        and w not in GENERIC_ADJECTIVES and w not in NEGATORS and not w.endswith("ly")
    )


def terms(m: Memory) -> Terms:
    fp = m.fingerprint
    return Terms(frozenset(entity_key(e) for e in fp.entities), frozenset(fp.subjects), phrases(m.content))


def focus(m: Memory, span: str) -> Terms:
    """The terms of ``m`` that occur in ``span`` (the part of its text a cue points at)."""
    low = span.lower()
    ents = frozenset(entity_key(e) for e in m.fingerprint.entities if re.search(rf"\b{re.escape(e.lower())}\b", low))
    subs = set()
    words = {singular(w) for w in re.findall(r"\w+", low)}
    for s in m.fingerprint.subjects:
        if all(w in words for w in s.split()):
            subs.add(s)
    return Terms(ents, frozenset(subs), phrases(span))


def overlap(a: Terms, b: Terms) -> float:
    """Evidence that two memories are about the same thing (see the module docstring)."""
    score = 2.0 * len(a.entities & b.entities)
    shared = a.subjects & b.subjects
    score += sum(2.0 if " " in s else 1.0 for s in shared)
    # Subjects that name an entity the other memory has ("cache" / entity "Cache") count too.
    score += sum(1.0 for s in a.subjects - shared if s in b.entities) + sum(1.0 for s in b.subjects - shared if s in a.entities)
    # One subject inside another ("payment api" / "payment api timeout") counts as the smaller
    # one shared; else two multi-word subjects with the same head noun count 1.
    rest_a, rest_b = a.subjects - shared, b.subjects - shared
    used: set[str] = set()
    covered = [set(s.split()) for s in shared]
    for sa in rest_a:
        for sb in rest_b:
            wa, wb = set(sa.split()), set(sb.split())
            small = wa if len(wa) <= len(wb) else wb
            if (wa <= wb or wb <= wa) and not (small <= GENERIC_NOUNS):
                score += 2.0 if len(small) > 1 else 1.0
                used.update((sa, sb))
                covered.append(small)
    heads_a = {s.split()[-1] for s in rest_a - used if " " in s}
    heads_b = {s.split()[-1] for s in rest_b - used if " " in s}
    score += sum(1.0 for h in heads_a & heads_b if h not in GENERIC_NOUNS)
    # Word pairs both texts contain, unless a shared subject already said so.
    score += sum(2.0 for p in a.phrases & b.phrases if not any(set(p.split()) <= c for c in covered))
    return score


def same_topic(a: Terms, b: Terms) -> bool:
    """Whether two memories share a subject (or a pair of content words), not only names."""
    return bool(a.subjects & b.subjects or a.phrases & b.phrases)


# What ingest puts after the speaker's name: whom "you" means, if anyone, and the colon.
_ATTRIBUTION = re.compile(r"(?: \(to [^)]{1,60}\))?:\s+")


def _speaker(m: Memory) -> object:
    """Who said the memory, as ingest recorded it (``meta.speaker``), or None."""
    return m.meta.get("speaker") if isinstance(m.meta, dict) else None


def said(m: Memory) -> str:
    """The statement without the speaker's name ingest puts in front ("Alice: ...", "fio (to
    kat): ..."). The name is the speaker's own, whatever its case: a chat handle in lower case
    ("fio") left in front counted as a word every statement of that speaker shares, and hid the
    cues that open a statement ("so", "after")."""
    speaker = _speaker(m)
    if isinstance(speaker, str) and speaker and m.content.startswith(speaker):
        found = _ATTRIBUTION.match(m.content, len(speaker))
        if found:
            return m.content[found.end():]
    return m.content


def stems(text: str) -> set[str]:
    """Content words, crudely stemmed ("backups", "backup"; "failed", "failing"; "fell",
    "fall")."""
    words = (re.sub(r"['’]s$", "", x.lower()) for x in re.findall(r"[A-Za-z][A-Za-z'’-]*", text))
    return {_stem(singular(IRREGULAR.get(w, w))) for w in words if _content(w)}


def cue_spans(text: str, decision: bool = True) -> list[tuple[str, str, bool, str]]:
    """(rel, the text the cue points at, whether it points back with a pronoun, the rest of
    the clause: the text before the cue, or after it when the cue points backwards ("*a
    missing index* caused *the slow queries*")) for each cue found in ``text``, in priority
    order."""
    out: list[tuple[str, str, bool, str]] = []
    for n_sent, sentence in enumerate(re.split(r"(?<=[.!?])\s+|\n+", text.strip())):
        s = sentence.strip()
        if not s:
            continue
        mine: list[tuple[str, str, bool, str]] = []
        pointing_back = False
        for cue in CUES:
            m = cue.pattern.search(s)
            if not m:
                continue
            if cue.scope == "anaphor_decision" and not decision:
                continue
            if cue.may_be_time and _since_as_time(s, m.end()):
                continue  # "Since we got back from Lisbon I've been dying for a holiday": a time, not a reason
            if cue.scope == "after" and m.group(0).lower() == "following" and _GERUND_BEFORE.search(s[: m.start()]):
                continue  # "I don't like following recipes": the verb, not the preposition
            if cue.scope == "after" and m.group(0).lower() == "due to" and _due_to_do(s, m.end()):
                continue  # "it's due to complete in January": a schedule, not a reason
            if cue.scope == "anaphor" and m.group(0).lower() == "so" and (
                    # "so does her sister", "so do I": "too", whatever the statement's type.
                    _SO_TOO.match(s)
                    # "So, the conference dinner is on the 15th", "So, I'm still on the capacity
                    # plan": "so" opening a statement that is no decision carries the talk on; only
                    # an action taken is read as the consequence of what was said before (tenth
                    # round: 4 wrong links of test8 and test9, none right on any spent split).
                    or not decision
                    # "so anyway i'm at the café now", "so what did u do at the weekend": a filler
                    # or a question (read from the parse, so tried last).
                    or (m.start() == 0 and moves_on(s))):
                continue
            if cue.scope == "anaphor" and not decision and _MID_WHY.search(s[: m.end()]) and m.start() > 0:
                # "Berlin is flat, which is why people set personal bests there": a statement
                # that is no decision names its cause in its own first clause (eighth round: a
                # wrong link of test7, another speaker's fact taken as the cause).
                continue
            if cue.scope in ("anaphor", "anaphor_decision"):
                # The cue's words travel in ``rest``: what "it" is in "to stop it happening again".
                mine.append((cue.rel, "", True, m.group(0)))
                pointing_back = pointing_back or cue.scope == "anaphor_decision"
                continue
            if cue.scope == "result" and not decision:
                continue
            if cue.scope in ("after", "result"):
                # "Given that we lost a night": "that" before a subject opens a clause, it points
                # back at nothing (twelfth round: a wrong link of test11 to the statement said just
                # before gone; no link of test..test10 or train..train4 moves; all in sample).
                tail = s[m.end():]
                that = _COMPLEMENTIZER.match(tail) if m.group(0).lower().startswith("given") else None
                if that:
                    # (Its own subject is the clause's, not the main clause's: "we lost a night".)
                    tail = tail[that.end():]
                    tail = re.sub(r"^\s*(?:we|i|they)\b(?:['’]\w+)?", "", tail, count=1, flags=re.I)
                span = re.split(r",|;|\s+(?:we|i|they)(?:['’]\w+)?\s+|\s+(?:so|and then)\s+", tail, maxsplit=1, flags=re.I)[0]
            elif cue.scope == "before":
                span = re.split(r",|;", s[: m.start()])[-1]
            elif cue.scope == "object":
                # What was fixed: said after the verb ("fixed the ImportError"), or before it
                # when the sentence is passive ("the ImportError is fixed now").
                after = re.split(r",|;|\s+(?:by|with|using|and)\s+", s[m.end():], maxsplit=1)[0]
                span = after if len(re.findall(r"[A-Za-z]{3,}", after)) >= 1 and not re.fullmatch(r"\W*(?:now|it|that|this|too|again)?\W*", after) else s[: m.start()]
            else:
                span = s
            if cue.scope == "result" and not stems(span):
                # ", so I gave up on it": a result that names nothing points at no problem; the
                # whole memory's words are not what it achieved (eighth round: a wrong link of
                # test7).
                continue
            rest = re.split(r",|;", s[m.end():])[0] if cue.scope == "before" else s[: m.start()]
            mine.append((cue.rel, span, _is_anaphoric(span), rest))
        if pointing_back and any(not back and stems(span) for rel, span, back, _ in mine if rel in ("because", "triggered")):
            # "Due to the strike, I've booked a hire car instead": the reason is named, so the
            # trailing "instead" (or "to sort it out") does not also point at what was said before.
            mine = [c for c in mine if not (c[2] and not c[1] and c[3] and _POINT_BACK_DECISION.search(c[3]))]
        if n_sent > 0:
            # A later sentence of the memory that points back ("I looked at the buses ... Which
            # is why I've reserved a car") points at the sentence before it, in the memory itself
            # (test6: 1 wrong link gone; no link of train ... test5 moves).
            mine = [c for c in mine if not c[2]]
        out.extend(mine)
    return out


# "So" before an auxiliary and its subject is "too" ("so does her sister", "so do I", "so was mine").
_SO_TOO = re.compile(r"^so\s+(?:do|does|did|am|is|are|was|were|have|has|had|can|could|will|would|should)\s+"
                     r"(?:i|you|he|she|we|they|it|my|your|his|her|our|their|the|mine|yours|ours|theirs)\b", re.I)
# "following" after a verb or an auxiliary is the verb ("I hate following recipes", "we were
# following the map"), after a preposition a gerund ("by following the guide"); as a cue it is the
# preposition ("following the budget review, ...", "we paused deploys following the outage").
_GERUND_BEFORE = re.compile(r"\b(?:am|is|are|was|were|be|been|being|like|likes|liked|love|loves|loved|hate|hates|hated|enjoy|enjoys|"
                            r"enjoyed|mind|stop|stopped|start|started|keep|keeps|kept|avoid|avoided|tried|try|by|of|for|without|about)\s+$|"
                            r"(?:['’](?:m|re|s)|n['’]t)\s+$", re.I)
# "that" opening a clause after "given" ("given that we lost a night"), not the pronoun: after
# "after", "because of" or "due to" a "that" before a subject is the pronoun ("after that we ...").
_COMPLEMENTIZER = re.compile(r"^\s*(?:the fact\s+)?that(?=\s+(?:we|i|they|he|she|it|you|there)\b)", re.I)
# A consequence cue said mid-sentence after a clause of its own: ", which is why", ", that's the reason".
_MID_WHY = re.compile(r",\s*(?:which|that|and that)(?:'s| is| was) (?:why|the reason)\b", re.I)


@functools.lru_cache(maxsize=1024)
def _doc(text: str) -> Any:
    """spaCy's parse of a statement, once: ``moves_on`` and ``_acts_on_pronoun`` both read the
    new memory's statement."""
    from ..nlp.entities import nlp

    return nlp()(text)


def _due_to_do(sentence: str, at: int) -> bool:
    """Whether "due to" ending at ``at`` opens a verb, read from the parse: "the purchase is due
    to complete in January", "the flight's due to land at 6" say when something is expected; a
    reason is a noun phrase ("due to the strike", "due to rising costs"). Thirteenth round, from
    test13's wrong links (in sample): a wrong link gone ("it's due to complete in January" read as
    the reason for a preference to complete before Christmas); test11, test12, test..test10 pooled
    and train..train4 unchanged (the spent splits' other "due to"s all open a noun phrase)."""
    nxt = next((t for t in _doc(sentence) if t.idx >= at and not t.is_space), None)
    # The small model often tags the verb a noun or an adjective ("due to land", "due to
    # complete"): the verbs a schedule is told with are read as such whatever the tag.
    return nxt is not None and (nxt.tag_ == "VB" or nxt.lower_ in _SCHEDULE_VERBS)


_SCHEDULE_VERBS = frozenset({"arrive", "land", "leave", "depart", "start", "begin", "finish", "complete", "open", "reopen", "expire",
                             "launch", "return", "rise", "go", "come", "be", "take", "retire", "restart", "resume", "ship", "renew",
                             "close", "visit", "meet", "sign", "move", "get", "give", "hear", "kick", "run", "appear"})


def moves_on(sentence: str) -> bool:
    """Whether the words opening the sentence ("so", "ok") carry the talk on rather than draw a
    consequence or agree: read from the parse, what follows them is an interjection ("so anyway
    ...", "ok so yeah ...": a filler before a change of topic) or a question (a question word or
    an auxiliary before its subject: "so what did u do at the weekend"). Ingest writes chat
    handles in lower case as speakers since the tenth round; with the handle taken off their
    statements, such openings reach the cues that read a statement's first word."""
    doc = _doc(sentence)
    seen_so = False
    for i, tok in enumerate(doc):
        if tok.lower_ == "so" and tok.pos_ in ("ADV", "CCONJ", "SCONJ"):
            seen_so = True
            continue
        if seen_so and tok.lower_ in ("anyway", "anyways", "btw"):
            # "So, anyway, the payment API has a 100 req/min limit per key": a filler before the
            # next topic, the "anyway" read as an adverb (nineteenth round: a wrong link of
            # test16 gone; no link of train ... test14 moves).
            return True
        if seen_so and tok.lower_ in ("about", "regarding", "re"):
            return True  # "So, about the naming, ...": a new topic is announced (twelfth round, after test12 was scored)
        if tok.pos_ == "INTJ" or tok.is_punct:
            if seen_so and tok.pos_ == "INTJ":
                return True  # "so anyway", "so lol": the "so" is a filler
            continue
        # The first word of the clause itself.
        if tok.tag_ in ("WP", "WRB", "WDT", "WP$"):
            return True
        return tok.pos_ == "AUX" and any(t.dep_ in ("nsubj", "nsubjpass", "expl") and t.i > i and t.head in (tok, tok.head) for t in doc)
    return False


# The cue of a decision's purpose or option that points back ("to sort it out", "... instead").
_POINT_BACK_DECISION = next(c.pattern for c in CUES if c.scope == "anaphor_decision")
# A present perfect main clause: "I've been dying for a holiday", "we have lived here".
_PERFECT = re.compile(r"\b(?:i|we|you|he|she|they|it)(?:['’]ve|['’]s| have| has)\s+(?:\w+ly\s+)?(?:been|\w+ed|\w+en|got|had|made|done|known|felt|kept)\b", re.I)
# (A word ending in one "s" may be a verb of the present, "depends"; one ending in "ss" is not:
# "across", "business", "class".)
_PRESENT = re.compile(r"\b(?:is|are|am|['’]s|['’]re|['’]m|does|doesn['’]t|don['’]t|do|won['’]t|will|can|can['’]t|isn['’]t|aren['’]t|\w*[^\Ws]s)\b", re.I)


# A finite verb, crudely: what tells a clause ("the price doubled") from a noun phrase ("our last trip").
_CLAUSE_VERB = re.compile(r"[A-Za-z]{2,}(?:ed|s)\b|\b(?:is|are|was|were|got|went|came|left|met|began|had|took|made|'s|’s)\b", re.I)


# A time said as such after "since": "last year", "the past few weeks", "yesterday", "2019".
# The days, dates and clock times (``(?-i:May)``: "may" in lower case is the verb), unless the
# day is the subject of the reason ("Since Thursday is market day, we ...").
_SINCE_DAY = (r"(?:january|february|march|april|(?-i:May)|june|july|august|september|october|november|december|"
              r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|tonight|today|midnight|noon|lunch(?:time)?|breakfast)\b(?!\s*(?:is|are|was|were|['’]s)\b)|"
              r"(?:this|last|yesterday)\s+(?:morning|afternoon|evening|night)\b|(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b|"
              r"\d{1,2}[:.]\d\d\b|\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.|o['’]clock)|\d{1,2}\s+(?:this|last|yesterday)\b")
_SINCE_WHEN = re.compile(r"\s*(?:(?:about|around|early|late|mid)\W+)?(?:(?:the\s+)?(?:last|past|previous|this)\s+(?:(?:few|couple of|two|three)\s+)?"
                         r"(?:years?|months?|weeks?|days?|summer|winter|spring|autumn|weekend|term|season|christmas|easter)\b|"
                         r"yesterday\b|(?:19|20)\d\d\b|"
                         # A day, a date or a clock time is when, never why: "since march the
                         # compressor's been quiet", "Since 9 this morning we've had four vans down",
                         # "since Monday", "since the 3rd", "since 10:40" (thirteenth round, written
                         # from test13's wrong links, in sample: 2 wrong links gone, none right lost;
                         # test11, test12, test..test10 pooled and train..train4 unchanged).
                         r"(?:" + _SINCE_DAY + r"))", re.I)


def _since_as_time(sentence: str, at: int) -> bool:
    """Whether "since" opens a time, not a reason: a past event before a present perfect
    ("Since we got back from Lisbon I've been dying for a proper holiday"), where a reason is
    said in the present or with any other main clause ("Since it depends on the wall clock,
    I've frozen the time"; "Since the price nearly doubled, I'm switching")."""
    after = sentence[at:]
    if _SINCE_WHEN.match(after):
        # "Since last year the embassy also takes fingerprints", "since 2023 the trains have
        # wifi": a time said as such opens no reason, whatever follows (twelfth round, after test12 was scored: a wrong
        # link of test12, an airline preference taken for the cause).
        return True
    if (sentence[:at].strip().lower() != "since" and re.fullmatch(r"[^,;.!?]*[.!?]?\s*", after)
            and len(after.split()) <= 4 and not _CLAUSE_VERB.search(after)):
        # "The old heater came with the tank, since 2018", "..., since about 2010.": a short noun
        # phrase closing the sentence after ", since" is when, not why; a reason is a clause
        # (twelfth round: a wrong link of test11, the heater's year taken for a cause).
        return True
    opener = re.match(r"\s*((?:[\w'’-]+\s+){1,4}?)(?:i|we|you|he|she|they)\b", after, re.I)
    if (opener and sentence[:at].strip().lower() == "since" and not _CLAUSE_VERB.search(opener.group(1))
            and not re.search(r"\b(?:it|this|that|these|those|then|there)\b", opener.group(1), re.I)):
        # "Since our last trip I only book places with free cancellation", "Since March we
        # cycle": a noun phrase, then the main clause's subject, in any tense: a time. A reason
        # is a clause ("Since the price doubled, we switched"; tenth round: test9's one wrong
        # link of the kind).
        return True
    main = _PERFECT.search(after)
    if main is None:
        return False
    clause = after[: main.start()]
    if not _CLAUSE_VERB.search(clause):
        # No verb between: "Since March I've worked from home three days a week" (a noun phrase
        # after "since" is a time; a reason is a clause; eighth round, a near-miss of test7 linked).
        return True
    return bool(re.search(r"\b\w+ed\b|\b(?:got|went|came|left|moved|met|began|started|was|were|had|took|made)\b", clause, re.I)) and not _PRESENT.search(
        re.sub(r"\b(?:was|has|its|this|is)\b", "", clause, flags=re.I))


def _possessive(span: str) -> bool:
    """"because of her knees": "her" before a noun is a possessive, the reason is the noun it
    names ("her knees"), not what was said just before, as with "his knees" (twelfth round, after test12 was scored: a
    wrong link of test12, a birthday taken for the cause of a bad knee)."""
    doc = _doc(span.strip())
    return len(doc) > 1 and doc[0].tag_ == "PRP$" and doc[1].tag_.startswith(("NN", "JJ"))


def _is_anaphoric(span: str) -> bool:
    """"because of that", "after the incident", and "after that trip": a pronoun, or a
    demonstrative with a noun, points back to what was just said."""
    # "that's what finally got us to ...": the word before the clitic is what points back.
    words = [w.lower() for w in re.findall(r"[A-Za-z']+", span.replace("’", "'"))]
    if words and words[0] in ("that's", "this's"):
        words[0] = "that"  # ("because it's cheaper" is about the subject's own thing, not what was said)
    if words and len(words) <= 3 and words[0] in ("that", "this", "these", "those"):
        return True
    if words and len(words) <= 3 and words[0] in _PRONOUNS and not _possessive(span):
        return True  # "with her gone", "because it broke": the pronoun names what was just said
    if words and len(words) <= 4 and any(w in _ANAPHORS for w in words) and not stems(span):
        return True  # "given how bad it was": the reason names nothing but a pronoun
    return bool(words) and len(words) <= 4 and any(w in _ANAPHORS for w in words) and all(w in _ANAPHOR_FILLER for w in words)


def _words(m: Memory) -> set[str]:
    return {singular(w.lower()) for w in _WORD.findall(m.content)}


def _polarity(words: set[str], text: str) -> int:
    n = sum(1 for w in words if w in NEGATORS or w in NEGATIVE_VERBS)
    n += len(re.findall(r"n't\b|\bno longer\b", text, re.I))
    return n % 2


def _core(words: set[str]) -> set[str]:
    return {w for w in words if w not in _STOPWORDS and w not in NEGATORS and w not in NEGATIVE_VERBS and w not in POSITIVE_VERBS and w != "n't"}


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def exclusive(new: Memory, old: Memory) -> bool:
    """Whether two statements cannot both hold (see the module docstring)."""
    wa, wb = _words(new), _words(old)
    ca, cb = _core(wa), _core(wb)
    if not ca or not cb:
        return False
    if _polarity(wa, new.content) != _polarity(wb, old.content) and _jaccard(ca, cb) >= 0.6:
        return True
    only_a, only_b = ca - cb, cb - ca
    for x in only_a:
        for y in only_b:
            if frozenset((x, y)) in ANTONYMS and _jaccard(ca - {x}, cb - {y}) >= 0.5:
                return True
    if new.type != old.type:
        return False
    ea = {entity_key(e) for e in new.fingerprint.entities}
    eb = {entity_key(e) for e in old.fingerprint.entities}
    if new.type == MemoryType.PREFERENCE:
        # The same sentence with one preferred thing swapped: "Alice prefers Vim" / "... Emacs".
        if len(ea - eb) == 1 and len(eb - ea) == 1:
            ent_words = {w for e in ea | eb for w in e.split()}
            if (ca - ent_words) and _jaccard(ca - ent_words, cb - ent_words) >= 0.6:
                return True
        if not _topic_words(new, ea) & _topic_words(old, eb):
            return False  # preferring Stripe for invoices says nothing about GitHub Actions for CI
        return bool(_chosen(new) & _rejected(old) or _chosen(old) & _rejected(new))
    if new.type == MemoryType.DECISION and SELECTION.search(new.content) and SELECTION.search(old.content):
        # Two selections for the same thing ("use Kafka for the event bus" / "use RabbitMQ for
        # the event bus"), or one choosing what the other ruled out. Additive actions ("add
        # retries around X") are not selections and never exclude each other.
        if not _topic_words(new, ea) & _topic_words(old, eb):
            return False
        ka, kb = _chosen(new), _chosen(old)
        if ka and kb and not ka & kb:
            return True
        return bool(ka & _rejected(old) or kb & _rejected(new))
    return False


SELECTION = re.compile(
    r"\b(?:use|using|adopt|go(?:ing)? with|went with|chose|choose|chosen|select(?:ed)?|pick(?:ed)?|opt(?:ed)? for|"
    r"switch(?:ed)? to|migrat(?:e|ed) to|mov(?:e|ed) to|stick with|settled? on)\b",
    re.I,
)


def _topic_words(m: Memory, entity_keys: set[str]) -> set[str]:
    """What a decision is about ("event bus", "database"): the words of its subjects, not
    names, that the decision itself says (its reasons are about something else)."""
    names = {w for e in entity_keys for w in e.split()}
    said = {singular(w) for w in re.findall(r"\w+", (m.fingerprint.decision or m.content).lower())}
    return {w for s in m.fingerprint.subjects for w in s.split() if w in said and w not in names and w not in GENERIC_NOUNS}


def _rejected(m: Memory) -> set[str]:
    return {entity_key(r) for r in m.fingerprint.rejected}


def _chosen(m: Memory) -> set[str]:
    """The names in the decision (or the preference) that are not ruled out."""
    text = (m.fingerprint.decision or m.content).lower()
    return {entity_key(e) for e in m.fingerprint.entities if entity_key(e) in text} - _rejected(m)


def mentions_id(text: str, other: Memory) -> bool:
    return len(other.id) >= 8 and other.id[:8] in text


def _close(prev: Memory, new: Memory) -> bool:
    """Whether ``prev`` was said just before ``new`` in the same conversation."""
    if not new.session_id or prev.session_id != new.session_id:
        return False
    ta, tb = prev.meta.get("turn"), new.meta.get("turn")
    if isinstance(ta, int) and isinstance(tb, int):
        return 0 <= tb - ta <= ANAPHOR_MAX_TURNS
    return 0 <= new.created_at - prev.created_at <= ANAPHOR_MAX_SECONDS


def _same_slot(new: Memory, old: Memory, t_new: Terms, t_old: Terms) -> bool:
    """Whether an update can replace ``old``: same topic, and for decisions, both choose
    something about that topic (a switch of the cache does not replace "add retries")."""
    if new.type != MemoryType.DECISION:
        return same_topic(t_new, t_old)
    ea = {entity_key(e) for e in new.fingerprint.entities}
    eb = {entity_key(e) for e in old.fingerprint.entities}
    if not _topic_words(new, ea) & _topic_words(old, eb):
        return False
    if SELECTION.search(old.content):
        return True
    # Or the update names what it moves away from, and that is what the old one decided:
    # "switched from chunked reads to Polars" replaces "stream the table in chunks".
    away = {_stem(w) for r in new.fingerprint.rejected for w in re.findall(r"[a-z]+", r.lower()) if _content(w)}
    said = {_stem(w) for w in re.findall(r"[a-z]+", (old.fingerprint.decision or old.content).lower()) if _content(w)}
    return bool(away & said)


def _stem(word: str) -> str:
    """A crude stem, enough to see "chunked", "chunks" and "chunking" as one word, and
    "rejected" / "rejection", "stopped" / "stop", "logging" / "log"."""
    for suffix in ("ing", "ion", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            stem = word[: -len(suffix)]
            if suffix in ("ing", "ed") and len(stem) >= 4 and stem[-1] == stem[-2] and stem[-1] not in "aeiouls":
                stem = stem[:-1]  # a doubled final consonant: "stopp" -> "stop", "logg" -> "log"
            return stem
    return word


def holder(m: Memory) -> str | None:
    """Whose preference this is: the name it opens with ("Alice: I prefer ...", "Bob prefers
    ..."), else the speaker recorded at ingest, else unknown."""
    first = re.match(r"^([A-Z][\w.'-]+)(?::\s|\s)", m.content)
    if first and entity_key(first.group(1)) in {entity_key(e) for e in m.fingerprint.entities}:
        return first.group(1)
    speaker = _speaker(m)
    return speaker if isinstance(speaker, str) else None


def _same_holder(a: Memory, b: Memory) -> bool:
    """A preference belongs to whoever stated it: Bob's taste neither updates nor contradicts
    Alice's. Unknown holders are given the benefit of the doubt."""
    if a.type != MemoryType.PREFERENCE:
        return True
    ha, hb = holder(a), holder(b)
    return not (ha and hb) or ha == hb


def propose(new: Memory, candidates: Sequence[Memory], now: float, related: Related | None = None,
            paths: dict[tuple[str, str], str] | None = None) -> list[Link]:
    """Links from ``new`` to older memories: supersedes / conflicts and causal links.

    ``paths``, when given, receives ``(src, dst) -> path`` for each causal link (the path
    ``TRACE`` names; ``graph.link_head`` scores a link by it).

    ``candidates`` are the recent memories, oldest first (the caller applies the ≤ 50 and
    ≤ 30 days window and the wing rule). ``now`` stamps the links' ``created_at``.
    ``related`` (the embedder's cosine of two statements) lets a decision with no cue answer a
    plain fact said just before it that is about the same thing (``RELATED_MIN``).
    """
    links: list[Link] = []
    linked: set[str] = set()
    t_new = terms(new)
    cues = cue_spans(said(new), decision=new.type == MemoryType.DECISION)
    update_cue = any(cue[0] == "updates" for cue in cues)
    recent_first = list(reversed(candidates))

    # Versions and contradictions between statements of the same kind: the best-matching
    # older statement is the one a newer version replaces.
    superseded = False
    if new.type in (MemoryType.DECISION, MemoryType.PREFERENCE, MemoryType.FACT):
        versions: list[tuple[float, Memory]] = []
        clashes: list[tuple[float, Memory]] = []
        for old in recent_first:
            if old.type != new.type or not _same_holder(new, old):
                continue
            t_old = terms(old)
            score = overlap(t_new, t_old)
            if score < MIN_OVERLAP:
                continue
            excl = exclusive(new, old)
            if update_cue and (excl or _same_slot(new, old, t_new, t_old)):
                versions.append((score + excl, old))
            elif excl and not update_cue:
                clashes.append((score, old))
        if versions:
            old = max(versions, key=lambda v: v[0])[1]  # max keeps the most recent of equals
            links.append(Link(new.id, old.id, "supersedes", "rule", SUPERSEDES_WEIGHT, now))
            linked.add(old.id)
            superseded = True
        for _, old in sorted(clashes, key=lambda v: -v[0])[:MAX_CONFLICTS]:
            links.append(Link(new.id, old.id, "conflicts", "rule", CONFLICTS_WEIGHT, now))
            linked.add(old.id)

    # Causal links from cues.
    for rel, span, anaphoric, rest in cues:
        if rel == "updates" and superseded:
            continue
        target: Memory | None = None
        explains = False
        if anaphoric and new.type == MemoryType.FACT:
            # What follows from what was said, told as a fact ("As a result, the beer is too
            # cold", "That's why the kitchen ceiling is stained"), tells what happened, not a
            # step taken: as with "so" (``cue_spans``), only an action is read as the
            # consequence. The labels make a step the effect (2168 of 2186 gold effects of the
            # spent splits are decisions). Twenty-fourth round, out of sample (test14 ...
            # test19 with forward-fold type heads, ``scripts/diagnose_links.py``): links 733 ->
            # 732, right 528 -> 528 (F0.5 0.5492 -> 0.5497); test22 (spent, diagnosed) 170 / 126
            # unchanged; test20 136 / 98 unchanged, test21 184 / 145 -> 183 / 145 (summaries).
            continue
        if anaphoric:
            # The memory said just before, or among the few said just before the one the new
            # statement shares most with ("Redis ran out of memory" ... "That explains the
            # logouts." ... "To stop it happening again, we raised the Redis memory limit").
            close = [c for c in recent_first[:ANAPHOR_MAX_TURNS] if _close(c, new)]
            # The other speaker's remark on it ("He's a big boy.", "That's a lot of money.") is not
            # what a consequence points back to: the statement it remarks on is.
            close = [c for c in close if not _reply_remark(c, new)]
            # Nor is the other speaker's advice ("u could pay for the 50gb plan"): a decision that
            # takes it up answers the problem the advice was about (eleventh round: a wrong link of
            # test9; the labelled splits type every "you could / should" advice as chatter).
            close = [c for c in close if not _advice(c, new)]
            # Nor is a question, marked with "?" or not ("the hall's function room is upstairs
            # right", "how many chillies did u put"): it asks, it tells no reason (``_asks``).
            close = [c for c in close if not _asks(said(c)) and not _asked_in_turn(c, new, recent_first)]
            if close and close[0].type == MemoryType.SESSION_NOTE:
                # What someone is working on is no cause (none of the spent splits' 791 links has
                # one); said just before, it leaves what the cue points back to out of reach
                # ("so, I'm still on the capacity plan" ... "..., since that one bit us").
                close = []
            if _REPEAT.search(rest):
                # "To stop it happening again": what happened is a problem or an event, not the
                # step taken about it just before ("I've refunded all three").
                problems = [c for c in close if c.type == MemoryType.DEBUG_LOG or (c.type == MemoryType.FACT and mishap(said(c)))]
                events = [c for c in close if c.type in (MemoryType.DEBUG_LOG, MemoryType.FACT)]
                if problems:
                    # ... or the other speaker's diagnosis of it, said after it, when the step
                    # names what the diagnosis names ("The centrifuge threw an imbalance error."
                    # "The rotor lid wasn't seated properly." "I've added a lid check to the SOP to
                    # stop it happening again"): the step is taken against the cause found.
                    reason = _diagnosis(problems[0], close, new, stems(said(new)) - stems(rest), related)
                    problems = [reason] if reason is not None else problems
                else:
                    # A mishap told in words outside the mishap vocabulary ("a strap got caught in
                    # the merge and the motor overload tripped", "our cat got out through the
                    # window") is still something that happened (``_past``): what "so it can't
                    # happen again" is about, not a status said after it ("Belt 4's back in 30
                    # minutes", "the window is shut now"), nor a reply to it read as its diagnosis.
                    # Nineteenth round, from test15's wrong targets: a wrong link made right there;
                    # no link of train ... test14 moves.
                    problems = [c for c in close if c.type == MemoryType.FACT and _past(said(c))]
                close = problems or events or close
            if close:
                # The one said just before, unless an earlier one is named again in two
                # content words at least: one shared word ("run" / "running") is no evidence.
                mine = stems(said(new)) - {"instead"}
                named = [c for c in close if len(mine & stems(said(c))) >= ANSWER_MIN_WORDS]
                if not named and _INSTEAD.search(rest):
                    # "I booked at the front desk instead": the option taken replaces the one that
                    # failed, named with the same word ("the booking app keeps saying full"), not
                    # what someone said about why it failed in between.
                    named = [c for c in close if mine & stems(said(c))]
                if not named and close and _speaker(close[0]) != _speaker(new) and not mine & stems(said(close[0])):
                    # A speaker who draws a consequence goes on from their own account ("The food
                    # bank ran out of tinned protein twice in October." ... "As a result we've added
                    # tinned fish ..."), past another speaker's aside that names nothing of the
                    # step ("Demand's been up since the clocks changed"): their own statement that
                    # names a word of it is what the cue points back to (eleventh round: a wrong
                    # link of test6 and one of test9 gone, none lost).
                    named = [c for c in close[1:] if _speaker(c) == _speaker(new) and mine & stems(said(c))]
                    if not named and _own_account_before_aside(close, new) and related is not None and related(new, close[1]) > related(new, close[0]):
                        # ... and, naming nothing of the step, their account just before another
                        # speaker's aside, when it is more about the step (``_own_account_before_aside``).
                        named = [close[1]]
                if (named and close[0] not in named and not _REPEAT.search(rest) and _own_sentence_before(close[0], new)
                        and all(_speaker(c) != _speaker(new) for c in named)):
                    # "The other banks offer 3.6% at most. Given that, I'm happy to keep the fixed
                    # rate": a pointer said right after its speaker's own sentence, in the same turn,
                    # points at that sentence; the other speaker's earlier statement that shares the
                    # step's words ("your ISA will move to a fixed rate") is what the step is about,
                    # not why (twelfth round, after test12 was scored: 2 wrong links of test12 gone, 2 right ones found).
                    # The speaker's own account told in order (a report, what was found, "So ...")
                    # keeps the report the step names (test3's homework upload: a right link kept).
                    # Measured and not kept (twenty-eighth round): the same when the earlier
                    # statement named is the speaker's own from an earlier turn ("The oak boards
                    # arrived warped." "How badly?" "Half of them bow by an inch ... So I've sent
                    # them back"). Development test14 ... test23 (in sample): 1398 made / 1056
                    # right -> 1397 / 1057; validation test24 unchanged (0.769, 134 made); held out,
                    # test25 scored once on the frozen code with it: 88 / 130 -> 87 / 129 (0.677 ->
                    # 0.674). No held-out gain, so the exception stays to other speakers.
                    named = []
                target = max(named, key=lambda c: (len(mine & stems(said(c))), -close.index(c))) if named else close[0]
            if target is not None and _earlier_own_step(target, new):
                # A step of the speakers' own taken in an earlier turn is not what the pointer
                # points back to ("So I change my flight to Wednesday." ... "So I go to the airline
                # office tomorrow."): the next step follows it, it is not why. A "decision" told
                # of a third party ("The caterer has double-booked the marquee") is what happened
                # to them, a reason (tests/test_segment22.py). See ``_earlier_own_step``.
                target = None
            # Measured and not kept as such (twenty-fourth round; kept since with the subject
            # check above): dropping every pointer's target that is a decision said in an earlier turn (the rules proposed such links right 3 times of 15 on
            # test14 ... test19, 5 of 12 in the same turn): with the fact rule above, test14 ...
            # test19 727 / 527 (F0.5 0.5509), test22 169 / 126, test20 133 / 97, test21 180 / 144,
            # but it unlinks tests/test_segment22.py's double-booked marquee (a mishap typed a
            # decision, a third party its subject). Of the 49 wrong cue-anaphor links left after the
            # link head on test14 ... test19, 17 point at a memory that holds the gold cause merged
            # with the sentence before it, 21 end on a memory labelled no decision, 15 pick another
            # statement in reach. Against the choice above (224 right of the rules' 314 proposals),
            # simpler resolutions lose right links: always the nearest -6, the other speaker's last
            # statement -54, the same speaker's -25, the one sharing most words -16, the nearest
            # problem -35.
            # Measured and not kept (twenty-seventh round): a pointer landing on an explanation (the
            # answer to a why-question asked in an earlier turn, or a bare "Because ..." reason)
            # moved to the statement explained ("The pool cut our session." "Why?" "Because the
            # aqua class grew." "So I've booked the university pool"). Development test14 ...
            # test23 (diagnose_links, forward-fold heads, in sample: the rule was read off these
            # splits' wrong links) 1378 made / 1026 right -> 1378 / 1029 (P 0.745 -> 0.747, F0.5
            # 0.5825 -> 0.5842; without the earlier-turn condition 1027 right, two right links of
            # test20 lost where the answerer goes on with "So ..." in the same turn). Validation
            # test24 (summary only) precision 0.769 -> 0.761 (103 -> 102 right of 134), recall
            # 0.318 -> 0.315: not kept.
        else:
            want = focus(new, span) if span else t_new
            want_stems = stems(span) if span else set()
            mine = stems(said(new))
            names = {w for e in want.entities for w in stems(e)}
            clause = bool(span) and bool(names) and rel in ("because", "triggered") and bool(_CLAUSE_VERB.search(span))
            best = (0.0, 0, 0)
            for old in recent_first:
                if mentions_id(new.content, old):
                    target = old
                    break
                if old.type == MemoryType.SESSION_NOTE:
                    continue  # work in progress is no cause (see the anaphor above)
                if rel == "resolves" and old.type in (MemoryType.DECISION, MemoryType.PREFERENCE):
                    # What a fix resolves is a problem or a fact, never a choice ("I'm fixing the
                    # shed roof today" does not resolve "we're bringing the ewes into the shed";
                    # eleventh round: a wrong link of test10, no right link on any spent split).
                    continue
                score = max(overlap(want, terms(old)), _echo(want_stems, old, new))
                if score >= MIN_OVERLAP and clause and not (want_stems - names) & stems(said(old)):
                    # "Since St Luke's has no heating in the evening": a reason told as a clause is
                    # what its predicate says; a memory that shares only the name it is about ("the
                    # concert will be at St Luke's") is not it (twelfth round, in sample: a wrong link
                    # of test11 gone; test..test10 and train..train4 unchanged).
                    continue
                if score >= MIN_OVERLAP and rel == "resolves" and old.type == MemoryType.DEBUG_LOG:
                    score += 1.0  # what gets fixed is, most often, a reported problem
                # Equal evidence: the memory that shares more of the phrase, then more of the
                # whole statement, is the one meant ("because of the dead laptop, I asked for a
                # deadline extension": "my laptop died before the essay deadline", not "the
                # library lends laptops").
                theirs = stems(said(old))
                key = (score, len(want_stems & theirs), len(mine & theirs))
                if score >= MIN_OVERLAP and key > best:
                    best, target = key, old
            if target is None and rel == "because" and _costs_only(span):
                # "owing to the cost", "because of the price": the amount said just before
                # ("our gas bill for January was 400 pounds") is what it means.
                target = next((c for c in recent_first[:ANAPHOR_MAX_TURNS] if _close(c, new) and _costly(said(c))), None)
            if target is None and rel in ("because", "triggered") and rest.strip() and new.type != MemoryType.DECISION:
                # "The TimeoutError happens because the test starts too early", "a missing
                # index caused the slow queries": the reason is new, the problem it explains
                # was reported before; the new memory is its cause.
                problems = [c for c in recent_first if c.type == MemoryType.DEBUG_LOG]
                target = _best(focus(new, rest), problems, stems(rest), new)
                explains = target is not None
        if target is not None and not explains and rel in CAUSAL_RELS and _weighs(said(new)):
            target = None  # what must be done, or two options: no step taken (``_weighs``)
        if target is not None and target.id not in linked:
            src, dst = (new.id, target.id) if explains else (target.id, new.id)
            links.append(Link(src, dst, rel, "rule", CAUSAL_WEIGHT, now))
            linked.add(target.id)
            if rel in CAUSAL_RELS:
                path = "cue-explains" if explains else ("cue-anaphor" if anaphoric else "cue-span")
                _trace(*((new, target) if explains else (target, new)), path, paths)
    if not any(ln.rel in CAUSAL_RELS for ln in links):
        # The answer to "why?" / "how come?" asked just after a statement is that statement's
        # cause ("We moved the backup job to 4am." "How come?" "The 1am slot overlapped ...").
        target = _asked_why(new, recent_first)
        if target is not None and target.id not in linked:
            links.append(Link(new.id, target.id, "because", "rule", CAUSAL_WEIGHT, now))
            linked.add(target.id)
            _trace(new, target, "why", paths)
    if new.type in (MemoryType.FACT, MemoryType.DEBUG_LOG) and not any(ln.rel in CAUSAL_RELS for ln in links):
        target = _explained(new, recent_first, related)
        if target is not None and target.id not in linked:
            rel = "resolves" if new.type == MemoryType.DEBUG_LOG else "because"
            links.append(Link(new.id, target.id, rel, "rule", CAUSAL_WEIGHT, now))
            linked.add(target.id)
            _trace(new, target, "explained", paths)
    if (new.type == MemoryType.DECISION and not superseded and not any(ln.rel in CAUSAL_RELS for ln in links)
            and not _weighs(said(new))):
        # A reason the decision names itself ("because of the new budget") that matched no
        # memory is about something not said here: no mishap said before is its cause then.
        own_reason = any(rel in ("because", "triggered") and not anaphoric and stems(span) for rel, span, anaphoric, _ in cues)
        # A question ("so what's the plan for tomorrow", typed a decision) takes no step: it
        # answers nothing said before it (twelfth round: a wrong link of test11).
        asks = said(new).rstrip().endswith("?") or (re.match(r"^\W*(?:so|ok|okay|and)\b", said(new), re.I) is not None and moves_on(said(new)))
        # Nor does a step told as taken long before ("I booked it three months ago"): it
        # answers nothing said just before it (nineteenth round: a wrong link of test16 gone; no
        # link of train ... test14 moves).
        asks = asks or _AGO.search(said(new)) is not None
        target, path = (None, "") if asks else _answered(new, recent_first, mishaps=not own_reason, related=related)
        if target is None and not asks and _AGREE.match(said(new)) and not moves_on(said(new)):
            target, path = _agreed_to(new, recent_first), "agreed"
        # An "updates" link to it ("balance reads go to the primary from now on") says the
        # decision changed something, not why: the cause is linked all the same.
        if target is not None:
            rel = "resolves" if target.type == MemoryType.DEBUG_LOG else "because"
            links.append(Link(target.id, new.id, rel, "rule", CAUSAL_WEIGHT, now))
            _trace(target, new, path, paths)
    return links


def _turn(m: Memory) -> object:
    return m.meta.get("turn") if isinstance(m.meta, dict) else None


@functools.lru_cache(maxsize=2048)
def _acting_subject(text: str) -> bool:
    """Whether the statement's main clause has a speaker for its subject ("I", "we", "you") or
    none said ("Booked the van for Friday"): a step somebody in the conversation took."""
    for sent in _doc(text).sents:
        root = sent.root
        if root.pos_ not in ("VERB", "AUX"):
            continue  # a heading or a fragment acts on nothing
        heads = [root, *(c for c in root.children if c.dep_ in ("aux", "auxpass"))]
        subjects = [c for h in heads for c in h.children if c.dep_ in ("nsubj", "nsubjpass", "expl")]
        if not subjects or any(c.lower_ in _FIRST_PERSON for c in subjects):
            return True
    return False


def _earlier_own_step(target: Memory, new: Memory) -> bool:
    """Whether a pointer-back cue's target is a decision said in an earlier turn than the cue's
    whose subject is a speaker ("I", "we", "you") or left out (``_acting_subject``).

    Twenty-fifth round. The twenty-fourth measured the drop without the subject (test14 ...
    test19 727 / 527) and did not keep it: it unlinked the double-booked marquee, a mishap typed
    a decision with a third party its subject. With the subject, out of sample (test14 ... test19,
    forward-fold type heads, ``scripts/diagnose_links.py``): links 736 made / 528 right -> 732 /
    528 (F0.5 0.5478 -> 0.5497; five wrong links gone, one right one lost, two links the link
    head let through instead, one right). Validation test22 (summary only): 165 / 124 (0.752) ->
    164 / 124 (0.756), recall 0.369 unchanged; test21 0.792 (183) -> 0.801 (181), test20 0.721
    (136) -> 0.726 (135), near-misses linked 0.008 -> 0.0."""
    return (target.type == MemoryType.DECISION and _turn(target) is not None and _turn(target) != _turn(new)
            and _acting_subject(said(target)))


_NEED = re.compile(r"\bneeds?\b", re.I)


@functools.lru_cache(maxsize=2048)
def _weighs(text: str) -> bool:
    """Whether a statement weighs what to do and takes no step: its main verb is a bare "need"
    ("so we need to defrost and replace the seal", "so the scales need recalibrating": what must
    be done, not yet done or committed to; "will need" and "don't need" are left alone), or it
    sets out two options ("so we either raise the limit or decode smaller"). Such a statement is
    no decision, so it is the effect of no causal link (the labelled splits type it chatter or a
    fact; no gold effect of train ... test17 has a bare "need" for its main verb).

    Twentieth round, from test15..test17's wrong links (in sample): 3 wrong cue-anaphor links gone
    there, no right one lost; train ... test14 unchanged."""
    if re.search(r"\beither\b(?!\s+way\b).*\bor\b", text, re.I):
        return True
    if not _NEED.search(text):
        return False  # no "need" to be the main verb: no parse on ingest's path
    for tok in _doc(text):
        if tok.dep_ == "ROOT":
            return tok.lower_ in ("need", "needs") and not any(c.dep_ in ("aux", "neg") for c in tok.children)
    return False


def _trace(cause: Memory, effect: Memory, path: str, paths: dict[tuple[str, str], str] | None) -> None:
    """Record the path that made the causal link ``cause -> effect`` (``TRACE``, ``paths``)."""
    if TRACE is not None:
        TRACE.append((cause, effect, path))
    if paths is not None:
        paths[(cause.id, effect.id)] = path


# What opens a consequence or a step, not a reason: "So they've been getting nine hours of light".
_CONSEQUENCE = re.compile(r"^\W*(?:(?:and|but)\W+)?(?:so|then|which|that means|this means|as a result|after that|now)\b", re.I)


def _explained(new: Memory, recent_first: Sequence[Memory], related: Related | None) -> Memory | None:
    """The decision a fact or a report said right after it explains: the cause told after the
    effect, by the same speaker in the same turn ("I returned the ThinkPad today. The screen had
    a dead pixel line right in the middle."; "We rolled the worker back to v2.14. The new build
    was crashing on every message."). Only when the statement tells of a mishap (``_failure``)
    or reads as about the same thing as the decision (``RELATED_MIN``): a detail added after a
    decision ("We booked the barn. It has parking for 40 cars.") is no reason. Not a question,
    and not a consequence ("So ...", "Then ...").

    Twelfth round, all in sample: written from test11's missed links (7 found, 1 wrong: a
    decision merged with the fact after it); on test..test10 1 found, and the two wrong links it
    made there are what the pronoun subject and the decision's own cue below rule out (0 wrong
    then); train..train4 unchanged."""
    text = said(new)
    if text.rstrip().endswith("?") or _CONSEQUENCE.match(text):
        return None
    if re.match(r"^\W*also\b", text, re.I):
        # "Also added a regression test with the payload you used": "also" adds one more thing
        # to what was said, it tells no reason for it (twelfth round, after test12 was scored: a wrong link of test12).
        return None
    close = [c for c in recent_first[:ANAPHOR_MAX_TURNS] if _close(c, new)]
    if not close:
        return None
    decision = close[0]
    turn = new.meta.get("turn") if isinstance(new.meta, dict) else None
    if decision.type != MemoryType.DECISION or decision.meta.get("turn") != turn or _speaker(decision) != _speaker(new):
        return None
    if _ADDRESSED.match(decision.content) and decision.meta.get("part") == 0:
        # "Dear Mr Novak, we have reviewed your claim ...", "Hi Ruth, I've looked into the bounced
        # emails" (stored as "Claims Team (to Mr Novak): ..."): a letter or a message that opens by
        # naming whom it is to says first what it is about; the finding told next is its content,
        # not the reason it was written.
        return None
    if _PRONOUN_SUBJECT.match(text):
        # "I'm setting the router up now. It drops the connection every ten minutes": a statement
        # about what the decision acted on tells what came of it, not why it was taken.
        return None
    if any(rel in ("because", "triggered") for rel, *_ in cue_spans(said(decision))):
        return None  # "Due to this, we have moved your visit": the decision names its cause
    if new.type == MemoryType.DEBUG_LOG and _answers_earlier_problem(decision, recent_first):
        # "Incubator 3's CO2 drifted overnight." ... "I moved them all to incubator 5." "The gas
        # sensor was due for calibration and it was missed.": a step taken after a problem was
        # told answers that problem; a fault reported after the step is that problem's own cause
        # (a diagnosis), not a second reason for the step. A fact told after it still is ("We're
        # not adding a dependency. The bundle is at 512 KB and the budget is 450.").
        # Twenty-sixth round, on test14 ... test22 (development, shipped heads): the explained
        # path 13 / 24 right -> 13 / 20 (four wrong links gone, none right lost); read on facts
        # too it lost 5 right links for 2 wrong, so it reads reports only. Validation test23
        # (summary only, with the why-question check below): links 156 -> 155, precision 0.731
        # -> 0.735, recall 0.278 unchanged.
        return None
    if _failure(new) or (related is not None and related(new, decision) >= RELATED_MIN):
        return decision
    return None


def _answers_earlier_problem(decision: Memory, recent_first: Sequence[Memory]) -> bool:
    """Whether a problem (``_failure``) was told in the few turns before ``decision``, in an
    earlier turn of the same conversation: the problem the decision responds to."""
    at = next((i for i, c in enumerate(recent_first) if c.id == decision.id), None)
    if at is None:
        return False
    return any(_close(c, decision) and _turn(c) != _turn(decision) and _failure(c)
               for c in recent_first[at + 1: at + 1 + 2 * ANAPHOR_MAX_TURNS])


# A statement its speaker addressed to someone by name ("Dear Mr Novak, ...", "Hi Ruth, ..."),
# as ingest stores it: "Claims Team (to Mr Novak): ..." (see ``_ATTRIBUTION``).
_ADDRESSED = re.compile(r"^[^:()]{1,80}(?:\([^)]{1,40}\) )?\(to [^)]{1,60}\):\s")
_PRONOUN_SUBJECT = re.compile(r"^\W*(?:it|they|he|she|this|that|these|those)(?:['’]s|['’]re|['’]ve|['’]ll|['’]d)?\b", re.I)


# A question asking for the reason of what was just said ("Why?", "How come?", "Why the
# rename?", "What broke?"): its answer is a cause, not a new topic.
_WHY_QUESTION = re.compile(
    r"^\W*(?:(?:and|but|so|oh|wait)\W+)?(?:why\b|how come\b|what (?:for|happened|broke|went wrong|caused (?:it|that|this))\b|what was the (?:reason|cause)\b)[^?]{0,80}\?",
    re.I,
)


# A decision that opens by agreeing ("ok, ...", "fair, I'll add a cache", "noted, changed ...",
# "Perfect, we'll take the 6th then") answers what the other speaker has just said, be it a
# fact, a report or a wish. Written from test6's missed links (the preferences answered with
# "fair" / "noted"); on train ... test5 it adds 2 links, both right, and no wrong one.
_AGREE = re.compile(r"^\W*(?:ok|okay|k|fair(?: point| enough)?|noted|right|perfect|sure|good (?:idea|call|point)|got it|will do|agreed|yes|yep|yeah|yup)\b", re.I)


def _agreed_to(new: Memory, recent_first: Sequence[Memory]) -> Memory | None:
    """The other speaker's statement just before a decision that agrees to it (see ``_AGREE``),
    unless it was a question."""
    close = [c for c in recent_first[:ANAPHOR_MAX_TURNS] if _close(c, new)]
    if not close or _speaker(close[0]) == _speaker(new) or said(close[0]).rstrip().endswith("?"):
        return None
    if _asks(said(close[0])):
        return None
    context = new.meta.get("context") if isinstance(new.meta, dict) else None
    if isinstance(context, str) and _asks(context):
        # "yes" to a question ("the japan trip is in june right?", stored without its tag) answers
        # it; it agrees to nothing (eighth round: a wrong link of test7).
        return None
    return close[0] if close[0].type in (MemoryType.FACT, MemoryType.PREFERENCE, MemoryType.DEBUG_LOG) else None


# A remark: a short sentence about what was just said, with a pronoun for its subject ("That's
# every photographer's nightmare.", "He's a big boy."). Eight words at most: a remark is short; a
# longer "it's ..." statement tells something of its own ("It's under the oak all day, grass
# won't grow in that much shade"). Written from test6's wrong links (two remarks taken for the
# cause); on train ... test5 it moves one link, wrong to right (test: "That's a lot of money.").
_REMARK = re.compile(r"^(?:that|this|it|he|she|they)(?:'s|’s| is| was| are| were)\b|"
                     # ... or one whose subject or object is what was just said: "Explains the burnt
                     # cookies.", "Twilight imperium will do that" (eighth round: two wrong links of
                     # test7, the other speaker's remark taken for the cause).
                     r"^(?:that |this |which )?explains\b|\b(?:do|does|did|explains?|means?)\s+(?:that|this)\W*$", re.I)
REMARK_MAX_WORDS = 8
REACTION_MAX_WORDS = 3



# Advice: "you" with a modal of suggestion opening the statement ("u could pay for the 50gb
# plan", "you should see someone", "maybe you'd better ring them").
_ADVICE = re.compile(r"^(?:(?:so|well|maybe|then|ok|okay)\W+)?(?:you|u|ya)\s+(?:could|should|might|ought to|(?:['’]d|had) better)\b", re.I)


def _advice(old: Memory, new: Memory) -> bool:
    """``old`` is another speaker's advice to whoever says ``new`` (see ``_ADVICE``)."""
    return _speaker(old) != _speaker(new) and bool(_ADVICE.search(said(old)))


def _reply_remark(old: Memory, new: Memory) -> bool:
    """``old`` is another speaker's short remark on what was said before it (see ``_REMARK``)."""
    text = said(old)
    return _speaker(old) != _speaker(new) and bool(_REMARK.search(text)) and len(text.split()) <= REMARK_MAX_WORDS


def _asked_why(new: Memory, recent_first: Sequence[Memory]) -> Memory | None:
    """What ``new`` explains when it is the answer to a why-question asked of the memory said
    just before the question, in the same conversation. The first statement of the answer
    only: a second sentence of the same turn goes on from the first."""
    context = new.meta.get("context") if isinstance(new.meta, dict) else None
    if not isinstance(context, str) or not _WHY_QUESTION.search(context.strip()):
        return None
    turn = new.meta.get("turn")
    close = [c for c in recent_first[:ANAPHOR_MAX_TURNS] if _close(c, new)]
    if not close or not isinstance(turn, int):
        return None
    if close[0].meta.get("turn") == turn:
        return None  # not the answer's first statement
    before = close[0]
    if not isinstance(before.meta.get("turn"), int) or before.meta["turn"] > turn - 2:
        return None
    asked = _asked_about(context)
    if asked and not _names_any(asked, said(before)):
        # "Why do we even park on the seafront?", "why later?", "Why does the fuel pump lock out
        # for rain?": a why-question that names what it asks about asks about that; when the
        # statement said before it names none of it, the answer explains something else (a
        # thing not kept, or said earlier). A bare "Why?" or "Why both?" names nothing and
        # asks about the statement before it. Twenty-sixth round, on test14 ... test22
        # (development, shipped heads): the why path 3 / 11 right -> 3 / 8 (three wrong links
        # gone, none right lost; with the crude stem alone two more wrong links went, by a
        # missed "moved" / "move" match, not by the rule). Validation test23: see ``_explained``.
        return None
    return before


# The words of a why-question that ask, not what is asked about.
_ASKING = frozenset(stems("how come what happened broke went wrong caused reason cause even though then exactly anyway"))


def _asked_about(context: str) -> set[str]:
    """The content words a why-question names (its own sentence, up to the "?"), beside the
    asking words: "why did it retry?" -> {"retry"}; "why?" -> set()."""
    found = _WHY_QUESTION.search(context.strip())
    return stems(found.group(0)) - _ASKING if found else set()


def _names_any(words: set[str], text: str) -> bool:
    """Whether ``text`` names one of ``words`` (stems), an inflected verb read back to its base
    form too ("retry" / "retried", "move" / "moved", which the crude stem keeps apart)."""
    if words & stems(text):
        return True
    forms = {f for w in words for f in _verb_forms(w)}
    return any(forms & _verb_forms(w.lower()) for w in re.findall(r"[A-Za-z]+", text))


# Measured and not kept (twenty-second round, the wrong cause for a true decision; test14 ...
# test19 ingested with forward-fold type heads, 519 right of 731 links made, gold 1875; held out
# test20 summary 97/135, recall 0.298, near-misses linked 1/126):
# - another speaker's bare-verb instruction ("Try fexofenadine", "Go down to Mallaig") read as
#   advice (out of the anaphor's, ``_answered``'s and ``_agreed_to``'s candidates) plus a fact told
#   in the future ("A replacement card will arrive ...") left out of the "most related fact"
#   branch: test14..19 520/724 (7 wrong links gone, 1 right found); test5..test13 642/737 and
#   test20 97/135 unchanged, not a link moved: no held-out gain, so not kept.
# - the anaphor's pointer passing over another speaker's statement that tells no failure for an
#   earlier failure in reach: test14..19 512/727 (7 right lost). The pronoun branch below doing
#   the same: 516/728. Labels give a step the diagnosis as often as the symptom.
# - a cosine floor on the "most related fact" branch (ans-related, 14 right of 31 on test14..19,
#   16 of 17 on test5..13): right and wrong links interleave over 0.37 ... 0.82; no floor separates.
# Of the 128 wrong links to a true decision on test14..19, 47 have a cause memory that states two
# labelled units of its turn (an opener or heading and the problem: "Handover for bay C. Mrs K in
# bed 14 had two falls ..."); ``labelled_set.unit_of`` breaks the tie toward the opener, so 41 of
# them, whose problem unit is the gold cause, count wrong. That is segmentation, not the rules.
def _answered(new: Memory, recent_first: Sequence[Memory], mishaps: bool = True, related: Related | None = None) -> tuple[Memory | None, str]:
    """The problem or event a decision with no causal cue answers: a report or a fact said
    just before in the same conversation that the decision names again in two content words
    at least ("The linter failed on the release branch because of an unused import." ... "I
    removed the unused import, and the release branch is green again"). Preferences, plans
    and other decisions are never the cause here: they are what a decision sits beside. With it,
    the name of the branch that found it (the path ``TRACE`` records)."""
    mine = stems(said(new))
    best: tuple[int, int, int] = (0, 0, 0)
    target: Memory | None = None
    close = [c for c in recent_first[: 2 * ANAPHOR_MAX_TURNS] if _close(c, new)]
    # A question, marked or not, is never a cause (``_asks``), nor one ingest trimmed to a
    # statement ("The shop's opening hours changed too, right?" stored as "... changed too.",
    # ``_asked_in_turn``).
    close = [c for c in close if not _asks(said(c)) and not _asked_in_turn(c, new, recent_first)]
    for i, old in enumerate(close):
        if old.type not in (MemoryType.DEBUG_LOG, MemoryType.FACT):
            continue
        shared = len(mine & stems(said(old)))
        key = (shared, old.type == MemoryType.DEBUG_LOG, -i)
        if shared >= ANSWER_MIN_WORDS and key > best:
            best, target = key, old
    if target is not None:
        # A failure named again, then the other speaker's diagnosis of it that names what the
        # step acts on, then the step: the step answers the diagnosis ("The exam software crashed
        # twice during my mock exam." "It conflicts with the antivirus screen-scanning feature."
        # "Whitelisted the exam app in the antivirus ..."), as ``finding`` below does when the
        # failure is not named (eleventh round: 2 wrong links of test10, 2 of test9). Any statement
        # named, not only a failure: "ugh, that job was supposed to read from the replica" "its
        # connection string still points at the primary" "ok pointing it at the read replica now"
        # (thirteenth round: a wrong link of test11 made right; no link of any other split moves).
        diag = _diagnosis(target, close, new, mine, related)
        if diag is not None:
            return diag, "ans-named-diagnosis"
    if target is not None and related is not None:
        # Two candidate causes: the problem the step names, and a statement said after it that
        # reads as more about the step ("the bank feed stopped importing" ... "the bank had changed
        # its API and the connection needed re-authorising" ... "we re-authorised the connection"):
        # the later, closer one is what the step answers (#16, wrong targets).
        k = close.index(target)
        sim = related(new, target)
        nearer = [(related(new, c), c) for c in close[:k] if c.type in (MemoryType.FACT, MemoryType.DEBUG_LOG)
                  and not said(c).rstrip().endswith("?") and not _reply_remark(c, new)]
        nearer = [(v, c) for v, c in nearer if v > sim + NEARER_MARGIN]
        if nearer:
            return max(nearer, key=lambda vc: vc[0])[1], "ans-named-nearer"
    if target is not None or not mishaps:
        return target, "ans-named"
    if (close and close[0].type in (MemoryType.FACT, MemoryType.DEBUG_LOG) and _acts_on_pronoun(said(new))
            and not said(close[0]).rstrip().endswith("?") and not _reply_remark(close[0], new) and _just_before(close[0], new)):
        # A step whose object is a pronoun ("renewed it", "sold it and got the little 85mm",
        # "rang them instead") acts on what was said just before: that statement is what it
        # answers, whatever words it uses ("the base station subscription lapsed on the 1st"),
        # before any older mishap (eleventh round: 3 wrong links of test7 and test10 gone, 6
        # right ones found on test4 ... test10; none lost).
        return close[0], "ans-pronoun"
    # No words in common: a decision taken just after a mishap is told is the response to it
    # ("The dog chewed through two cushions." ... "We've signed him up for daycare."). Only a
    # mishap (a failure, a loss, an injury, a price that rose), only within a few turns, and
    # not past another decision, which would be the response already.
    turn = new.meta.get("turn") if isinstance(new.meta, dict) else None
    if close and close[0].type in (MemoryType.FACT, MemoryType.DEBUG_LOG) and close[0].meta.get("turn") == turn and _speaker(close[0]) == _speaker(new):
        # Of several such statements, the one the step names ("the light timer was stuck off
        # since the power cut. So they've been getting nine hours of light. I replaced the
        # timer"): the others tell what followed from it (twelfth round, test11).
        situation = list(takewhile(lambda c: c.meta.get("turn") == turn and _speaker(c) == _speaker(new)
                                   and c.type in (MemoryType.FACT, MemoryType.DEBUG_LOG), close))
        if not mine & stems(said(close[0])):
            named = next((c for c in situation if mine & stems(said(c))), None)
            if named is None and ((not _failure(close[0]) and not _past(said(close[0]))) or _tells_step(said(close[0]))):
                # A second step its speaker adds ("Sending it to the repair shop for a clean. And
                # I bought a dry cabinet for all the glass, no more loft storage.") after a
                # statement of theirs that is neither a mishap nor something that happened (a
                # first step, a verdict: "That sounds like cork taint. We'll refund both
                # bottles") answers the earlier statement that it names ("it's humid up there
                # in the loft", "both bottles smelt of wet cardboard"): ``_second_step``.
                # Nineteenth round, from test15/test16's wrong targets: 2 wrong links made right
                # there, 2 wrong ones dropped (the earlier statement named is not the cause);
                # train ... test14 unchanged (without the ``_past`` condition it moved a right
                # link of test11 to the symptom and dropped a wrong one of test8).
                named = _second_step(new, situation[-1], close)
            return named or close[0], "ans-sameturn"
        # The situation its speaker set out just before it in the same turn ("I suspected as
        # much: the endpoint returns the entire order history. I've added cursor pagination.")
        # is what the decision answers, before any older mishap (test5: 4 links found, 2
        # wrong ones gone; test6: 1 found; no link of train ... test4 moves).
        return close[0], "ans-sameturn"
    unsaid = _unsaid_reply(new, recent_first, mine)
    before: list[Memory] = []
    for old in close:
        t_old = old.meta.get("turn") if isinstance(old.meta, dict) else None
        if isinstance(turn, int) and isinstance(t_old, int) and turn - t_old > ANAPHOR_MAX_TURNS:
            break
        if unsaid and isinstance(turn, int) and isinstance(t_old, int) and t_old < turn - 1:
            # A mishap told turns earlier, then a turn that left no memory and names what the step
            # does ("Lightroom crashes whenever I import RAW files." "Your Lightroom version is too
            # old for that camera." "Updated it to the latest version"): the step takes up that
            # turn, a diagnosis or advice not kept, so the mishap is no answer it can be linked to.
            break
        if old.type == MemoryType.DECISION:
            break
        # Measured and not kept (thirteenth round, links13b): skipping the speaker's own mishap
        # told before the other speaker's question, or a 5+ word remark naming the step ("is it
        # the cable?" "Tried three cables, same thing"): test13 86/143 -> 85/140, test12 91/127
        # -> 91/123, but test..test10 pooled 506/542 -> 493/526 and train..train4 121/125 ->
        # 118/122: 16 right links lost for 3 wrong on the splits not looked at (a one-word
        # suggestion the step takes up, "Firmware?" "Yep, updated the firmware").
        finding = next((b for b in before if b.type == MemoryType.FACT and _touches(b, new, mine, related)), None)
        if finding is not None and (old.type == MemoryType.DEBUG_LOG or (old.type == MemoryType.FACT and mishap(said(old)))):
            # A failure, then a statement on what the step taken is about, then the step: the
            # statement is the finding on the failure ("partner api started throwing 429s" ...
            # "they cut our quota to 100 req/min" ... "put a token bucket on our side at
            # 90/min"), and the step answers the finding, not the symptom (tenth round: 4 wrong
            # links of test9, 3 of test6 and test7, the same kind). The same after a mishap told
            # as a plain fact ("the new oven shows error F3" ... "F3 is usually the temperature
            # sensor" ... "they're sending an engineer to replace the sensor"). An aside about
            # something else ("the mobile team releases every second Tuesday") leaves the failure
            # the answer.
            return finding, "ans-finding"
        if old.type == MemoryType.DEBUG_LOG or (old.type == MemoryType.FACT and mishap(said(old))):
            if not mine & stems(said(old)):
                # The other speaker's word on a report ("compressor failed, tech confirmed") that the
                # step names nothing of, while the report before it, the step's own speaker's, is
                # named ("-80 freezer alarm went off" ... "moved all samples to the backup
                # freezer"): the step answers the report, as it answers a diagnosis it names
                # (``_diagnosis``; eleventh round: a wrong link of test10 gone, none lost).
                k = close.index(old)
                report = close[k + 1] if k + 1 < len(close) else None
                if (report is not None and report.type in (MemoryType.FACT, MemoryType.DEBUG_LOG) and _speaker(report) != _speaker(old)
                        and _speaker(report) == _speaker(new) and mine & stems(said(report))):
                    return report, "ans-report"
            if _states(said(new)):
                # A "decision" that tells how things are and takes no step ("The cheap PVA from
                # the craft shop.", "The HDMI run is 20 metres, too long without a booster") is a
                # finding or an answer typed as a decision: it responds to no mishap (``_states``).
                # Nineteenth round, from test15/test16's wrong links with no gold decision at
                # either end: 6 wrong links gone there, no right one lost; on train ... test14 2
                # wrong links gone, none right lost, and one right link found (an "OK, RAC is
                # booked" then agrees to the breakdown, ``_agreed_to``) (read on every path of ``_answered`` it lost
                # 3 right links of train ... test14 for 1 wrong, so it reads this path only).
                return None, ""
            if _supposes(said(new)):
                # Nor does one that only supposes a step ("Well I'd stop for a bit till it
                # settles", "we'll go over our duty time if it's longer"): see ``_supposes``.
                return None, ""
            return old, "ans-mishap"
        before.append(old)
    # Else the plain fact most about the same thing: "The doctor says I'm borderline diabetic."
    # ... "I've cut out sugary drinks completely." The most related, not the latest that reads as
    # related at all ("Broadstone Warren had space for 24 on the 18th." "Broadstone is £9 a head,
    # Youlbury was £7." "Book Broadstone for the 18th then"): nineteenth round, a wrong link of
    # test16 made right; no link of train ... test14 moves.
    if related is not None:
        facts = [(related(new, old), old) for old in before if old.type == MemoryType.FACT]
        facts = [(v, old) for v, old in facts if v >= RELATED_MIN]
        return (max(facts, key=lambda vc: vc[0])[1] if facts else None), "ans-related"
    return None, ""


def _unsaid_reply(new: Memory, recent_first: Sequence[Memory], mine: set[str]) -> bool:
    """Whether the turn just before ``new`` (``meta.context``) left no memory, is no question,
    and names a content word of ``new``: what ``new`` takes up was said there and not kept."""
    turn = new.meta.get("turn") if isinstance(new.meta, dict) else None
    context = new.meta.get("context") if isinstance(new.meta, dict) else None
    if not isinstance(turn, int) or not isinstance(context, str) or context.rstrip().endswith("?"):
        return False
    if len(context.split()) < UNSAID_MIN_WORDS or any(c.meta.get("turn") == turn - 1 for c in recent_first[: 2 * ANAPHOR_MAX_TURNS] if _close(c, new)):
        return False
    return bool(mine & stems(context))


def _own_account_before_aside(close: Sequence[Memory], new: Memory) -> bool:
    """Whether ``close`` (most recent first) holds, just before another speaker's statement,
    the new statement's speaker's own account, a fact or a report, in the turn right before it:
    "Indoor nets are 60 quid now, up from 35." "We've got 11 in the winter squad." "So, we'll
    still do them, but fortnightly not weekly": a speaker who draws a consequence goes on from
    what they told, past the other's turn that names nothing of the step (an aside, a guess at
    a cause, the reason behind their news). Read only when the speaker's own account reads as
    more about the step than the other's turn (``related``), and never past a finding on the
    account (a failure, a reported verdict: ``_VERDICT``).

    Twentieth round, from test15..test17's wrong targets (in sample): 3 wrong links made right
    there (an aside, a guess at an injury, a parent's remark), 1 right link found, none lost;
    train ... test14: 947 right of 1082 before and after (a wrong link made right, a right one
    moved to the speaker's own account against the label, 3 moved right to right or wrong to wrong). Without the ``related`` condition it
    cost train ... test14 6 right links; without the finding condition, 1."""
    if len(close) < 2 or _speaker(close[1]) != _speaker(new) or close[1].type not in (MemoryType.FACT, MemoryType.DEBUG_LOG):
        return False
    if _failure(close[0]) or _VERDICT.search(said(close[0])):
        # A finding on what they told ("the dealer said it's a firmware bug", "Error 31 is grid
        # overvoltage") is what a step takes up (``_diagnosis``), no aside.
        return False
    t_aside, t_own = close[0].meta.get("turn"), close[1].meta.get("turn")
    return isinstance(t_aside, int) and isinstance(t_own, int) and t_own == t_aside - 1


# A verdict reported from someone ("the health visitor says it's ...", "the ISP told me ...").
_VERDICT = re.compile(r"\b(?:says|said|told (?:me|us|him|her|them))\b", re.I)


def _own_sentence_before(old: Memory, new: Memory) -> bool:
    """``old`` is the sentence its speaker said just before ``new``, in the same turn."""
    turn = new.meta.get("turn") if isinstance(new.meta, dict) else None
    return isinstance(turn, int) and isinstance(old.meta, dict) and old.meta.get("turn") == turn and _speaker(old) == _speaker(new)


def _failure(m: Memory) -> bool:
    """A reported problem: a debug log, or a fact that tells of a mishap."""
    return m.type == MemoryType.DEBUG_LOG or (m.type == MemoryType.FACT and mishap(said(m)))


def _diagnosis(failure: Memory, close: Sequence[Memory], new: Memory, mine: set[str], related: Related | None) -> Memory | None:
    """The reply to a reported ``failure`` that a step ``new`` answers instead of the failure
    (not beside it: linking the failure said just before a decision's finding as its second
    cause, twenty-first round, found 14 right links on test15 ... test17 for 35 wrong; the labels
    give a fix the diagnosis it acts on, and the symptom only when the step names it):
    the statement said next after the failure (``close`` is most recent first), by another
    speaker, a fact or a report, neither a question nor a short remark, with no decision said
    between, and about what the step does (``_touches``: it names a content word of ``mine``,
    or reads as about the same thing). Who reports a failure and who answers with its cause
    are two people; the step taken next is taken against the cause."""
    later = list(close[: close.index(failure)])
    if not later or any(c.type == MemoryType.DECISION for c in later):
        return None
    reply = later[-1]
    if _speaker(reply) == _speaker(failure) or reply.type not in (MemoryType.FACT, MemoryType.DEBUG_LOG):
        return None
    if said(reply).rstrip().endswith("?") or _reply_remark(reply, new):
        return None
    return reply if _touches(reply, new, mine, related) else None


# Openers a step told in a statement may start with ("Yes, swab taken", "Then move the server").
_STEP_OPENERS = frozenset({"yes", "yeah", "yep", "ok", "okay", "then", "so", "and", "right", "also", "well", "oh", "aye", "no"})
# Verbs that tell no step: being, having, wanting and needing, seeing, thinking, saying, and
# moving about ("I went to the shop").
_NO_STEP_VERBS = frozenset({"be", "have", "need", "want", "think", "know", "guess", "reckon", "hope", "feel", "seem", "look", "sound",
                            "like", "love", "hate", "prefer", "wish", "mean", "say", "tell", "see", "hear", "find", "notice", "check",
                            "get", "go", "come", "remember", "forget", "turn", "try", "fit", "detect", "spot", "receive", "discover", "realise",
                            "realize", "learn", "read", "count", "measure", "observe", "show", "confirm"})


@functools.lru_cache(maxsize=2048)
def _tells_step(text: str) -> bool:
    """Whether a statement tells a step its speaker took or orders, read from the parse: its
    first verb has "I" or "we" for its subject ("I've asked the GP for antibiotics"), or no
    subject and opens the statement (a step told diary-style, "Removed the battery, cleaned it",
    or an order, "Then move the GPU server to B15"), and is a verb of doing (``_NO_STEP_VERBS``),
    and nothing in the statement tells of a mishap ("I dropped my phone").

    Read by ``_answered`` (ans-sameturn): a second step after a first one told this way answers
    the earlier statement it names (``_second_step``). Twentieth round, from test15..test17's
    wrong targets (in sample): 2 wrong links made right there ("Cleaned it, temp came down. We'll
    check the strainer every trip" now answers "the strainer was full of weed"); train ... test14
    unchanged (read with a first-person simple past as a step too, it moved a right link of
    test13 to the symptom: "I entered 04/11, it thought it was April")."""
    toks = [t for t in _doc(text) if not t.is_punct]
    i = 0
    while i < len(toks) and (toks[i].lower_ in _STEP_OPENERS or toks[i].pos_ == "INTJ"):
        i += 1
    verb = next((t for t in toks[i:] if t.pos_ == "VERB" and t.dep_ not in ("amod", "aux", "auxpass")), None)
    if verb is None or verb.lemma_.lower() in _NO_STEP_VERBS or verb.lower_ in _PERCEIVE or mishap(text):
        return False
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is not None:
        # Told in the simple past, "I" or "we" narrate what happened ("I entered 04/11, it thought
        # it was April"), not a step taken about it.
        return subject.dep_ == "nsubj" and subject.lower_ in ("i", "we") and verb.tag_ != "VBD"
    return verb is toks[i] and verb.tag_ in ("VBD", "VBN", "VB", "VBG")


def _acts_on_pronoun(text: str) -> bool:
    """Whether the statement's first verb takes a pronoun for its object ("renewed it, steering
    back on track", "rang them instead"), read from the parse. The first verb only: a pronoun
    object later in the sentence ("we've ordered secondary glazing; the landlord allows it")
    refers inside the sentence."""
    for tok in _doc(text):
        if tok.pos_ == "VERB":
            return any(c.dep_ == "dobj" and c.lower_ in ("it", "them", "that", "this") for c in tok.children)
    return False


def _just_before(old: Memory, new: Memory) -> bool:
    """Whether ``old`` is the last thing said before ``new``: from the turn before, or with only
    a reaction between (the turn before, ``meta.context``, is a few words and no question: "oh
    no", "ugh"). A longer turn between that left no memory may hold what a pronoun refers to."""
    t_old, t_new = old.meta.get("turn"), new.meta.get("turn")
    if not isinstance(t_old, int) or not isinstance(t_new, int):
        return False
    if t_new - t_old <= 1:
        return True
    context = new.meta.get("context") if isinstance(new.meta, dict) else None
    return isinstance(context, str) and len(context.split()) <= REACTION_MAX_WORDS and not context.rstrip().endswith("?")


def _touches(old: Memory, new: Memory, mine: set[str], related: Related | None) -> bool:
    """Whether a statement said between a failure and a decision is about what the decision
    does: it names a content word of it ("they cut our quota to 100 req/min" / "a token bucket
    at 90/min"), or reads as about the same thing (``RELATED_MIN``)."""
    return bool(mine & stems(said(old))) or (related is not None and related(new, old) >= RELATED_MIN)


# Words that tell of a mishap: something failed, broke, was lost or stolen, hurt, cost more.
# A closed vocabulary of adverse events in everyday talk (not any labelled case's topic), read
# as verb lemmas, adjectives and nouns.
_MISHAP_VERBS = frozenset(
    ["fail", "crash", "break", "die", "lose", "steal", "miss", "hurt", "injure", "fall", "flood", "leak", "cancel", "crack", "refuse",
     "reject", "expire", "burn", "bite", "bully", "oversleep", "swell", "wreck", "ruin", "damage", "disappear", "burgle", "rob",
     "overflow", "freeze", "forget", "suffer", "struggle", "collapse", "delay", "strand", "overcharge", "flunk", "sprain", "spill",
     "drown", "chew", "scratch", "dent", "outgrow", "lag", "drop", "overdraw", "overspend", "evict", "fire", "sack", "dump", "lock", "tear", "sink"]
)
_MISHAP_WORDS = frozenset(
    ["allergic", "allergy", "sick", "ill", "illness", "pain", "painful", "sore", "dizzy", "injury", "injured", "broken", "stolen",
     "lost", "stuck", "stale", "slow", "missing", "expensive", "wrong", "dead", "outage", "error", "errors", "bug", "problem",
     "problems", "trouble", "accident", "emergency", "cramps", "migraine", "migraines", "headache", "infection", "worse", "overdue",
     "pending", "behind", "unpaid", "fraud", "scam", "strike", "storm", "nightmare", "disaster", "complaint", "complaints",
     "penalty", "debt", "leak", "flu", "fever", "rash", "insomnia", "exhausted", "burnout", "stress", "stressed", "anxious",
     "crashed", "failed", "worn", "mould", "mold", "damp", "overspent"]
)
# Irregular past forms of those verbs that classify's IRREGULAR lacks (``_verb_forms`` reads
# IRREGULAR, then regular endings).
_MISHAP_PAST = {"bit": "bite", "bitten": "bite", "stole": "steal", "stolen": "steal", "forgot": "forget", "forgotten": "forget",
                "overslept": "oversleep", "burnt": "burn", "outgrew": "outgrow", "outgrown": "outgrow", "spilt": "spill",
                "tore": "tear", "torn": "tear", "sank": "sink", "sunk": "sink", "frozen": "freeze",
                "fallen": "fall", "broken": "break", "died": "die", "dying": "die"}
_COSTS = frozenset({"price", "prices", "bill", "bills", "cost", "costs", "rent", "fee", "fees", "fare", "fares", "premium", "rate", "rates", "tuition"})
_RISES = frozenset({"raise", "rise", "rose", "double", "triple", "jump", "increase", "hike", "soar", "climb", "charge", "cost"})


_MONEY = re.compile(r"[$€£]\s?\d|\b\d[\d,.]*\s?(?:euros?|pounds?|dollars?|quid|bucks|usd|eur|gbp|k)\b|%", re.I)


def _costs_only(span: str) -> bool:
    """A reason that names nothing but a cost: "the cost", "the high price", "those fees"."""
    words = stems(span)
    return bool(words) and all(w in _COSTS or singular(w) in _COSTS or w in ("high", "higher", "extra") for w in words)


def _costly(text: str) -> bool:
    """A statement of what something costs: a cost word with an amount ("the bill was 400 pounds")."""
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    return bool(words & _COSTS or words & {"paid", "pay", "pays", "charged", "spent", "cost", "costs"}) and bool(_MONEY.search(text))


def _verb_forms(word: str) -> set[str]:
    """The base forms an inflected word may come from, by its ending only ("chewed" -> "chew",
    "bullied" -> "bully", "leaking" -> "leak"), so a word that only looks like a verb with a
    letter cut ("first" / "fire") is never read as one."""
    out = {word, IRREGULAR.get(word, word)}
    for suffix, adds in (("ing", ("", "e")), ("ied", ("y",)), ("ed", ("", "e")), ("ies", ("y",)), ("es", ("", "e")), ("s", ("",))):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            out.update(stem + a for a in adds)
            if suffix in ("ing", "ed") and len(stem) >= 4 and stem[-1] == stem[-2]:
                out.add(stem[:-1])  # "dropped" -> "drop"
            break
    return out


def mishap(text: str) -> bool:
    """Whether a statement tells of something that went wrong (see ``_MISHAP_VERBS``)."""
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'-]*", text)]
    if any(w in _MISHAP_WORDS for w in words):
        return True
    lemmas = [{_MISHAP_PAST[w]} if w in _MISHAP_PAST else _verb_forms(w) for w in words]
    if any(lem & _MISHAP_VERBS for lem in lemmas):
        return True
    # A cost that rose: "the venue raised its price", "the tickets would have cost 900 euros".
    return any(w in _COSTS for w in words) and any(lem & _RISES for lem in lemmas)


def _echo(want: set[str], old: Memory, new: Memory) -> float:
    """Evidence that a cue's phrase ("because of *the failed backup*") names ``old``: shared
    content words, crudely stemmed, two at least; one is enough when ``old`` was said just
    before in the same conversation (a definite "the migraines" then refers back to it). A
    generic word ("time", "issue", "team") is never content, so it never links. The one-word
    case holds for a short phrase only: a clause that happens to share a word needs two."""
    if not want:
        return 0.0
    shared = want & stems(said(old))
    if len(shared) >= 2:
        return float(len(shared))
    if shared and len(want) <= 3 and _close(old, new):
        return MIN_OVERLAP
    return 0.0


def _best(want: Terms, candidates: Sequence[Memory], want_stems: set[str] | None = None, new: Memory | None = None) -> Memory | None:
    best, target = 0.0, None
    for old in candidates:
        score = overlap(want, terms(old))
        if want_stems and new is not None:
            score = max(score, _echo(want_stems, old, new))
        if score >= MIN_OVERLAP and score > best:
            best, target = score, old
    return target


# A question without its "?" (``_asks``): a tag at the end of a one-clause sentence ("the
# hall's function room is upstairs right"), or a question word or an auxiliary before its subject
# ("how many chillies did u put", "will it fit 90 people tho"). Nineteenth round, from
# test15/test16's wrong targets: 2 wrong links gone there (an agreed "yes, so we're moving ..."
# to the tag question, an answer-related link to the "how many" question), none right lost;
# train ... test14: 1 wrong link gone, none right lost. The one-clause condition was chosen on
# test16: a tag after a clause of news ("it's indexing your whole 2tb external, you plugged it in
# last week right") tells that news, and read as a question it lost a right link there.
# ``_NOT_TAG``: the words before "right" that make it an adverb ("turn right", "got it right").
_TAG_END = re.compile(r"(?:,\s*|\s+)(?:right|eh|innit|isn['’]?t (?:it|that|she|he)|aren['’]?t (?:they|we|you)|wasn['’]?t (?:it|that)|"
                      r"don['’]?t (?:you|we|they)|didn['’]?t (?:you|we|they|it|he|she)|won['’]?t (?:it|they|you))\W*$", re.I)
_NOT_TAG = frozenset({"turn", "turned", "all", "that's", "it's", "get", "got", "just", "exactly", "the", "to", "on", "left", "go", "keep",
                      "far", "up", "done", "do", "did", "is", "was", "be", "right", "alright", "bottom", "top", "me", "it", "that", "you"})
_WH = frozenset({"WRB", "WP", "WDT", "WP$"})
_OPENERS = frozenset({"so", "ok", "okay", "and", "but", "oh", "hm", "hmm", "um", "wait", "well", "also", "then"})


@functools.lru_cache(maxsize=2048)
def _asks(text: str) -> bool:
    """A question, marked with "?" or not (see ``_TAG_END``)."""
    t = text.strip()
    if not t:
        return False
    if t.endswith("?"):
        return True
    tag = _TAG_END.search(t)
    if tag:
        before = t[: tag.start()].split()
        if before and not re.search(r"[,;:]", t[: tag.start()]) and re.sub(r"\W", "", before[-1].lower().replace("’", "'")) not in {re.sub(r"\W", "", w) for w in _NOT_TAG}:
            return True
    doc = _doc(t)
    toks = [tok for tok in doc if not tok.is_punct and tok.pos_ != "INTJ"]
    while toks and toks[0].lower_ in _OPENERS:
        toks = toks[1:]
    if not toks:
        return False
    first = toks[0]
    if first.tag_ in _WH:
        for a, b in zip(toks, toks[1:], strict=False):
            if a.lower_ in _AUX_WORDS and b.dep_ in ("nsubj", "nsubjpass", "expl"):
                return True
        return False
    return first.pos_ == "AUX" and first.lower_ in _AUX_WORDS and len(toks) > 1 and toks[1].dep_ in ("nsubj", "nsubjpass", "expl")


_AUX_WORDS = frozenset({"do", "does", "did", "is", "are", "was", "were", "can", "could", "will", "would", "should", "shall", "have", "has",
                        "had", "am", "may", "might", "must", "isn't", "aren't", "wasn't", "weren't", "didn't", "doesn't", "don't",
                        "won't", "can't", "couldn't", "wouldn't", "shouldn't", "haven't", "hasn't"})


@functools.lru_cache(maxsize=2048)
def _past(text: str) -> bool:
    """Whether the statement's main clause tells something that happened (a past or a present
    perfect main verb, read from the parse): "a strap got caught in the merge and the motor
    tripped", not "Belt 4's back in 30 minutes once I've cleared it". Read for "so it can't happen
    again" only: as a general preference of a consequence cue for an earlier event over a
    nearer neutral statement it cost train ... test14 10 right links (946 -> 936) for 3 gained
    on test15/test16, so it was dropped."""
    for tok in _doc(text.strip()):
        if tok.dep_ != "ROOT":
            continue
        for v in (tok, *[c for c in tok.children if c.dep_ == "conj" and c.pos_ in ("VERB", "AUX")]):
            if v.tag_ == "VBD":
                return True
            if v.tag_ == "VBN" and any(c.dep_ in ("aux", "auxpass") and c.lower_ in ("has", "have", "had", "'ve", "’ve", "'s", "’s", "got", "was", "were", "get", "gets")
                                       for c in v.children):
                return True
        return False
    return False



_BE = frozenset({"is", "'s", "’s", "was", "were", "are", "'re", "’re", "be", "been", "am"})
_FIRST_PERSON = frozenset({"i", "we", "you", "u"})


def _second_step(new: Memory, target: Memory, recent_first: Sequence[Memory]) -> Memory | None:
    """The statement said before ``target`` (``recent_first``: most recent first), a fact or a
    report, no question and no remark, that names most content words of the step ``new``."""
    close = [c for c in recent_first[: 2 * ANAPHOR_MAX_TURNS] if _close(c, new)]
    if target not in close:
        return None
    mine = stems(said(new))
    k = close.index(target)
    cands = [c for c in close[k + 1:] if c.type in (MemoryType.FACT, MemoryType.DEBUG_LOG) and not _asks(said(c))
             and not _reply_remark(c, new) and mine & stems(said(c))]
    if not cands:
        return None
    return max(cands, key=lambda c: (len(mine & stems(said(c))), -close.index(c)))


@functools.lru_cache(maxsize=2048)
def _states(text: str) -> bool:
    """Whether a statement tells how things are, with no step taken in it: every clause has
    "be" for its main verb ("the HDMI run is 20 metres"), is passive ("the probe is coated in
    carbon", "we got pushed onto it"), says what the speaker saw or thinks ("I saw it this
    morning"), or has no verb ("The cheap PVA from the craft shop."), and nothing marks a rule
    or a choice ("from now on", "then", "instead")."""
    if _POLICY.search(text):
        return False
    clauses = [c for c in re.split(r"[,;:.!?]+\s*|\s+-\s+|\s+(?:and|but)\s+", text.strip()) if re.search(r"[A-Za-z]", c)]
    if not clauses:
        return False
    for clause in clauses:
        doc = _doc(clause)
        if not any(t.pos_ in ("VERB", "AUX") for t in doc):
            if any(t.dep_ == "nsubj" and t.lower_ in _FIRST_PERSON for t in doc):
                return False  # "I only book rooms with free cancellation": a verb the tagger read as a noun
            continue
        root = next(t for t in doc if t.dep_ == "ROOT")
        if any(c.dep_ == "aux" and c.lower_ in _FUTURE for c in root.children):
            return False
        if root.lower_ in _BE or any(c.dep_ == "auxpass" for c in root.children):
            continue
        if root.lower_ in _PERCEIVE:
            continue
        return False
    return True


# The auxiliaries of a supposed act: "I'd stop", "we would pay more", "you could ask".
_SUPPOSING = frozenset({"would", "'d", "’d", "could", "might"})


@functools.lru_cache(maxsize=2048)
def _supposes(text: str) -> bool:
    """Whether a statement's main verb is only supposed, read from the parse: it has "would",
    "could" or "might" for its auxiliary ("And I'd use the middle shelf", "I'd have done the
    same", "we'd pay more than point-to-point tickets"), or an "if" / "unless" clause hangs
    from it ("drilling the winter wheat tomorrow if it stays dry"). A supposition or an advice
    takes no step, so with no cue and no word in common it answers no mishap said before it
    (the answered path's mishap branch, like ``_states``); an "if" inside a clause of its own
    ("a check that alerts if the count drops") leaves the main verb a step.

    Twenty-first round, from the mishap branch's proposals on train ... test17 (in sample): 6
    of them have a step supposed this way, 5 wrong (test11 ... test14, test17 twice; the head
    already dropped some) and none right (test3's "a check that alerts if ..." has its "if" in
    a relative clause; a rule told with its condition, "from now on, if ...", is a step). Scored
    after the head: test15 ... test17 227/336 -> 227/334 (2 wrong links gone, none right lost);
    train ... test14 unchanged (1082 links, 0.875). Read on that branch only: after a cue ("Given that,
    I'd like to raise my contribution") a supposed step is a decision's usual polite form, and
    the pointing-back cue's proposals with one are right 12 times of 14."""
    for tok in _doc(text.strip()):
        if tok.dep_ != "ROOT":
            continue
        if any(c.dep_ == "aux" and c.lower_ in _SUPPOSING for c in tok.children):
            return True
        # "From now on, if the gauge reads over 1 metre, sessions move to the loch": a rule is
        # told with its condition, and it is a step taken.
        return not _POLICY.search(text) and any(c.dep_ == "advcl" and any(m.dep_ == "mark" and m.lower_ in ("if", "unless") for m in c.children)
                   for c in tok.children)
    return False


# What marks a rule or a choice in a statement that otherwise only states ("All cron schedules
# are in UTC from now on", "Thursday at half seven then"), a step to come ("I'll give him
# buckets"), and the verbs of seeing and thinking that take no step ("I saw it this morning").
# Chosen on train ... test14's right links the first reading of ``_states`` lost (4 of them,
# all kept with these lists); test15/test16 unchanged by them.
_POLICY = re.compile(r"\b(?:from now on|going forward|from (?:today|tomorrow|tonight)|then|instead|until|till|for now|no more|always|never)\b", re.I)
_FUTURE = frozenset({"will", "'ll", "’ll", "shall", "going", "gonna", "must", "should", "'d", "’d", "would", "can"})
_PERCEIVE = frozenset({"saw", "see", "seen", "noticed", "notice", "think", "thought", "reckon", "guess", "suppose", "believe", "found", "find",
                       "checked", "looked", "know", "knew", "heard", "hear", "says", "said"})


# A step told as taken long before (see ``propose``).
_AGO = re.compile(r"\b(?:ago|years? back)\b", re.I)


def _asked_in_turn(old: Memory, new: Memory, recent_first: Sequence[Memory]) -> bool:
    """Whether ``old`` was said as a question in its turn, read from the turn's text as a later
    memory holds it (``meta.context``): ingest trims a tag question ("..., right?") to a statement."""
    t = old.meta.get("turn") if isinstance(old.meta, dict) else None
    if not isinstance(t, int):
        return False
    raw = None
    for m in (new, *recent_first):
        if m.session_id == old.session_id and isinstance(m.meta, dict) and m.meta.get("turn") == t + 1 and isinstance(m.meta.get("context"), str):
            raw = m.meta["context"]
            break
    if raw is None:
        return False
    mine = stems(said(old))
    if not mine:
        return False
    sentences = [x for x in re.split(r"(?<=[.!?])\s+", raw.strip()) if x]
    best = max(sentences, key=lambda x: len(mine & stems(x)), default="")
    return best.rstrip().endswith("?") and len(mine & stems(best)) >= max(1, len(mine) // 2)
