"""Candidate memories from conversation turns: by turn, then by sentence (spaCy).

What is dropped, and why (a memory should be a statement worth finding again):

- chatter: greetings, thanks, acknowledgements ("ok", "sounds good", "got it"), assistant
  boilerplate ("let me know if ...", "I hope this helps", "here is ..."), a letter's frame (the
  salutation "Dear Ms Patel," trimmed like a greeting, so the thanks behind it is thanks; "I
  hope you're well", "I am writing regarding ...", the sign-off "Best regards, Anna"), so it
  is neither a memory nor part of the statement beside it;
- questions and requests ("can you ...", "please write ..."): they ask, they do not state;
- suggestions nobody took yet ("you could ...", "maybe ...", "I'd suggest ...") and predictions
  ("that should help"): the decision or the outcome that follows, if any, is the memory;
- sentences too short to stand alone, or that name nothing (no entity, no subject) unless
  their type says they matter (a decision, a preference).

A sentence that only continues the one before it in the same turn ("Because ...", "That way
...", "It also ...") is joined to it, so a decision keeps its reason. Fenced code is left out of
the prose, except the last error line of a traceback, which is what a debug log should keep.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..models import MemoryType
from . import type_head
from .classify import classify_parsed
from .conversation import Turn
from .fingerprint import singular
from .statement import REPORTS, evidence

MAX_SENTENCE_CHARS = 600
MIN_WORDS = 4
# A candidate is kept when its strength reaches STATEMENT_THRESHOLD: its statement margin
# (statement.Prototypes.margin, on the memory's own vector), plus EVIDENCE_WEIGHT per kind of
# evidence (statement.evidence, 0-4), plus NOVELTY_WEIGHT * log(1 + its content words new to the
# conversation; see NOVELTY_WEIGHT), plus SELF_WEIGHT * log(1 + the first-person words of its
# whole turn). The last is the turn's own account of its speaker: what a person would keep from a
# personal conversation is mostly what its speakers tell about themselves ("I", "my", "we",
# "our"), and a turn that reacts to the other's news is about "you" and "that". It counts the
# whole turn, thanks and all ("Thanks! I finally signed the lease on my studio"), because which
# sentence of a turn carries the news is what the parse and the margin already judge; the turn
# says whose news it is. On the LoCoMo dev set (turn-level AUC of cited against uncited turns,
# nothing fitted) the count alone separates 0.780, the shipped strength 0.791, the two summed
# (z-scored) 0.806.
#
# The threshold, the evidence weight and the novelty weight (NOVELTY_WEIGHT, below) were chosen
# by leave-one-conversation-out on the LoCoMo dev conversations (scripts/eval_extract.py --folds
# loo) for the least shortfall from the two goals (cited turns kept >= 0.95, uncited <= 0.35; a
# lost cited turn counts twice): the folds chose (threshold, evidence, novelty) (-0.055, 0.0,
# 0.08), (-0.03, 0.10, 0.10), (-0.04, 0.0, 0.08); shipped: their median, which leaves the
# evidence out of the sum (it still overrules the parse's reaction frames: statement.REPORTS).
# Held out, pooled: cited kept 0.837, uncited kept 0.422 (without the novelty count the folds
# chose (-0.11, 0.02), (-0.14, 0.06), (-0.045, 0.08): 0.845 / 0.472). Re-run with the type rules
# that landed beside it: 0.811 / 0.404 held out (0.816 / 0.463 without the novelty count), in
# sample 0.833 / 0.380 (0.833 / 0.377 with the earlier types): two folds chose other constants.
#
# SELF_WEIGHT is 0 (off) because the two held-out measures disagree. With the self weight in the
# sweep (eval_extract.py --folds loo --self) the folds chose (threshold, evidence, self) (0.03,
# 0.06, 0.25), (0.03, 0.08, 0.25), (0.015, 0.0, 0.20): LoCoMo held out 0.840 / 0.392 against
# 0.845 / 0.472 without it (the curve moves: at uncited ~0.39, cited 0.78 -> 0.84). But at
# (0.03, 0.06, 0.25) the held-out labelled split tests/labelled/test.txt (summary figures from
# the test suite, not looked into) went statements kept 1.00 -> 0.974, chatter kept 0.071 ->
# 0.095, causal precision 0.895 -> 0.842: statements that do not speak of their speaker ("The
# cache key did not include ...") fall below the raised threshold, and first-person chatter
# rises. On train / train2: statements kept 0.976 -> 0.972, chatter kept 0.082 -> 0.045.
MARGIN_THRESHOLD = -0.04
MARGIN_EVIDENCE_WEIGHT = 0.0
MARGIN_SELF_WEIGHT = 0.0
# NOVELTY_WEIGHT * log(1 + the candidate's content words (nouns, names, numbers) that none of the
# NOVELTY_TURNS turns before it said): what a statement adds to the conversation. News brings
# its own things ("I adopted a kitten from the shelter on Saturday"); a reaction repeats the
# other's ("That kitten is so cute!") or names nothing ("You're doing great!"); only sentences
# that report count (statement.reports: "Lunch was nice today" brings no news). Held out on the
# LoCoMo dev set without a threshold (eval_extract.py --signals: for each conversation the
# weights that separate the other two best, its turn AUC): margin + evidence 0.820 / 0.792 /
# 0.785, with the novelty count 0.831 / 0.819 / 0.786. On the threshold's curve (--curve, pooled
# LOO, a lost cited turn costing 0.5 / 1 / 1.5 / 2 / 3 / 5 kept uncited): 0.792 / 0.362, 0.798 /
# 0.364, 0.811 / 0.392, 0.837 / 0.422, 0.856 / 0.475, 0.896 / 0.553, against 0.763 / 0.349,
# 0.776 / 0.371, 0.782 / 0.383, 0.845 / 0.472, 0.880 / 0.526, 0.899 / 0.557 without it. The
# window is not tuned: the last few turns are what a reply can echo (the count alone separates
# turns 0.771 / 0.781 / 0.782 / 0.779 / 0.773 for 1 / 3 / 5 / 10 / 20 turns, the whole
# conversation 0.735, before the reporting gate). On tests/labelled train + train2 + train3 at
# the shipped point every figure is unchanged (statements kept 0.982, chatter kept 0.073, types
# 0.928, causal precision 0.965, recall 0.716).
NOVELTY_TURNS = 5
MARGIN_NOVELTY_WEIGHT = 0.08
# REACTION_PENALTY: what a reaction costs against the threshold when it is weighed instead of
# dropped: a sentence the parse calls a reaction (statement.reaction), or a "Thanks for ..." that
# keep_sentence calls boilerplate, that carries something (a kind of evidence, or a noun new to
# the last NOVELTY_TURNS turns: "Thanks for driving me to the clinic on Friday!") becomes a
# candidate of its own, scored like any other less the penalty; a bare one ("That's so cool!")
# is dropped and never embedded. Infinite (as shipped): every reaction dropped by the parse, as
# before. Swept by the folds (scripts/eval_extract.py --folds loo --reactions: inf, 0.3 ... 0) on
# the LoCoMo dev set it is the better separator held out (turn AUC with the weights chosen on the
# other two: 0.830 / 0.819 / 0.783 -> 0.830 / 0.835 / 0.796; the folds chose 0.0, 0.20, 0.15),
# but not the better filter: held out, pooled, 0.833 / 0.450 (cited / uncited kept, 1.21
# memories a kept turn) against 0.816 / 0.415 (1.17) with the reactions dropped, the same
# shortfall (0.334 / 0.333), for about a third more texts to embed. The parse's ceiling on cited
# turns kept rises 0.910 -> 0.966 (uncited 0.577 -> 0.695): the praise and thanks the annotators
# turned into facts are within reach, but the margin does not tell them from the rest (within
# the reactions of two conversations, AUC 0.47).
MARGIN_REACTION_PENALTY = float("inf")
# The constants above (MARGIN_*) apply when the margin scores a candidate: the fallback when the
# learned head (statement_head, heads/statement.json) is not shipped for the embedder's model.
# As shipped the head scores it (its log-odds that the candidate is a statement, not chatter:
# trained on our labelled conversations and prototypes, never on LoCoMo; see
# scripts/train_statement.py), and the head already weighs the evidence, the new words, the
# turn's first-person words and the reaction flag among its features: only the threshold below
# is chosen on LoCoMo. Chosen leave-one-conversation-out on the dev conversations
# (scripts/eval_extract.py --folds loo: the least shortfall, a lost cited turn counting twice);
# shipped: the folds' median. The head refitted with the near-constant MiniLM dimensions left
# out (scripts/train_statement.py STD_FLOOR: dimensions 127, 223, 319, which the eleventh
# round's head weighed 6e31, -5e31, 1.5e7; grouped CV AUC 0.9519 at C 0.001, was 0.9527): the
# folds chose -1.46, -1.42, -1.46 (conv-26, conv-30, conv-41 left out), so -1.46 again (all
# three together choose it too). Held out, pooled: cited kept 0.848, uncited kept 0.401, 1.22
# memories a kept turn (was 0.835 / 0.401 / 1.21); per conversation 0.897 / 0.429, 0.836 /
# 0.350, 0.827 / 0.413; in sample at -1.46: 0.849 / 0.401 (was 0.856 / 0.414). Held-out curve
# (cost 0.5 / 1 / 1.5 / 2 / 3 / 5): 0.806 / 0.358, 0.809 / 0.363, 0.837 / 0.391, 0.848 /
# 0.401, 0.894 / 0.526, 0.912 / 0.577. On the spent labelled test9 and test10 (in sample: both
# among the head's splits) statements kept 0.94 and 0.94 as before, chatter kept 0.057 and
# 0.066 (was 0.057 and 0.058).
# Before the floor, the same refit (test10 added; its log-odds 0.18 lower on LoCoMo than the
# tenth round's head) had the folds choose -1.52, -1.46, -1.14: held out 0.835 / 0.401 / 1.21.
# Tenth round, the head refitted with test9 among its splits: the
# folds chose -1.46, -1.26, -1.10 (conv-26, conv-30, conv-41 left out), so -1.26 (all three
# together choose it too). Held out, pooled: cited kept 0.838, uncited kept 0.395, 1.22
# memories a kept turn; per conversation 0.897 / 0.441, 0.829 / 0.341, 0.811 / 0.396; in
# sample at -1.26: 0.853 / 0.400. The ninth round's head on the same code (folds -1.44, -1.44,
# -1.12, shipped -1.44): held out 0.837 / 0.407 (0.897 / 0.461, 0.842 / 0.359, 0.801 / 0.399),
# in sample 0.864 / 0.427. The held-out curve (--curve, cost of a lost cited turn 0.5 / 1 /
# 1.5 / 2 / 3 / 5): 0.816 / 0.358, 0.825 / 0.371, 0.838 / 0.395, 0.838 / 0.395, 0.862 / 0.468,
# 0.904 / 0.567 against 0.804 / 0.356, 0.811 / 0.375, 0.833 / 0.405, 0.837 / 0.407, 0.886 /
# 0.509, 0.905 / 0.576. On the spent labelled test ... test9 (in sample) the move to -1.26
# trades 8 statements kept of 2,205 for 7 chatter units of 684 (the new head at -1.44: 2,093
# and 49; at -1.26: 2,085 and 42; the ninth round's at -1.44: 2,094 and 55). The margin as
# shipped before the head: 0.814 / 0.416 / 1.19 held out (0.885 / 0.484, 0.868 / 0.447,
# 0.749 / 0.348). Measured and not shipped (the ninth round's folds): the evidence and novelty
# weights added on top (eval_extract.py --weights; a first head without the "reports" feature:
# 0.835 / 0.412 against 0.840 / 0.422 without them, two more constants for nothing), and the
# reactions that carry something weighed by the head instead of dropped (REACTION_PENALTY 0: 0.861 / 0.434, 1.25 memories a kept turn;
# the held-out curve within ~0.02 of this one's, for about a third more texts to embed).
STATEMENT_THRESHOLD = -1.46
EVIDENCE_WEIGHT = 0.0
SELF_WEIGHT = 0.0
NOVELTY_WEIGHT = 0.0
REACTION_PENALTY = float("inf")

_ACK = (
    r"(?:ok(?:ay)?|k|sure(?: thing)?|yes|yeah|yep|yup|no|nope|thanks?(?: you)?(?: (?:so|very) much)?|thx|ty|cool|great|nice|"
    r"awesome|perfect|got it|sounds good|sounds great|makes sense|lol|haha|hmm+|hi|hello|hey|good (?:morning|afternoon|evening|night)|"
    r"morning|bye|see you|cheers|np|no problem|you'?re welcome|welcome|right|alright|all right|exactly|agreed|true|indeed|i see|"
    r"of course|will do|done|on it|excellent|wonderful|fair enough|noted|understood|interesting|wow|oh|a lot|again|man|mate|"
    r"everyone|all|team|there|(?-i:[A-Z][a-z]+)|"
    # A letter's salutation and sign-off ("Dear Rob,", "Best regards, Anna", "Yours sincerely"):
    # its frame, not what it says.
    r"dear|(?:(?:best|kind|warm(?:est)?)\s+)?regards|best wishes|all the best|yours(?:\s+(?:sincerely|faithfully|truly))?|"
    r"sincerely|take care|best|love)"
)
# A turn or sentence made only of acknowledgements, greetings and a name or two.
CHATTER = re.compile(rf"^\W*{_ACK}(?:[\s,!.]+{_ACK})*\W*$", re.I)
BOILERPLATE = re.compile(
    r"^(?:let me (?:know|check|think|see|look|explain|help)|i hope (?:this|that) helps|happy to help|glad (?:to|i could) help|"
    r"feel free|here(?:'s| is| are) (?:the|a|an|what|how|some|my|your)|as an ai|great question|good question|does (?:that|this) help|"
    r"is there anything else|anything else|sure[,!]|of course[,!]|certainly[,!]|absolutely[,!]|no worries|thanks for|thank you for|"
    r"i'?m (?:happy|glad) to|hope (?:this|that) helps|in summary|to summari[sz]e|let'?s (?:see|take a look|dive|break)|one moment|"
    r"good (?:morning|afternoon|evening)|hi\b|hello\b|hey\b|"
    # A letter's pleasantry and its announcement of what it is about ("I hope you're well",
    # "I am writing regarding my tax return"): the statements follow.
    r"(?:i )?hope (?:you(?:'re| are)(?: all)? (?:well|keeping well|doing well)|this (?:email |message |letter |note )?finds you|"
    r"all(?:'s| is) well|you(?:'ve| have) been well)|"
    r"i(?:'m| am)? writ(?:e|ing) (?:regarding|concerning|in (?:connection with|reference to|relation to)|with (?:regard|reference) to|further to)\b)",
    re.I,
)
REQUEST = re.compile(
    r"^(?:please|pls|can you|could you|would you|will you|can we|could we|write|show me|give me|tell me|explain|help me|"
    r"generate|create a|make a|list|describe|summari[sz]e|translate|remind me)\b",
    re.I,
)
SUGGESTION = re.compile(
    r"^(?:you (?:could|might|may want to|can|should consider|may)|consider|maybe|perhaps|i(?:'d| would) (?:suggest|recommend)|"
    r"i (?:suggest|recommend)|one option|another option|an alternative|alternatively|you might|it might be|it may be|"
    r"what about|how about|if you)\b",
    re.I,
)
# Predictions and hopes ("That should help", "Great, this will keep memory flat") state nothing yet.
SPECULATION = re.compile(
    r"^(?:(?:great|nice|perfect|cool|good|ok(?:ay)?|sure|yes|yeah|right|awesome)[,!.]?\s+)?(?:that|this|it)(?:'ll|\s+(?:should|will|would|might|could|may))\b",
    re.I,
)
CONTINUATION = re.compile(
    r"^(?:because|since|that'?s because|this is because|the reason|that way|which|so that|it (?:also|is|was|has|had|will)|"
    r"this (?:means|is|was|way)|that (?:means|is|was)|they (?:are|were|have)|also because|mainly because)\b",
    re.I,
)
ROLES = frozenset({"user", "assistant", "human", "ai", "bot", "system", "me", "you", "model", "gpt", "claude", "chatgpt"})
FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|me|my|mine)\b")
# The speaker speaking of themselves, alone or with others ("I'm" counts once, as "I").
SELF_WORDS = re.compile(r"\b(?:I|me|my|mine|myself|we|us|our|ours|ourselves)\b(?!\.\w)", re.I)
THANKS = re.compile(r"^(?:thanks|thank you)\s+(?:so much\s+|a lot\s+)?for\s+\S", re.I)
_FENCE = re.compile(r"```.*?(?:```|$)", re.S)
_ERROR_LINE = re.compile(r"^\s*(?:[A-Za-z_][\w.]*(?:Error|Exception)\b.*|Traceback \(most recent call last\).*|(?:error|fatal|panic):\s.+)$", re.M)
_MD_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+", re.M)
_MD_EMPHASIS = re.compile(r"(\*\*|__|~~)")


@dataclass
class Candidate:
    turn: Turn
    part: int
    text: str
    type: MemoryType
    spans: list[Any] = field(default_factory=list)
    sentences: list[str] = field(default_factory=list)
    score: float = float("inf")  # the statement margin (statement.Prototypes.margin) when measured
    evidence: int = 0  # the most kinds of evidence one of its sentences has (statement.evidence)
    self_refs: int = 0  # first-person words in its whole turn (``self_refs``)
    novel: int = 0  # its content words not said in the NOVELTY_TURNS turns before (``novel_words``)
    reacts: bool = False  # a reaction weighed instead of dropped, REACTION_PENALTY against it
    after_question: bool = False  # the turn just before asked something (a "?" in it)
    accepts: bool = False  # takes up an act the other speaker just proposed (``takes_up``): kept whatever its score
    by_head: bool = True  # scored by the learned head (statement_head), else by the margin: whose constants apply

    @property
    def speaker(self) -> str | None:
        return self.turn.speaker

    def join(self, text: str, sent: Any) -> None:
        """Another sentence of the same statement."""
        self.text = f"{self.text} {text}"
        self.spans.append(sent)
        self.sentences.append(text)
        self.type = classify_parsed(self.text, self.spans)
        self.evidence = max(self.evidence, evidence(sent))

    @property
    def strength(self) -> float:
        """The margin with the evidence, the turn's first-person words and the content words new
        to the conversation: what ``STATEMENT_THRESHOLD`` is compared with."""
        evidence, own, novelty, penalty = weights(self.by_head)
        return (self.score + evidence * self.evidence + own * math.log1p(self.self_refs)
                + novelty * math.log1p(self.novel) - (penalty if self.reacts else 0.0))


def weights(by_head: bool) -> tuple[float, float, float, float]:
    """(evidence, self, novelty weight, reaction penalty) for a score by the head or by the margin."""
    if by_head:
        return EVIDENCE_WEIGHT, SELF_WEIGHT, NOVELTY_WEIGHT, REACTION_PENALTY
    return MARGIN_EVIDENCE_WEIGHT, MARGIN_SELF_WEIGHT, MARGIN_NOVELTY_WEIGHT, MARGIN_REACTION_PENALTY


def threshold(by_head: bool) -> float:
    return STATEMENT_THRESHOLD if by_head else MARGIN_THRESHOLD


@dataclass
class ExtractStats:
    turns: int = 0
    chatter_turns: int = 0
    sentences: int = 0
    dropped: int = 0


def is_person(speaker: str | None) -> bool:
    """A speaker name that is a person's (so "I" in the text means them), not a role. A handle in
    lower case ("jo", "dev1", as chat apps show them) is a person too: requiring a capital left
    their memories unattributed (test8 named its speaker in 0.987 of memories, test9 in 0.707,
    all of the misses lower-case handles; found after each split's single scoring)."""
    name = (speaker or "").strip()
    return bool(name) and name.lower() not in ROLES and any(ch.isalpha() for ch in name)


# Role words that are also what people are called at work ("Assistant" beside "Ecologist" in a
# field survey, a pawnbroker's or a hostel warden's assistant).
TITLES = frozenset({"assistant"})


def people(speakers: Iterable[str | None]) -> set[str]:
    """The speakers of one conversation who are people (``is_person``), and with them a speaker
    called by a role word that is also a job title (``TITLES``) when it is written as a name is
    (capitalised: chat exports and mnemo's own history import write the role in lower case,
    "user" / "assistant", or "Alice" / "assistant" with ``--me``) and every other speaker is a
    person: in "Ecologist" / "Assistant" the assistant is a colleague whose "I" is their own.
    Beside another role ("User" / "Assistant", "Human" / "Assistant") it stays the AI role.

    test22's summary named 0.993 of memories at the twenty-first round's freeze, its six unnamed
    ones from conversations with a person called "Assistant" (read after the freeze); test20
    holds one such conversation (in sample)."""
    said = [s for s in speakers if s is not None and s.strip()]
    names = {s.strip() for s in said}
    persons = {n for n in names if is_person(n)}
    titled = {n for n in names - persons if n.lower() in TITLES and n[0].isupper()}
    if persons and titled and names == persons | titled:
        persons |= titled
    return {s for s in said if s.strip() in persons}


def prose(text: str) -> str:
    """The turn's text as sentences spaCy can split: code fences out (their last error line
    kept), Markdown bullets and emphasis off, each bullet ending as a sentence."""
    errors = []
    for block in _FENCE.findall(text):
        found = _ERROR_LINE.findall(block)
        if found:
            errors.append(found[-1].strip())
    body = _FENCE.sub("\n", text)
    body = _MD_EMPHASIS.sub("", body)
    lines = []
    for line in body.splitlines():
        stripped = _MD_BULLET.sub("", line).strip()
        if re.match(r"^#{1,6}\s", stripped):
            stripped = stripped.lstrip("#").strip()
            stripped = stripped + "." if stripped and stripped[-1] not in ".!?:" else stripped
        if stripped and stripped != line.strip() and stripped[-1] not in ".!?:;,":
            stripped += "."
        lines.append(stripped)
    body = "\n".join(lines)
    # A line break ends a sentence unless the line clearly runs on.
    body = re.sub(r"(?<=[^\s.!?:;,])\n(?=[A-Z])", ".\n", body)
    return "\n\n".join([body.strip(), *errors]).strip()


# ("Good afternoon, I received a letter ..." too: the greeting would drop it as boilerplate;
# eighth round, a cause of test7 lost that way.)
# A letter's salutation ("Dear Ms Patel,", "Dear Sir or Madam,", "Dear team,") likewise: a few
# words after "Dear" up to the comma; what follows it is the letter ("Dear Rob, thank you for your
# letter." is then thanks).
_GREETING = re.compile(
    r"^(?:(?:(?:hey|hi|hello|hiya|good (?:morning|afternoon|evening))(?:\s+(?-i:[A-Z][a-z]+))?|oh|and|btw|by the way|anyway)\b[\s,!]*"
    r"|dear(?:\s+[\w.'’-]+){0,4}\s*,\s*)+(?=\S)", re.I)
_TAG_QUESTION = re.compile(r"(?:\s*[-–—,]\s*(?:pretty|so|really)\s+\w+)?\s*,?\s*(?:huh|right|eh|isn'?t it|don'?t you think|you know)\?$", re.I)


def trim(text: str) -> str:
    """A statement without the greeting in front ("Hey Gina, I had to ...") or the tag question
    behind ("... not so long ago - pretty cool, huh?"): they would hide it as chatter."""
    out = _TAG_QUESTION.sub(".", _GREETING.sub("", text))
    return out[:1].upper() + out[1:] if re.search(r"[A-Za-z]", out) else text


def self_refs(text: str) -> int:
    """How many words of a turn are its speaker speaking of themselves ("I", "my", "we", "our"
    ...); "US" in capitals is the country."""
    return sum(1 for m in SELF_WORDS.finditer(text) if m.group(0) != "US")


def content_words(spans: Sequence[Any], reporting: bool = False) -> frozenset[str]:
    """The nouns, names and numbers of parsed text, lower-cased and singular
    (``fingerprint.singular``: the pipeline has no lemmatizer): what a statement is about, and
    what a reaction repeats or lacks.
    ``reporting``: only of the sentences that report something (``statement.reports``): the
    lunch of "Lunch was nice today" is no news."""
    from .statement import reports

    out = set()
    for span in spans:
        if reporting and not reports(span):
            continue
        for t in span:
            if t.pos_ in ("NOUN", "PROPN", "NUM") and not t.is_stop and len(t.text) > 1:
                out.add(singular(t.lower_))
    return frozenset(out)


def keep_sentence(text: str) -> bool:
    s = text.strip()
    if not s or len(s) > MAX_SENTENCE_CHARS:
        return False
    if s.endswith("?") or any(p.match(s) for p in (CHATTER, BOILERPLATE, REQUEST, SUGGESTION, SPECULATION)):
        return False
    return len(re.findall(r"[A-Za-z][\w'’-]*", s)) >= 3


def _sentences(doc: Any) -> Iterator[Any]:
    for sent in doc.sents:
        if sent.text.strip():
            yield sent


# The dependents of a sentence's main verb that can be a second main clause run on without
# punctuation ("tried three cables same thing ordered a new dock": the parser, finding no
# boundary, hangs the second verb on the first as its complement or conjunct). All figures in
# sample (no fresh split scored), statements kept / chatter kept / types / causal precision /
# recall, before -> after: test12 (the diagnosis split it was found on) 0.914 / 0.108 / 0.849 /
# 0.659 / 0.384 -> 0.917 / 0.108 / 0.850 / 0.664 / 0.394; test11 0.872 / 0.072 / 0.898 / 0.710 /
# 0.386 -> 0.877 / 0.072 / 0.896 / 0.725 / 0.402; test ... test10 pooled 0.955 / 0.067 / 0.910 /
# 0.931 / 0.632 -> 0.955 / 0.067 / 0.911 / 0.933 / 0.634; train ... train4 unchanged. LoCoMo held
# out (eval_extract.py --folds loo, the folds' thresholds as before): 0.848 / 0.400 / 1.26
# unchanged.
_RUN_ON_DEPS = frozenset({"ccomp", "conj", "parataxis"})


def _run_on(sent: Any) -> int | None:
    """Where a second main clause starts inside one unpunctuated sentence, or None: a verb
    hanging on the main verb (``_RUN_ON_DEPS``) after it, with its own subject at the start of
    its clause, nothing between the two clauses to join them (no punctuation, no "and", "but",
    "because", "that"), and the main verb's own clause not ended by it: another of the main
    verb's dependents comes between them ("pointing it at the read replica now that's fixed it";
    but "I think the cache was wrong" and "turns out the key was wrong" are one statement: the
    verb takes the clause as its object). A clause after a noun whose verb has no object of its
    own is that noun's relative clause without "that" ("the calf raises the physio gave me").
    Measured and not kept (twelfth round, after test12 was scored): an unpunctuated "so" before a subject cut like
    ". So ..." (test12, in sample, precision / recall 0.664 / 0.394 -> 0.687 / 0.417), because
    the cause cut off falls under the statement threshold on its own ("Jealous, it rained here
    the whole time") and the consequence links elsewhere: test8's near-misses linked 0.02 ->
    0.03."""
    root = sent.root
    if root.pos_ not in ("VERB", "AUX"):
        return None
    doc = sent.doc
    for c in root.children:
        if c.dep_ not in _RUN_ON_DEPS or c.i <= root.i or c.pos_ not in ("VERB", "AUX"):
            continue
        subj = next((t for t in c.children if t.dep_ in ("nsubj", "nsubjpass", "expl")), None)
        if subj is None:
            continue
        start = subj.left_edge.i
        if c.left_edge.i != start or start <= sent.start + 1 or start >= sent.end - 1 or not doc[start].is_alpha:
            continue
        if any(t.dep_ in ("mark", "cc") or t.is_punct for t in c.children if start < t.i < c.i):
            continue
        between = doc[root.i + 1:start]
        if not len(between) or any(t.is_punct or t.dep_ in ("cc", "mark") or t.pos_ in ("CCONJ", "SCONJ") for t in between):
            continue
        if doc[start - 1].pos_ in _THINGS and c.pos_ == "VERB" and not any(
                t.dep_ in ("dobj", "ccomp", "xcomp") for t in c.children):
            continue
        return start
    # The parser may make the second clause the main one and hang the first on it ("consumer lag
    # hit 2M around 04:10 one pod kept failing its probe"): the first a clause of its own with
    # its subject, ending where the main verb's subject starts, and the main verb with its own
    # object or complement after it ("... I guess" is the speaker's hedge, not a statement).
    subj = next((t for t in root.children if t.dep_ in ("nsubj", "nsubjpass")), None)
    if subj is None or not any(t.dep_ in _OWN_OBJECT for t in root.children if t.i > root.i):
        return None
    start = subj.left_edge.i
    for c in root.children:
        if c.dep_ not in _RUN_ON_DEPS or c.i >= root.i or c.pos_ not in ("VERB", "AUX") or c.right_edge.i + 1 != start:
            continue
        if not any(t.dep_ in ("nsubj", "nsubjpass", "expl") for t in c.children) or c.right_edge.i == c.i:
            continue
        if any(t.dep_ in ("mark", "cc") for t in c.children) or doc[start - 1].is_punct:
            continue
        if start - sent.start < 3 or start >= sent.end - 2:
            continue
        return start
    return None


_OWN_OBJECT = frozenset({"dobj", "prep", "acomp", "attr", "xcomp", "dative", "oprd", "npadvmod", "advcl"})


_SUBJ = frozenset({"nsubj", "nsubjpass", "expl"})
# Words after "so" that make it filler or a degree, never a clause's subject: "so yeah", "so
# anyway", "so what do you think", "so much", "so that" (a purpose).
_SO_NOT = frozenset({"that", "yeah", "anyway", "what", "much", "many", "far", "long", "well", "so", "too", "yes", "no", "ok",
                     "okay"})
_BE = frozenset({"am", "'m", "’m", "are", "'re", "’re", "is", "'s", "’s"})
_HAVE = frozenset({"have", "has", "'ve", "’ve", "had", "'d", "’d"})


def _done(verb: Any) -> bool:
    """Whether a verb tells of an act done or under way (past, perfect or progressive; not
    negated, no modal): "so we pinned 2.x", "so we're playing at the astro", "so I've cut down";
    not an aim or a state ("so it can set overnight", "so it doesn't happen again", "so they
    match", "so timing is tight")."""
    aux = [c for c in verb.children if c.dep_ in ("aux", "auxpass", "neg")]
    if any(c.dep_ == "neg" or c.tag_ == "MD" for c in aux):
        return False
    if verb.tag_ == "VBD":
        return verb.lower_ not in ("was", "were")
    if verb.tag_ == "VBN":
        return any(c.lower_ in _HAVE for c in aux)
    if verb.tag_ == "VBG":
        return any(c.lower_ in _BE for c in aux)
    return False


def _clause_subject(doc: Any, lo: int, hi: int) -> Any:
    """The subject nearest the end of doc[lo:hi] whose verb is inside it, or None."""
    return next((t for t in reversed(doc[lo:hi]) if t.dep_ in _SUBJ and lo <= t.head.i < hi and t.head.pos_ in ("VERB", "AUX")),
                None)


# Issue #16, thirteenth round: "so" without punctuation between two clauses ("the pitch is
# flooded so we're playing at the astro tonight"). In sample (test12 is the diagnosis split it
# was found on; test ... test11 and train* spent), statements kept / causal precision / recall,
# before -> after: test12 0.917 / 0.664 / 0.394 -> 0.924 / 0.687 / 0.417; test ... test10
# pooled 0.955 / 0.933 / 0.634 -> 0.956 / 0.934 / 0.637; test11 0.877 / 0.725 / 0.402 -> 0.878 /
# 0.728 / 0.408; train ... train4 unchanged; near-misses linked unchanged on each (test8 0.02).
# LoCoMo held out (eval_extract.py --folds loo, the folds' thresholds as before): 0.848 / 0.400 /
# 1.26 unchanged. Cut before any "so" followed by a subject (last round's reading, not kept):
# test12 the same 0.687 / 0.417, but purposes cut off ("... so it can set overnight", 17 cuts
# inside one labelled unit on the spent splits against 9 between two) and test8's near-misses
# linked 0.02 -> 0.03: "jealous, it rained here the whole time" cut off falls under the
# statement filter, and the consequence links to the other speaker's news instead.
# Measured and not kept (same splits, on top of this): a second verb without a subject of its
# own cut off like a sentence ("the form crashed twice on the dropdown ended up phoning them",
# a past-tense verb with its own object after a noun that ends the first clause, or after the
# noun the parser took for its subject where that noun follows a verb as its object), with a
# subjectless past-tense sentence after a thing counted as the speaker's (``_another_statement``:
# "... its impeller was clogged. Cleaned the impeller ..."): test12 statements kept 0.924 ->
# 0.926, causal 0.687 / 0.417 unchanged, types 0.854 -> 0.848; test11 0.878 -> 0.884, precision
# 0.728 -> 0.724, recall 0.408 -> 0.413; pooled test ... test10 recall 0.637 -> 0.638; LoCoMo
# 0.848 / 0.400, 1.26 -> 1.27 memories a kept turn. The small parser seldom leaves the second
# verb without a subject (it hangs the first clause's last noun on it), so the form fired 6
# times on the sixteen spent splits, one inside a labelled unit; "-ing" verbs too cut
# participles after nouns ("photos showing the blind was broken").
def _so_cut(sent: Any) -> list[int]:
    """Where a consequence joined by "so" without punctuation starts: "so" between two clauses,
    each with its own subject, the second an act done or under way (``_done``: "so we pinned
    2.x", not a purpose "so it can set overnight"), and the first about a thing or the speaker
    ("the pitch is flooded", "I can't stand fish"): a cause said as "it rained here the whole
    time" leans on the conversation for what it is about and would not stand as a memory of its
    own. "So yeah", "so anyway", "so good", "so much" and "so that" are not cut."""
    doc = sent.doc
    out = []
    for t in sent:
        k = t.i
        if t.lower_ != "so" or k < sent.start + 3 or k > sent.end - 3:
            continue
        prev, nxt = doc[k - 1], doc[k + 1]
        if prev.is_punct or prev.pos_ in ("CCONJ", "SCONJ", "ADP", "AUX", "DET", "PART") or nxt.lower_ in _SO_NOT:
            continue
        subj = next((s for s in doc[k + 1:sent.end] if s.dep_ in _SUBJ and s.left_edge.i == k + 1 and s.head.i > s.i
                     and s.head.pos_ in ("VERB", "AUX")), None)
        if subj is None or not _done(subj.head):
            continue
        cause = _clause_subject(doc, sent.start, k)
        if cause is None or not (cause.pos_ in _THINGS or cause.lower_ in _SPEAKER):
            continue
        out.append(k)
    return out


def _cuts(sent: Any) -> list[int]:
    """Where a second statement may start inside one sentence (``_run_on``, ``_so_cut``), in order."""
    found = set(_so_cut(sent))
    start = _run_on(sent)
    if start is not None:
        found.add(start)
    return sorted(found)


def _pieces(sents: Iterator[Any], turn: Turn) -> Iterator[Any]:
    """The sentences, an opener the parser ran into the sentence after it set apart first
    (``_inner_openers``), with one that runs two statements together (``_cuts``) cut where the
    second starts, when the second would start a memory of its own after a sentence boundary
    (``_starts_apart``): both halves kept as statements on their own, neither a reaction (the
    first place that passes; the rest is looked at again). Otherwise the sentence is left whole,
    as the parser found it."""
    for sent in sents:
        for piece in _inner_openers(sent):
            yield from _cut(piece, turn, 0)


# Issue #16, twenty-third round: an opener the parser ran into the sentence after it ("Handover
# for bay C. Mrs K... had two falls": one sentence to the parse, "C." an initial; a salutation's
# comma before "The coach company ..."; "Clever lad 🙄 I've locked ..."), and a greeting that
# reports nothing before a clause (``_greets`` in ``_announces``: "Hi Mrs O, it's Kev the plumber,
# about your hot water."). Read on test14 ... test19 (a script listing memories that hold a
# chatter unit and the statement after it: 21 before, 17 after); nothing fitted. Development
# figures (test14 ... test19 pooled, in sample for the rules), statements kept / chatter kept /
# types / causal precision / recall: 0.876 / 0.204 / 0.861 / 0.736 / 0.301 -> 0.877 / 0.206 /
# 0.862 / 0.741 / 0.303 (the missed boundaries alone: 0.877 / 0.205 / 0.861 / 0.739 / 0.302).
# Held out, test20 (summary only, scored once): 0.893 / 0.118 / 0.815 / 0.719 / 0.298 -> 0.898 /
# 0.118 / 0.817 / 0.721 / 0.301; test21 unchanged (0.892 / 0.131 / 0.849 / 0.788 / 0.417).
# LoCoMo (eval_extract.py --folds loo): cited kept 0.849 -> 0.849, uncited 0.400 -> 0.401,
# 1,098 -> 1,108 memories, 1.28 -> 1.29 a kept turn. Measured and not kept: a colon as a missed
# boundary after words with no finite verb or no evidence ("Update from the site visit: ...",
# "So here's the thing: ..."): on top, test14 ... test19 0.878 / 0.206 / 0.862 / 0.740 / 0.302.
_FINITE = frozenset({"VBZ", "VBP", "VBD", "MD"})
# Abbreviations written with a full stop in front of a name: "Dear Mr. Keller", "Dr. Mistry",
# "St. Albans" (on the spent splits and LoCoMo the only full stops read inside a sentence before
# a capital, but for "Handover for bay C.").
_TITLES = frozenset({"mr", "mrs", "ms", "dr", "st", "prof", "rev", "mt", "fr", "sr", "jr", "messrs", "capt", "sgt", "lt",
                     "col", "gen", "gov", "sen", "rep", "hon", "no", "vs", "ft"})


def _symbol(tok: Any) -> bool:
    """Whether a token is a pictograph (an emoji: Unicode symbol class So), which ends a
    sentence in chat the way "!" does ("Clever lad 🙄 I've locked the settings ...")."""
    return bool(tok.text) and all(unicodedata.category(c) in ("So", "Mn", "Cf", "Sk") for c in tok.text)


def _inner_boundary(doc: Any, k: int) -> bool:
    """Whether a sentence boundary the parser missed falls before doc[k]: a capital after a
    full stop the parser read inside the sentence ("Handover for bay C. Mrs Kowalczyk ...": it
    took "C." for an initial), after a pictograph ("🙄 I've ..."), or after a comma where the
    capital starts no name ("Dear parents of Year 10, The coach company ...", a salutation run
    into the letter)."""
    prev, tok = doc[k - 1], doc[k]
    if not tok.text[:1].isupper() or not tok.is_alpha:
        return False
    if _symbol(prev):
        return True
    if prev.text.endswith(".") and prev.text != "...":
        return prev.lower_.rstrip(".") not in _TITLES
    return prev.text == "," and tok.tag_ not in ("NNP", "NNPS") and tok.lower_ != "i"


def _inner_openers(sent: Any) -> Iterator[Any]:
    """A sentence with an opener the parser ran into it cut after the opener: a boundary it
    missed (``_inner_boundary``), the words before it no clause (no finite verb, no personal
    pronoun: "Handover for bay C.", "Dear parents and carers,", "Clever lad 🙄") and the words
    after it a clause of their own (a subject and a finite verb). The opener is then judged alone
    by the statement filter, and the statement after it starts its own memory (``_opened``)."""
    doc = sent.doc
    for k in range(sent.start + 2, sent.end - 3):
        if not _inner_boundary(doc, k):
            continue
        left, right = doc[sent.start:k], doc[k:sent.end]
        if any(t.tag_ in _FINITE or t.tag_ == "PRP" for t in left):
            continue
        # The subject may be read into the opener ("Handover" the subject of "had"): asked of
        # the whole sentence, its verb after the boundary.
        if not (any(t.tag_ in _FINITE for t in right) and any(t.dep_ in _SUBJ and t.head.i >= k for t in sent)):
            continue
        yield left
        yield right
        return
    yield sent


def _opened(prev: Candidate, sent: Any) -> bool:
    """Whether a piece starts right after an opener ``_inner_openers`` cut off its sentence."""
    last = prev.spans[-1]
    return (len(prev.spans) == 1 and last.end == sent.start and sent.start > sent.sent.start
            and _inner_boundary(sent.doc, sent.start))


def _cut(sent: Any, turn: Turn, depth: int) -> Iterator[Any]:
    from .statement import reaction

    for start in _cuts(sent):
        left, right = sent.doc[sent.start:start], sent.doc[start:sent.end]
        ltext, rtext = trim(left.text.strip()), trim(right.text.strip())
        if not (keep_sentence(ltext) and keep_sentence(rtext)) or reaction(left) or reaction(right):
            continue
        first = Candidate(turn, 0, ltext, classify_parsed(ltext, [left]), [left], [ltext], evidence=evidence(left))
        if _starts_apart(first, rtext, classify_parsed(rtext, [right]), right):
            yield left
            if depth < 3:
                yield from _cut(right, turn, depth + 1)
            else:
                yield right
            return
    yield sent


# Issue #16, fifteenth round: a decision said as an imperative or "let's" taking up what the
# other speaker proposed ("I'd recommend TPLO surgery, and we can book it for Wednesday." ->
# "Okay, book it."). The parse calls every imperative a reaction ("Keep it up!", "Let's boogie!"),
# and the reply's words are the proposal's, so nothing new lets it through as a reaction that
# carries something. A proposal is a clause with a modal or a suggesting verb, or a question; the
# reply takes it up when its own main verb is the proposed act's verb (the same lemma), or its
# object is the proposal's: encouragement ("Keep it up!") does not repeat a proposed act.
# Measured (today's heads; nothing fitted): LoCoMo held out (eval_extract.py --folds loo) cited
# kept 0.848 -> 0.849, uncited kept 0.401 -> 0.405, 1.26 memories a kept turn unchanged (it fires
# on 6 sentences of the three conversations, 3 in cited turns: "Let's get together and make the
# dance studio look awesome!"); in sample, statements kept test13 0.895 -> 0.896 ("Okay, book
# it."), test12 0.925 and test14 0.886 unchanged, chatter kept, types and causal precision /
# recall unchanged on all three (the kept decision is not linked to its proposal yet). A first
# reading that took any verb under the reply's root and any question's noun fired on "Can't wait
# to see your pottery project" and took uncited kept to 0.410: the imperative is now a bare verb
# with no subject, auxiliary or negation of its own, first in the sentence after an interjection.
# The score a candidate that takes up a proposal gets at least: above every threshold the folds
# of scripts/eval_extract.py try (HEAD_GRID ends at 4.0), so the sweeps see it kept as ingest does.
ACCEPTED = 4.0
_PROPOSING = frozenset({"recommend", "suggest", "propose", "advise", "offer"})
_GENERIC_ACTS = frozenset({"be", "do", "have", "get", "go", "let", "make", "keep", "take", "know", "see", "say", "tell", "think"})


def proposals(doc: Any) -> frozenset[str]:
    """The acts a turn proposes (verbs under a modal or a suggesting verb, or in a question; their
    words, lower-cased: the pipeline has no lemmatizer) and the things they are about (the nouns
    under them)."""
    out: set[str] = set()
    for sent in doc.sents:
        question = sent.text.strip().endswith("?")
        for t in sent:
            if t.pos_ != "VERB" or t.lower_ in _GENERIC_ACTS:
                continue
            modal = any(c.tag_ == "MD" for c in t.children)
            suggested = t.head.lower_ in _PROPOSING and t.dep_ in ("xcomp", "ccomp", "dobj")
            if modal or suggested or question or t.lower_ in _PROPOSING:
                out.add(t.lower_)
                out.update(c.lower_ for c in t.subtree if c.pos_ in ("NOUN", "PROPN"))
    return frozenset(out)


def takes_up(sent: Any, offer: frozenset[str]) -> bool:
    """Whether an imperative or "let's" sentence takes up an act the other speaker's turn just
    before proposed (``proposals``): its verb that act's, or its object a thing the proposal is
    about. An imperative is a bare verb with no subject, auxiliary or modal of its own ("book it",
    not "can't wait to see it", "sharing it might help"); a wish or thanks ("appreciate your
    support") never takes anything up."""
    from .statement import _SOFT_VERBS

    if not offer:
        return False
    root = sent.root
    if root.pos_ != "VERB" or root.tag_ != "VB" or root.i != _first_word(sent):
        return False
    verb = root
    if root.lower_ == "let":
        verb = next((c for c in root.children if c.dep_ in ("ccomp", "xcomp") and c.pos_ == "VERB"), None)
        if verb is None:
            return False
    elif any(c.dep_ in ("nsubj", "nsubjpass", "csubj", "expl", "aux", "neg") for c in root.children):
        return False
    if verb.lower_ in _SOFT_VERBS:
        return False
    things = {t.lower_ for t in verb.subtree if t.pos_ in ("NOUN", "PROPN")}
    return (verb.lower_ not in _GENERIC_ACTS and verb.lower_ in offer) or bool(things & offer)


def _first_word(sent: Any) -> int:
    """The index of a sentence's first word after an interjection or an acknowledgement ("Okay,",
    "Yes,", "Sure"), its punctuation and a name said to the addressee."""
    for t in sent:
        if t.is_punct or t.pos_ in ("INTJ", "PROPN") or t.dep_ in ("intj", "npadvmod", "punct") and t.i < sent.root.i:
            continue
        return t.i
    return sent.start


def candidates(
    turns: Sequence[Turn], batch_size: int = 64, progress: Callable[[int], None] | None = None
) -> tuple[list[Candidate], ExtractStats]:
    """Candidate memories in conversation order (turn, then position in the turn): the
    statements of a turn make one memory, except that a decision stands apart from what led to
    it, and a sentence that opens with a consequence ("So we ...", "As a result ...") starts a
    new one. The statement margin is left to ``judge``, on the vectors the memories are stored
    with. ``progress`` is called with 1 per turn handled."""
    from .entities import nlp
    from .statement import reaction

    stats = ExtractStats(turns=len(turns))
    # Made whenever either scorer weighs them; the other's infinite penalty drops them in judge.
    weigh_reactions = float("inf") != min(REACTION_PENALTY, MARGIN_REACTION_PENALTY)
    todo: list[tuple[Turn, str]] = []
    for t in turns:
        if CHATTER.match(t.text.strip()):
            stats.chatter_turns += 1
            if progress:
                progress(1)
            continue
        body = prose(t.text)
        if body:
            todo.append((t, body))
        elif progress:
            progress(1)
    asked = {t.index for t in turns if "?" in t.text}
    out: list[Candidate] = []
    model = nlp()
    said: deque[frozenset[str]] = deque(maxlen=NOVELTY_TURNS)  # the content words of the turns just before
    proposed: tuple[str | None, frozenset[str]] = (None, frozenset())  # the last turn's speaker and the acts it proposed
    for (turn, body), doc in zip(todo, model.pipe((b[:100000] for _, b in todo), batch_size=batch_size), strict=True):
        mine: list[Candidate] = []
        reacting: list[Candidate] = []
        own = self_refs(body)
        offer = proposed[1] if proposed[0] is not None and proposed[0] != turn.speaker else frozenset()
        proposed = (turn.speaker, proposals(doc))
        for sent in _pieces(_sentences(doc), turn):
            stats.sentences += 1
            text = trim(sent.text.strip())
            # "Because it is faster." continues; "Because of X, we did Y." is a statement.
            fronted = re.match(r"^(?:because|since)\b", text, re.I) and "," in text
            # "Which is why I bought ..." is a consequence, not a relative clause running on
            # ("So that ..." still runs on: a purpose).
            why = re.match(r"^(?:which|this) is why\b", text, re.I)
            if mine and CONTINUATION.match(text) and not fronted and not why and not text.endswith("?"):
                mine[-1].join(text, sent)
                continue
            # "Thanks for driving me to the clinic on Friday!" is boilerplate to keep_sentence
            # and a reaction to the parse; weighed with the reactions when they are.
            thanks = weigh_reactions and bool(THANKS.match(text)) and not text.endswith("?")
            if not keep_sentence(text) and not thanks:
                stats.dropped += 1
                continue
            accepts = takes_up(sent, offer)
            if thanks or (reaction(sent) and not accepts):
                if weigh_reactions:
                    reacting.append(Candidate(turn, 0, text, classify_parsed(text, [sent]), [sent], [text],
                                              evidence=evidence(sent), self_refs=own, reacts=True))
                else:
                    stats.dropped += 1
                continue
            kind = classify_parsed(text, [sent])
            if mine and not _starts_apart(mine[-1], text, kind, sent):
                mine[-1].join(text, sent)
                mine[-1].accepts |= accepts
                continue
            mine.append(Candidate(turn, len(mine), text, kind, [sent], [text], evidence=evidence(sent), self_refs=own,
                                  accepts=accepts))
        before = frozenset().union(*said)
        for c in mine + reacting:
            c.novel = len(content_words(c.spans, reporting=True) - before)
        said.append(content_words([doc]))
        for c in reacting:
            # A reaction that carries something (a kind of evidence, or a noun the turns before
            # did not say: "Thanks for driving me to the clinic on Friday") is weighed; a bare
            # one ("That's so cool!") is dropped, never embedded.
            if c.evidence or c.novel:
                c.part = len(mine)
                mine.append(c)
            else:
                stats.dropped += 1
        for c in mine:
            c.after_question = turn.index - 1 in asked
        out.extend(mine)
        if progress:
            progress(1)
    return out, stats


CONSEQUENCE = re.compile(
    r"^(?:so\b|as a (?:result|consequence)|that'?s why|that’s why|which is why|this is why|hence|therefore|consequently|thus\b|"
    r"for (?:that|this) reason|to (?:stop|prevent|avoid)|after that\b|because of (?:that|this)\b|now that\b|"
    # The same connective in other words: "Due to this, training moves to ...", "Thanks to that
    # we bought ...", "In that case we will ...".
    r"(?:due|owing|thanks) to (?:that|this)\b|in that case\b|accordingly\b|given (?:that|this),)",
    re.I,
)


# The speaker saying that what follows is another matter: "On a happier note, ...", "By the way
# ...", "Separately, ...", "Anyway, ...". Read on the sentence as said (``trim`` takes "btw", "by
# the way" and "anyway" off its front). The labels agree: of the 17 such sentences inside a turn
# of train ... test21, 15 are units of their own (one more follows a bare "Thanks."). Twenty-fifth round: joined to
# the sentence before, the memory was read as that sentence and a pointer back to the news after
# the marker linked the wrong statement ("The hall heating is broken again. On a happier note,
# the fund has given us 600 pounds." "Thanks to that, we're buying ..."). test14 ... test19 out
# of sample (diagnose_links, with the earlier-own-step rule): 732 / 528 -> 732 / 529 (F0.5 0.5497
# -> 0.5507); validation test22 (summary) unchanged (164 / 124, statements 0.866, types 0.803),
# test20 / test21 unchanged; LoCoMo (eval_extract --folds loo) 0.849 / 0.401 / 1.29, 1,108
# memories, unchanged.
TOPIC_SHIFT = re.compile(
    r"^(?:on (?:a|an)(?: \w+)? note\b|on another (?:note|topic|matter)\b|by the way\b|btw\b|separately\b|"
    r"in other news\b|unrelated(?:ly)?\b|anyways?\b|anyhow\b|different topic\b|changing the subject\b)",
    re.I,
)


def _fronted_cause(sent: Any) -> bool:
    """A causal clause in front of the main clause: "Since the queue was that long, we're
    opening a second table", "Because we can't store them, we gave ..." (the conjunction a
    subordinating marker of a clause of the sentence's main verb, a comma between them). "Since
    2018 we ..." and "Because of the rain ..." are prepositions, not clauses."""
    toks = [t for t in sent if not t.is_space]
    if len(toks) < 4 or toks[0].lower_ not in ("because", "since") or toks[0].dep_ != "mark":
        return False
    clause = toks[0].head
    return clause.dep_ == "advcl" and clause.head == sent.root and any(t.text == "," for t in toks[1:])


def _starts_apart(prev: Candidate, text: str, kind: MemoryType, sent: Any = None) -> bool:
    """Whether a sentence of the same turn starts a memory of its own instead of joining the
    one before: a consequence (in so many words, or a fronted causal clause: "Since the queue
    was that long, we're opening ..." is the consequence of the sentence before, which is its
    own memory to link to), a second statement about another subject (``_another_statement``),
    or a decision, preference or debug log next to a statement of another kind (a decision apart
    from its cause, a taste apart from the news around it)."""
    if CONSEQUENCE.match(text) or (sent is not None and _fronted_cause(sent)):
        return True
    if sent is not None and TOPIC_SHIFT.match(sent.text.strip()):
        return True
    if sent is not None and (_announces(prev, sent) or _opened(prev, sent)):
        return True
    if sent is not None and _another_statement(prev, sent):
        return True
    if sent is not None and prev.type == MemoryType.DECISION and _another_act(sent):
        return True
    if prev.type == MemoryType.DECISION and kind == MemoryType.DECISION:
        # A second decision: each act has its own reason to link (see the note above _DISTINCT).
        return True
    return kind != prev.type and (kind in _DISTINCT or prev.type in _DISTINCT)


# Issue #16, sixteenth round: a heading in front of the statement it announces ("Announcement for
# the novice squad. Two of the Saturday crew have mono, ..."). Joined, the memory's words are
# mostly the statement's, but it opens with the heading, which states nothing: the scorer maps it
# to the heading's unit, and a link to it joins the wrong end. The heading then stands apart, and
# the statement head judges it alone (it keeps most: "Notice to plot holders." is a fact to it).
# Nothing fitted. Held out, it is shown only as part of the round: test17 (untouched, scored once
# at 8ab4f65 with this rule in) 0.869 / 0.208 / 0.795 / 0.610 / 0.274, the measures below, within
# the spread of the last writers' splits on the code before it; no before/after on a fresh split.
# LoCoMo's figure below is held out for the statement threshold, but its conditions were read on
# LoCoMo's dev turns too. In sample (test15 the diagnosis split it was found on, scripts/diagnose_ends.py;
# test13 and test14 read for it too), statements kept / chatter kept / types / causal precision /
# recall, before -> after: test15 0.875 / 0.208 / 0.788 / 0.612 / 0.269 -> 0.881 / 0.208 / 0.790
# / 0.620 / 0.273; test14 0.886 / 0.251 / 0.824 / 0.699 / 0.286 -> 0.887, the rest unchanged;
# test13 and train ... test12 pooled (0.942 / 0.072 / 0.930 / 0.917 / 0.582) unchanged. LoCoMo
# held out (eval_extract.py --folds loo, the folds' thresholds as before): 0.849 / 0.405 / 1.26
# unchanged, 1,092 -> 1,094 memories. Measured and not kept: the heading dropped instead of
# judged (test15 chatter kept 0.208 -> 0.191, but statements kept 0.881 -> 0.878 and precision
# 0.620 -> 0.615: telegraphic statements are verbless too, "Under the scope, yes, rods
# everywhere."); a first reading without the full stop, pronoun and "'s" conditions (the same
# labelled figures, LoCoMo 1,095 memories, 1.27 a kept turn: "Luna and Oliver!", "Your art's
# amazing, Caroline." set apart from what follows). Also measured on top and not kept, the two
# other merge classes of the diagnosis: two clauses about different things set apart when either
# reports (``_another_statement`` asks both): test15 statements kept 0.881 -> 0.889, precision
# 0.620 -> 0.648, recall 0.273 -> 0.287, but test14 unchanged, test13 types 0.859 -> 0.857, and
# LoCoMo 1,094 -> 1,106 memories (1.28 a kept turn: chit-chat evaluations, "The view from the top
# was amazing! The 2 younger kids love nature."); a comma splice cut like a run-on (a subject
# right after a comma, a clause with its own subject before it, the cut kept only where
# ``_starts_apart`` sets the halves apart): statements kept test14 0.887 -> 0.897, test15 0.883,
# test13 0.901, but types 0.824 -> 0.818, 0.790 -> 0.785, 0.859 -> 0.844 and test14 recall 0.286
# -> 0.282.
def _heading(sent: Any) -> bool:
    """Whether a sentence is a heading, a noun phrase with no verb of its own, said flatly
    ("Announcement for the novice squad.", "Handover for bay 3.", "Couple of things on #812.",
    "Bad news from Hurtigruten."): its root a noun, a name or a number, ending in a full stop or a
    colon (an exclamation, "Great news, John!", is a reaction, not an announcement), with no
    verb, no finite auxiliary, no personal pronoun and no "'s" in it (the small parser takes the
    copula of "Pottery's so relaxing." for a possessive, and a verb it mistags for a noun leaves
    its subject: "I color-code achievements")."""
    words = [t for t in sent if not t.is_space]
    if sent.root.pos_ not in ("NOUN", "PROPN", "NUM") or not words or words[-1].text not in (".", ":"):
        return False
    return not any(t.pos_ == "VERB" or (t.pos_ == "AUX" and t.tag_ in ("VBZ", "VBP", "VBD", "MD")) or t.tag_ == "PRP"
                   or t.lower_ in ("'s", "’s") for t in sent)


# Issue #16, twenty-second round: an opener that states nothing, in front of the statement of its
# turn ("Quick update on the Q3 offsite. The hotel in Bath has double-booked ...", "Not at all.
# Our supplier's order portal is down ..."). Of 128 wrong causal links into true decisions on
# test14 ... test19, 47 had such a cause memory: joined, the memory opens with the opener, the
# scorer maps it to the opener's unit, and a recalled memory begins "Quick update on ...". The
# heading rule above missed them: the parse hangs the subject on the auxiliary ("The hotel" on
# "has"), the opener's head is no noun ("Not at all.", "All on track!"), or a verb is mistagged
# inside a noun phrase ("Callout debrief from Saturday", "Dear Ms Achebe, re: Flat 4"). Two
# readings of "states nothing", both the parse's and the statement code's, nothing fitted (REPORTS
# is statement.py's): no finite predicate (``_verbless``) before a clause with a subject, or no
# kind of evidence at all (statement.evidence) before a clause that reports (REPORTS kinds).
# The opener is then judged alone by the statement filter, and the statement is its own memory.
# Development figures (test14 ... test19, where the cases were read), statements kept / chatter
# kept / types / causal precision / recall: 0.875 / 0.205 / 0.862 / 0.733 / 0.299 -> 0.879 /
# 0.203 / 0.862 / 0.742 / 0.305 (links made 764 -> 770); the first reading alone 0.876 / 0.204 /
# 0.861 / 0.736 / 0.301. LoCoMo (eval_extract.py --folds loo, held out for the threshold): cited
# kept 0.849 -> 0.849, uncited kept 0.400, 1.27 -> 1.29 memories a kept turn (1,107 memories; the
# first reading alone 1,097, 1.27). Held out, test20 (summary figures only, scored once with both
# readings in): 0.893 / 0.118 / 0.815 / 0.719 / 0.298 -> 0.900 / 0.118 / 0.819 / 0.719 (97/135)
# / 0.298, near-misses linked 1/126 unchanged. After the freeze (9c1f362, test21 scored once on it:
# 0.893 / 0.131 / 0.848 / 0.788 / 0.417) the full suite showed the second reading splitting a
# plain statement from its reason ("The choir rehearses in the crypt. Since 2018, the crypt has
# been our only free room.", tests/test_extract_segments.py): a sentence with no evidence may
# still be a clause with its subject, which states something. Narrowed to an opener that is no
# clause, it reads as the first alone: test14 ... test19 0.876 / 0.204 / 0.861 / 0.736 / 0.301;
# test20 0.893 / 0.118 / 0.815 / 0.719 / 0.298 (no change); test21, a second read, spent: 0.892 /
# 0.131 / 0.849 / 0.788 / 0.417 (the previous round's code's figures); LoCoMo 0.849 / 0.400 / 1.28.
def _verbless(sent: Any) -> bool:
    """Whether a sentence has no finite predicate, said flatly or exclaimed ("Not at all.", "All
    on track!", "Callout debrief from Saturday, the walker with the ankle."): its head no verb,
    no finite verb or auxiliary, no subject, no personal pronoun and no "'s" in it (a verb the
    small parser mistags inside a noun phrase, "Callout", "re", is no predicate)."""
    words = [t for t in sent if not t.is_space]
    if not words or words[-1].text not in (".", ":", "!") or sent.root.pos_ in ("VERB", "AUX"):
        return False
    return not any(t.tag_ in _FINITE or t.dep_ in _SUBJ or t.tag_ == "PRP"
                   or t.lower_ in ("'s", "’s") for t in sent)


def _clause(sent: Any) -> bool:
    """Whether a sentence is a clause: a verb at its head and a subject in it (on the verb or,
    as the parse sometimes has it, on its auxiliary: "The hotel has double-booked ...")."""
    return sent.root.pos_ in ("VERB", "AUX") and any(t.dep_ in _SUBJ for t in sent)


def _announces(prev: Candidate, sent: Any) -> bool:
    """Whether a candidate is only an opener that states nothing and the sentence after it the
    statement it opens: a heading (``_heading``) before a clause with its own subject, a sentence
    with no finite predicate (``_verbless``) before a clause, or a sentence with no kind of
    evidence, itself no clause, before a clause that reports (``statement.REPORTS`` kinds: a
    clause with its subject states something, "The choir rehearses in the crypt."), or a
    greeting with no kind of evidence (``_greets``) before a clause."""
    if len(prev.spans) != 1 or prev.accepts:
        return False
    opener = prev.spans[0]
    if _heading(opener) and _subject(sent) is not None:
        return True
    if not _clause(sent):
        return False
    # prev.evidence is its one sentence's (set when the candidate was made)
    if prev.evidence == 0 and _greets(opener):
        return True
    return _verbless(opener) or (not _clause(opener) and prev.evidence == 0 and evidence(sent) >= REPORTS)


def _greets(sent: Any) -> bool:
    """Whether a sentence opens by greeting or answering the other speaker: an interjection
    first ("Hi", "Yes", "Okay"), or a name or title said to them and set off by a comma before
    any verb ("Mrs Osei, ...", "Dear residents, ...")."""
    toks = [t for t in sent if not t.is_space]
    if not toks:
        return False
    if toks[0].pos_ == "INTJ" or toks[0].dep_ == "intj":
        return True
    comma = next((t.i for t in toks if t.text == ","), None)
    if comma is None:
        return False
    head = sent.doc[sent.start:comma]
    return (not any(t.pos_ in ("VERB", "AUX") for t in head)
            and any(t.pos_ in ("PROPN", "NOUN") and t.dep_ in ("npadvmod", "dep", "intj", "vocative") for t in head))


# Issue #16, twelfth round: a second statement in the same turn. In sample on the labelled splits
# (test11 is the diagnosis split this reading was found on; test ... test10 and train* spent),
# statements kept / chatter kept / types / causal precision / recall, before -> after: test11
# 0.846 / 0.078 / 0.838 / 0.581 / 0.293 -> 0.872 / 0.078 / 0.829 / 0.632 / 0.326 (the pieces now
# kept on their own are typed by the head about half right); test ... test10 pooled 0.951 / 0.065
# / 0.920 / 0.923 / 0.633 -> 0.954 / 0.065 / 0.921 / 0.928 / 0.637; train ... train4 unchanged.
# Held out on LoCoMo (eval_extract.py --folds loo: the folds choose the threshold, -1.46 / -1.42 /
# -1.46 as before), cited / uncited kept / memories a kept turn: 0.848 / 0.401 / 1.22 -> 0.848 /
# 0.400 / 1.26. The subjects and the evidence are the two halves of the reason; measured without
# either (LoCoMo held out; test11 adjacent sentences of different labelled units left joined, of
# 128; 43 before, 23 with this reading):
# - any noun subject after another subject, no evidence asked (last round's reading): 0.846 /
#   0.399 / 1.28, 23 joined. Encouragement and praise split ("I'm here to support you. Every
#   step's getting you closer to your dream.", a cited turn) fall under the statement filter part
#   by part where the whole turn passed. With the evidence asked of both sentences
#   (statement.evidence: the speaker as subject or owner, a time, a named thing or number, a past
#   event) no LoCoMo turn is kept or dropped otherwise at the shipped threshold: the parts that
#   report stand on their own;
# - any subject but a third-person pronoun, evidence asked: 0.848 / 0.400 / 1.30, 23 joined: the
#   speaker's own story ("I went to a pride parade last Friday. We had a great time") in pieces;
# - a noun subject only (not "I" after a thing): 0.848 / 0.401 / 1.25, 29 joined: the cause and
#   the fix of one turn ("The antenna cable was loose. I tightened it") stay together;
# - no pronoun in the new sentence pointing back (it, they, this ...) asked on top: 28 joined.
_THINGS = frozenset({"NOUN", "PROPN"})
_SPEAKER = frozenset({"i", "we"})


def _subject(sent: Any) -> Any:
    """The subject of a sentence's main verb, or None (a fragment, a verb without one)."""
    from .statement import subject_of

    root = sent.root
    return subject_of(root) if root.pos_ in ("VERB", "AUX") else None


def _another_statement(prev: Candidate, sent: Any) -> bool:
    """Whether a sentence is a second statement, not more of the one before: both are complete
    clauses about different subjects, where the new one is about a thing or someone named ("The
    chartplotter lost its GPS fix twice yesterday. The antenna cable was loose at the
    connector.") or the speaker after a thing ("... The antenna cable was loose. I tightened it
    this morning."), and each reports something on its own (``statement.evidence``: a time, a
    named thing or number, a past event, the speaker as subject or owner). The speaker's own
    story (I ... we ... I) stays one memory, and so does praise or encouragement, whose parts
    would each fall under the statement filter where the whole passed."""
    from .statement import reports

    new, old = _subject(sent), _subject(prev.spans[-1])
    if old is not None and old.pos_ in _THINGS and _speaker_act(sent) and reports(prev.spans[-1]):
        # The speaker's act with the "I" left out, after a thing: "The filter bowl was half
        # water. Drained the tank and fitted a new filter." The act reports on its own (the
        # speaker did it); the finding before it is a clause about a thing that reports.
        return True
    if new is None or old is None or singular(new.lower_) == singular(old.lower_):
        return False
    if not (new.pos_ in _THINGS or (old.pos_ in _THINGS and new.lower_ in _SPEAKER)):
        return False
    return evidence(sent) >= 1 and evidence(prev.spans[-1]) >= 1


# Issue #16, fourteenth round: the speaker's act without its "I" after a finding about a thing
# (``_another_statement``). All figures in sample (no fresh split scored; test13 is the diagnosis
# split it was found on: four of its 28 effects merged into their cause's memory were such acts),
# statements kept / types / causal precision / recall, before -> after: test13 0.892 / 0.859 /
# 0.631 / 0.364 -> 0.894 / 0.859 / 0.636 / 0.372; test12 0.924 / 0.881 / 0.719 / 0.426 -> 0.925 /
# 0.882 / 0.721 / 0.431; test11 0.878 / 0.910 / 0.736 / 0.424 -> 0.880 / 0.910 / 0.726 / 0.418
# (one link moves to the act's nearer neighbour: "Lost about 200 shots" now stands apart);
# test ... test10 pooled and train ... train4 unchanged. LoCoMo held out (eval_extract.py --folds
# loo, the folds' thresholds as before): 0.848 / 0.401 / 1.26, 1,088 memories, unchanged.
# Without the finding asked to report (statement.reports: "the PL259 was full of corrosion" is an
# evaluation to the parse): test13 the same links, types 0.858; test11 precision 0.720.
# Verbs a sentence can open with, past participles, that are not the speaker's act with the "I"
# left out: "Given that it's partial, ...", "Based on the scan, ...".
_NOT_ACTS = frozenset({"given", "based", "compared", "considering", "according", "including", "regarding", "excluding",
                       "assuming", "provided", "supposed", "used", "done", "gone", "been", "was", "were", "had"})


def _speaker_act(sent: Any) -> bool:
    """Whether a sentence is the speaker's act told without its subject, as people log what they
    did ("Drained the tank and fitted a new filter.", "Replaced the connector, SWR is back to
    1.3."): it opens (after "yes", "ok" or a comma) with a past-tense verb that has no subject of
    its own and takes an object."""
    toks = [t for t in sent if not (t.is_punct or t.is_space or t.pos_ == "INTJ")]
    if not toks:
        return False
    verb = toks[0]
    if verb.tag_ not in ("VBD", "VBN") or verb.lower_ in _NOT_ACTS or not verb.is_alpha:
        return False
    if any(c.dep_ in _SUBJ or c.dep_ == "auxpass" for c in verb.children):
        return False
    return any(c.dep_ in ("dobj", "prt") for c in verb.children)


# In sample (test13 the diagnosis split: two of its effects merged into a sibling decision's
# memory opened with "And I've ..." / "And we're ..."), statements kept / recall: test13 0.894 ->
# 0.895, links unchanged (the act stands apart; its link goes elsewhere); test ... test10 pooled
# 0.955 / 0.652 -> 0.956 / 0.654, precision 0.932 unchanged; test12, test11, train* unchanged.
# LoCoMo held out 0.848 / 0.401 / 1.26, 1,088 memories, unchanged.
def _another_act(sent: Any) -> bool:
    """Whether a sentence opens with "And" and tells another act of the speaker's, done or under
    way ("And I've ordered a portable AC unit as backup.", "And we're fitting a socket cover"):
    after a decision, a second decision, with a cause of its own to link."""
    toks = [t for t in sent if not (t.is_punct or t.is_space)]
    if len(toks) < 4 or toks[0].lower_ != "and":
        return False
    root = sent.root
    subj = _subject(sent)
    return subj is not None and subj.lower_ in _SPEAKER and subj.i > toks[0].i and _done(root)


# Issue #16, twentieth round: a sentence typed a decision after a memory typed a decision starts
# a memory of its own ("I'm booking it into the dealer for the patch on Thursday. Until then I'll
# use the Ionity at the services, it's a newer charger."): two acts, each with a cause of its own
# to link (the charger's error to the booking, the newer charger to the stopgap), where joined the
# rules could link only one. ``_another_act`` asked for "And" in front; the type asks for none.
# Development figures (test15 ... test17, where the misses were read: of the 262 ends of missed
# gold links not stored as a memory of their own, 164 were merged into a memory of another unit
# of their turn, 98 dropped), statements kept / chatter kept / types / causal precision / recall,
# before -> after: 0.869 / 0.218 / 0.799 / 0.676 / 0.259 -> 0.875 / 0.218 / 0.800 / 0.681 /
# 0.260. Held out, the check split test18 + test19 (summary figures only): 0.865 / 0.170 / 0.789
# / 0.738 / 0.283 -> 0.868 / 0.170 / 0.788 / 0.739 / 0.284; LoCoMo (eval_extract.py --folds loo)
# 1,094 -> 1,100 memories, 1.26 -> 1.27 a kept turn, cited kept 0.849 -> 0.848, uncited kept
# 0.405 unchanged.
# Measured on test15 ... test17 and not kept:
# - an act under way or done (``_done``) with a subject of its own after a finding about a thing
#   ("X-ray done, the cob is stuck in the small intestine. They're operating tonight."): on top of
#   this rule 0.878 / 0.218 / 0.800 / 0.686 / 0.264, but LoCoMo 1,113 memories, 1.29 a kept turn
#   (a mood said of a thing, then the speaker's news, set apart); with the speaker, the simple
#   past and "be" left out of the act, test15 ... test17 fell to 0.881 / 0.220 / 0.801 / 0.676 /
#   0.262 with the next item;
# - a clause with its own subject and finite verb run on without punctuation or conjunction
#   ("... so it couldn't dump heat he cleaned them and it's back to 3.5") cut like a sentence, the
#   halves set apart by ``_starts_apart`` or when both report: statements kept up to 0.884, but
#   causal precision 0.673 - 0.688 by how strictly the boundary was read, near-misses linked
#   0.003 -> 0.005, and on LoCoMo relative clauses without "that" and fronted time adverbs cut
#   off as clauses: 11 memories more.
_DISTINCT = frozenset({MemoryType.DECISION, MemoryType.PREFERENCE, MemoryType.DEBUG_LOG})


def judge(cands: Sequence[Candidate], vectors: Any, named: Sequence[bool], embedder: Any,
          stats: ExtractStats | None = None) -> list[int]:
    """Which candidates to keep, given each one's stored vector (of its text as it will be
    saved; ``named``: with the speaker's name in front). With a semantic ``embedder``, a
    candidate whose ``strength`` (margin to the labelled chatter plus its evidence, its turn's
    first-person words and its new content words) is below
    ``STATEMENT_THRESHOLD`` is dropped, and a debug log unlike the examples' failures becomes a
    fact. Returns the indices kept, in order; renumbers ``part`` within each turn."""
    import numpy as np

    from .statement import prototypes

    protos = prototypes(embedder)
    if protos is None:
        return list(range(len(cands)))
    vectors = np.asarray(vectors, dtype=np.float32)
    flags = np.asarray(named, dtype=bool)
    scores, by_head = statement_scores(cands, vectors, flags, embedder, protos)
    kept: list[int] = []
    for i, c in enumerate(cands):
        c.score, c.by_head = float(scores[i]), by_head
        if c.accepts:
            c.score = max(c.score, ACCEPTED)
        if c.strength < threshold(by_head) or c.strength == float("-inf"):
            if stats is not None:
                stats.dropped += len(c.sentences)
            continue
        v = vectors[i]
        if c.type == MemoryType.DEBUG_LOG and not protos.near(v, "debug_log", named=bool(flags[i])):
            # "The boiler broke down" is not a debug log: nothing like it among the examples'
            # software and system failures.
            c.type = MemoryType.FACT
        # No vote of the nearest examples re-types a fact: with types from the parse
        # (classify_parsed), the vote moved 11 train facts to a wrong type for 3 it fixed
        # (scripts/eval_labelled.py --split train,train2, the vote held out per conversation:
        # types 0.942 with it, 0.971 without).
        kept.append(i)
    # The learned type head (nlp/type_head.py) has the last word on the types, when it fits
    # this embedder; the rules' types above are among its inputs and the fallback.
    type_head.retype([cands[i] for i in kept], vectors[kept], embedder)
    prev: Candidate | None = None
    for i in kept:
        c = cands[i]
        c.part = prev.part + 1 if prev is not None and prev.turn is c.turn else 0
        prev = c
    return kept


def statement_scores(cands: Sequence[Candidate], vectors: Any, named: Any, embedder: Any, protos: Any) -> tuple[Any, bool]:
    """Each candidate's statement score, and whether the head gave it: the learned head's
    log-odds (``statement_head``) when it is shipped for this embedder, else the margin to the
    labelled chatter (``statement.Prototypes.margin``)."""
    import numpy as np

    from .statement_head import features, head

    h = head(embedder)
    if h is not None and vectors.ndim == 2 and vectors.shape[1] == len(h.vector_w):
        feats = np.stack([features(c, bool(n)) for c, n in zip(cands, named, strict=True)]) if len(cands) else np.zeros((0, 0))
        return h.score(vectors, feats), True
    margins = np.zeros(len(cands), dtype=np.float32)
    for form in (False, True):
        rows = np.flatnonzero(named == form)
        if len(rows):
            margins[rows] = protos.margin(vectors[rows], named=form)
    return margins, False


def substantive(c: Candidate, entities: Sequence[str], subjects: Sequence[str]) -> bool:
    """Whether a candidate names something (or is a kind of memory that matters anyway)."""
    if c.accepts:
        # "Okay, book it." names nothing, but says yes to what the turn before proposed (``takes_up``).
        return True
    words = len(re.findall(r"[A-Za-z][\w'’-]*", c.text))
    if c.evidence >= REPORTS and words >= MIN_WORDS:
        # What reports with two kinds of evidence (the speaker as subject with a time, a past
        # act) names its speaker and when, though what it is about is a pronoun: "We're having it
        # extracted and replaced in March", "From Monday we keep it to 15 and take problems to a
        # follow-up call" (eighth round: two of test7's decisions were lost here).
        return True
    if c.type in (MemoryType.DECISION, MemoryType.PREFERENCE, MemoryType.DEBUG_LOG):
        return bool(entities or subjects) or words >= MIN_WORDS + 2
    return bool(entities or subjects) and words >= MIN_WORDS
