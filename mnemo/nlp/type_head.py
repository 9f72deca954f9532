"""A learned combiner for memory types: a multinomial logistic regression over the rules' type
(``classify.classify_parsed``), a few parse features, a few conjunctions of them (``CUE_NAMES``),
the memory's MiniLM vector (the one it is stored with, so nothing is embedded twice) and its
thread: the rules' types of the memories before and after it and the mean vector of those
around it (``context_blocks``).

Why: rules written from one labelled split's confusions did not carry over to the next (four
fresh splits scored 0.778 / 0.794 / 0.765 / 0.786 types while each round's own split rose in
sample); a combiner fitted on every spent split weighs the rules' verdict against what the
sentence means, and is judged on a split it was not fitted on (``scripts/train_types.py``).

Only numpy at run time: the coefficients are in ``heads/types.npz``, written by
``scripts/train_types.py`` (scikit-learn, fixed seed). Without that file, or for a vector from
another model, ``head()`` is None and the rules' type stands.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..models import MemoryType
from . import classify as rules
from .statement import subject_of

HEAD_PATH = Path(__file__).parent / "heads" / "types.npz"
# The rules' types, in the order of their one-hot input.
TYPES = (MemoryType.DECISION, MemoryType.PREFERENCE, MemoryType.DEBUG_LOG, MemoryType.SESSION_NOTE, MemoryType.FACT)
# What the head chooses among, in the order of its rows: the five types, and chatter the
# statement filter let through, for which the head has no type to give (the rules' stands).
CHATTER = "chatter"
CLASSES = (*(t.value for t in TYPES), CHATTER)

# SYSTEM_DEBUG: where the head says debug log and no system part is named
# (``classify._technical``), the rules' type stands. Off since the eleventh round: the labelled
# debug logs outside ops name parts no list holds (an exam app, a centrifuge, a smart oven, a
# till), and the gate turned the head's right calls back into facts. Leave one split out over
# test5 ... test10 (C 0.1, vector x5, the runtime's overrides applied), pooled typed accuracy:
# with the gate 0.825, without 0.840 (per split 0.838 / 0.854 / 0.824 / 0.828 / 0.799 / 0.823
# -> 0.848 / 0.867 / 0.824 / 0.838 / 0.817 / 0.849). End to end, a head fitted without the
# split: test10 types 0.821 -> 0.848, causal precision 0.846 -> 0.848, recall 0.652 -> 0.659;
# test5 types 0.878 -> 0.889, precision 0.939 -> 0.920 (one more wrong link, 49 -> 50 made,
# recall the same: the tenth round's reason for the gate, from a household diagnosis).
# Twelfth round (test5 ... test11, C 0.03, x7, the shipped head's setting): with the gate 0.821,
# without 0.845 (per split 0.855 / 0.843 / 0.817 / 0.826 / 0.806 / 0.821 / 0.804 -> 0.869 / 0.855
# / 0.814 / 0.832 / 0.824 / 0.863 / 0.849).
SYSTEM_DEBUG = False
# KEEP_REASONED: a rules' decision said with its cause or result stays a decision
# (``_with_its_reason``). Kept: leave one split out without it 0.844 against 0.840 (test5 /
# test6 / test7 / test8 / test9 / test10 +1.3 / +0.9 / +0.3 / -0.3 / +0.6 / 0.0 points), but end
# to end (a head fitted without the split) no type and no link changed on test10, and on test5
# one type (0.889 -> 0.892); the cue is what links the decision to its cause. Twelfth round (test5
# ... test11, C 0.03, x7): without it 0.847 against 0.845 (5 of 2881 more right; test5 +1.0,
# test6 +0.3, test7 +0.3, test8 0.0, test9 +0.4, test10 -0.2, test11 -0.2 points), kept for the same reason.
# Twenty-sixth round (forward chaining over test14 ... test21, the shipped setting refitted per
# fold; development figures): it turns 29 of the head's choices into decisions, 10 of them right
# (19: 5 facts, 5 preferences, 6 debug logs, 3 session notes); without it 0.8212 -> 0.8220 (+5 of
# 6,566; test19 -4), and end to end on test20 + test21 (spent, in no fit; eval_labelled summary)
# types 0.840 both, links 0.782 / 0.366 -> 0.782 / 0.368 (316 -> 317 made): flat, kept.
KEEP_REASONED = True
# KEEP_STATUS: the rules' session note said as the speaker's status on a task ("I'm still on the
# warehouse migration plan, will share it by Friday", "halfway through the report": the "status"
# column of ``stance_features``) stays a session note, whatever the sentence also promises. In
# every spent split's labels 345 of 364 units with that column are session notes (326 of 341
# where the rules say one too). Twenty-first round, forward chaining over test14 ... test19 (4,903
# typed candidates): no held-out type changes with it or without it (the heads already agree); it
# keeps tests/test_causal_readings.py's work-in-progress note, which the refits on the newer
# splits typed a decision (score margin 0.4 to 0.7) and then linked.
KEEP_STATUS = True
_MODALS = frozenset({"can", "ca", "could", "should", "would", "'d", "’d", "might", "must", "may"})
_THIRD = frozenset({"he", "she", "they", "it", "this", "that", "these", "those"})
_QUESTIONISH = re.compile(r"\?\s*$")


def parse_features(text: str, spans: Sequence[Any]) -> list[float]:
    """Grammar of the memory's sentences that says what kind of statement it is, whatever its
    topic: tense and aspect of each main verb (past, present, progressive, perfect, future, a
    modal), who is its subject (I / we / you / another person or thing / left out), negation, a
    frequency phrase, a cause or consequence cue, a time of the working day, a system part named,
    a stated failure. Each is 1 when any sentence has it. ``PARSE_NAMES`` names them."""
    f = dict.fromkeys(PARSE_NAMES, 0.0)
    for span in spans:
        root = span.root
        aux = {c.lower_ for c in root.children if c.dep_ in ("aux", "auxpass")}
        tag = root.tag_
        f["past"] = max(f["past"], float(tag == "VBD" and not aux))
        f["perfect"] = max(f["perfect"], float(tag == "VBN" and bool(aux & {"have", "has", "'ve", "’ve", "had", "'d"})))
        f["present"] = max(f["present"], float(tag in ("VBP", "VBZ") and not aux))
        f["progressive"] = max(f["progressive"], float(tag == "VBG" and bool(aux & (rules._BE_PRESENT | {"is", "'s", "’s"}))))
        f["been"] = max(f["been"], float("been" in aux))
        future = bool(aux & rules._FUTURE) or (root.lower_ == "going" and any(c.dep_ == "xcomp" for c in root.children))
        f["future"] = max(f["future"], float(future))
        f["modal"] = max(f["modal"], float(bool(aux & _MODALS)))
        f["copula"] = max(f["copula"], float(bool(rules.verb_lemmas(root.text) & {"be"})))
        f["negated"] = max(f["negated"], float(any(c.dep_ == "neg" for c in root.children)))
        subj = subject_of(root)
        who = subj.lower_ if subj is not None else ""
        f["subj_i"] = max(f["subj_i"], float(who == "i"))
        f["subj_we"] = max(f["subj_we"], float(who == "we" or (who in ("'s", "’s") and root.head.lower_ == "let")))
        f["subj_you"] = max(f["subj_you"], float(who == "you"))
        f["subj_pronoun"] = max(f["subj_pronoun"], float(who in _THIRD))
        f["subj_thing"] = max(f["subj_thing"], float(subj is not None and subj.pos_ in ("NOUN", "PROPN")))
        f["subj_none"] = max(f["subj_none"], float(subj is None))
        f["imperative"] = max(f["imperative"], float(subj is None and tag == "VB" and not aux))
        f["frequency"] = max(f["frequency"], float(any(rules._frequency(t) for t in span)))
        f["taste_verb"] = max(f["taste_verb"], float(any(t.pos_ in ("VERB", "AUX") and rules.verb_lemmas(t.text) & rules._TASTE for t in span)))
        f["number"] = max(f["number"], float(any(t.like_num for t in span)))
    plain = rules._REPLY.sub("", text)
    f["reason"] = float(bool(rules._REASON.search(text)))
    f["consequence"] = float(bool(rules._CONSEQUENCE.search(plain) or rules._CONSEQUENCE_LAST.search(text)))
    f["instead"] = float(bool(rules._INSTEAD.search(text)))
    f["changed"] = float(bool(rules._CHANGED.search(text) or rules._POLICY.search(text)))
    f["this_day"] = float(bool(rules._THIS_DAY.search(text)))
    f["now"] = float(bool(rules._NOW.search(text)))
    f["long_ago"] = float(bool(rules._LONG_AGO.search(text)))
    f["technical"] = float(rules._technical(spans))
    f["software"] = float(bool(rules._SOFTWARE_ALONE.search(text)))
    f["malfunction"] = float(rules._malfunction(spans))
    f["question"] = float(bool(_QUESTIONISH.search(text)))
    f["sentences"] = float(len(spans) > 1)
    return [f[n] for n in PARSE_NAMES]


PARSE_NAMES = ("past", "perfect", "present", "progressive", "been", "future", "modal", "copula", "negated", "subj_i",
               "subj_we", "subj_you", "subj_pronoun", "subj_thing", "subj_none", "imperative", "frequency", "taste_verb",
               "number", "reason", "consequence", "instead", "changed", "this_day", "now", "long_ago", "technical",
               "software", "malfunction", "question", "sentences")


# Conjunctions the linear head cannot form out of the parse's columns, each with a reason to
# hold in any register: a failure stated of a thing, not of a person ("the feeder didn't
# dispense", "prints keep failing"); a fault's own words (an error, an alarm, a code like "F3");
# a thing that does not do what it should ("our gateway doesn't support it"); a device that
# reports a state ("the printer says offline"); work in progress or next with its time ("I'm
# doing the deliveries after ten"). Eleventh round, from test10's confusions (45 of its 85 debug
# logs typed facts, most outside ops). Leave one split out over test5 ... test10 (C 0.1, vector
# x5, SYSTEM_DEBUG off): 0.834 without them, 0.840 with (per split 0.848 / 0.854 / 0.821 /
# 0.842 / 0.815 / 0.835 -> 0.848 / 0.867 / 0.824 / 0.838 / 0.817 / 0.849).
CUE_NAMES = ("thing_fails", "fault_word", "thing_negated", "device_says", "plan_time")
_FAULT = re.compile(r"\b(?:errors?|fault\w*|alarms?|warnings?|glitch\w*|crash\w*|froze|frozen|freez\w*|offline|reboot\w*|"
                    r"corrupt\w*|stuck|not working|stopped working|no signal|lost (?:the )?(?:signal|connection)|declined|"
                    r"bug\w*)\b|\b[A-Z]\d{1,4}\b", re.I)
_SAYS = frozenset({"say", "show", "display", "report", "read", "flash", "beep", "claim"})
_PLAN_TIME = re.compile(r"\b(?:today|tonight|tomorrow|tmrw|tmr|later|next|after (?:that|lunch|work|\w+)|this (?:morning|afternoon|"
                        r"evening|week|weekend|month)|all (?:day|week)|on (?:mon|tues|wednes|thurs|fri|satur|sun)day)\b", re.I)
_PEOPLE = frozenset({"i", "we", "you", "he", "she", "they"})


def cue_features(text: str, spans: Sequence[Any]) -> list[float]:
    """``CUE_NAMES``: 1 where some sentence has it."""
    f = dict.fromkeys(CUE_NAMES, 0.0)
    people = False
    thing = False
    for span in spans:
        root = span.root
        subj = subject_of(root)
        is_thing = subj is not None and subj.lower_ not in _PEOPLE and not (subj.pos_ == "PROPN" and subj.ent_type_ == "PERSON")
        people = people or (subj is not None and subj.lower_ in _PEOPLE)
        thing = thing or is_thing
        verbs = [root, *(c for c in root.children if c.dep_ == "conj" and c.pos_ in ("VERB", "AUX"))]
        for verb in verbs:
            own = subject_of(verb) if verb is not root else subj
            of_thing = is_thing if own is None or own is subj else own.lower_ not in _PEOPLE
            if of_thing and any(c.dep_ == "neg" for c in verb.children):
                f["thing_negated"] = 1.0
            if of_thing and rules.verb_lemmas(verb.text) & _SAYS:
                f["device_says"] = 1.0
    if rules._malfunction(spans) and thing and not people:
        f["thing_fails"] = 1.0
    f["fault_word"] = float(bool(_FAULT.search(text)))
    f["plan_time"] = float(bool((rules._IN_PROGRESS.search(text) or re.search(r"\b(?:going to|gonna|will|'ll)\b", text, re.I))
                                and _PLAN_TIME.search(text)))
    return [f[n] for n in CUE_NAMES]


# Who does what (issue #16, seventeenth round): the parse columns above say the subject and the
# tense apart, and a linear head cannot join them; these join them per verb, each with a reason to
# hold in any register. A decision is an act of the speaker's side, done or promised ("we swapped
# the hill session for the bike", "I'll sign tonight", "let's ...", chat's "ordered a Miele"), or
# an arrangement made by another party or said without its maker ("the council said no", "your
# appointment has been moved", "rehearsals move to the warm room until ..."), often drawn as a
# conclusion ("Thursday at half seven then", "in that case ..."); a fact's verb is a state or
# something that happened to someone. A debug log is a thing's failure: a thing that keeps / started
# / stopped doing something, or has not worked since. ``AGENCY_NAMES`` names them. Measured by
# forward chaining (``scripts/train_types.py``, seventeenth round): +0.75 points pooled over test14
# ... test17, +0.58 on the folds whose errors were never read while writing it; in the shipped
# head's parts since the twenty-first round (the refits of the seventeenth and twentieth rounds
# broke tests that must hold; see ``scripts/train_types.py``).
AGENCY_NAMES = ("we_did", "we_will", "we_doing", "other_acts", "arranged", "concluded", "thing_keeps")
_ACT_EXCLUDED = rules.STATE_VERBS | rules.FAIL_VERBS | rules._TASTE | rules._MISHAP_ACTS
_MOTION = frozenset({"move", "go", "stay", "switch", "shift", "start", "run", "open", "close", "come", "change"})
_ASPECT = frozenset({"keep", "start", "stop", "begin", "continue"})
_CONCLUDED = re.compile(r"\bthen\W*$|^\W*(?:then|in that case|right then|ok(?:ay)? then|fine then)\b|\bin that case\b|\bgiven (?:that|the)\b",
                        re.I)
_AGENTS = frozenset({"PERSON", "ORG", "NORP", "GPE"})
# Parties that make arrangements without a name the tagger knows ("the council said no").
_BODIES = frozenset({"council", "committee", "school", "bank", "airline", "landlord", "agent", "agency", "company", "team",
                     "club", "board", "clinic", "practice", "surgery", "office", "management", "insurer", "hospital",
                     "nursery", "manager", "boss", "teacher", "doctor", "gp", "vet", "coach", "chair", "organisers"})


def _acts(verb: Any) -> bool:
    """The verb is an act (not a state, a taste, a failure or an accident); "be" and "have" are states."""
    lemmas = rules.verb_lemmas(verb.text)
    return verb.pos_ == "VERB" and not lemmas & _ACT_EXCLUDED or bool(lemmas & rules.CHANGE_VERBS)


def agency_features(text: str, spans: Sequence[Any]) -> list[float]:
    """``AGENCY_NAMES``: 1 where some main-clause verb has it."""
    f = dict.fromkeys(AGENCY_NAMES, 0.0)
    for span in spans:
        for verb in span:
            if verb.pos_ not in ("VERB", "AUX") or not (verb.dep_ in ("ROOT", "conj", "xcomp", "ccomp") and rules._main_clause(verb)):
                continue
            aux = rules._aux_of(verb)
            subj = subject_of(verb)
            who = subj.lower_ if subj is not None else ""
            ours = rules._first_person_agent(verb)
            act = _acts(verb)
            future = bool(aux & rules._FUTURE) or (verb.lower_ == "going" and any(c.dep_ == "xcomp" for c in verb.children)) or (
                verb.dep_ == "xcomp" and verb.head.lower_ in ("going", "gon"))
            done = (verb.tag_ == "VBD" and not aux) or (verb.tag_ == "VBN" and bool(aux & {"have", "has", "'ve", "’ve", "had"})
                                                        and "been" not in aux)
            progressive = verb.tag_ == "VBG" and bool(aux & (rules._BE_PRESENT | {"is", "'s", "’s"}))
            if ours and act:
                f["we_did"] = max(f["we_did"], float(done or rules._subject_left_out(verb)))
                f["we_will"] = max(f["we_will"], float(future or bool(rules.verb_lemmas(verb.text) & {"let"})
                                                       or (verb.tag_ == "VB" and verb.head.lower_ == "let")))
                f["we_doing"] = max(f["we_doing"], float(progressive and any(c.dep_ in ("dobj", "prt") for c in verb.children)))
            person = subj is not None and (who in ("he", "she", "they") or who in _BODIES or subj.ent_type_ in _AGENTS)
            if person and act and subj.dep_ == "nsubj" and (done or future or verb.tag_ in ("VBZ", "VBP")):
                f["other_acts"] = 1.0
            # (A passive only in the past, "was built in 1890", is history, not an arrangement.)
            passive = any(c.dep_ == "auxpass" for c in verb.children) and act and not ours and not aux <= {"was", "were"}
            thing = subj is not None and who not in _PEOPLE and not person and subj.pos_ in ("NOUN", "PROPN")
            moves = thing and rules.verb_lemmas(verb.text) & _MOTION and verb.tag_ in ("VBZ", "VBP") and not aux and any(
                c.dep_ in ("prep", "advmod", "prt") for c in verb.children)
            if passive or moves:
                f["arranged"] = 1.0
            if thing or who in ("it", "this", "that"):
                aspect = rules.verb_lemmas(verb.text) & _ASPECT and any(c.dep_ in ("xcomp", "dobj") and c.tag_ == "VBG" for c in verb.children)
                since = any(c.dep_ == "neg" for c in verb.children) and bool(aux & {"has", "have", "'s", "’s", "hasn't"}) and any(
                    t.lower_ == "since" for t in verb.subtree)
                if aspect or since:
                    f["thing_keeps"] = 1.0
    f["concluded"] = float(bool(_CONCLUDED.search(rules._REPLY.sub("", text.strip()))))
    return [f[n] for n in AGENCY_NAMES]


# The thread around a memory (issue #16, thirteenth round): a unit's type depends on what the
# conversation is doing (a fault being chased, plans being made, work in progress), which one
# sentence does not always say ("F22 on a Worcester means the pressure's under 1 bar" is a debug
# log because the conversation is chasing a fault). Two blocks read the memories around it in the
# same ingest (``context_blocks``): "neighbours", the rules' types of the memory before and the
# one after (one-hot each, zeros at an end), and "thread", the mean MiniLM vector of the up to
# two memories either side (unit length; its weight against the memory's own vector is the
# training script's THREAD_SCALE). Ingest types a whole conversation (or capture delta) at once
# (``extract.judge`` calls ``retype`` with every kept candidate), so the memory after is known.
# Leave one split out over test5 ... test12 (C 0.03, vector x7, the runtime's overrides; 3616
# typed candidates; scratch code, the blocks computed as here), pooled typed accuracy: without
# context 0.838 (test5 ... test12 0.853 / 0.857 / 0.832 / 0.826 / 0.839 / 0.876 / 0.845 / 0.791);
# neighbours + thread x3 0.860 (0.876 / 0.878 / 0.842 / 0.873 / 0.875 / 0.920 / 0.841 / 0.807).
# Alone: neighbours 0.854, thread x3 0.844. Not kept, on the same folds: the mean vector of the
# whole conversation but the memory (x3 / x7) 0.840 / 0.840 (test12 0.787 / 0.777); whether any
# other memory of the conversation states a fault (a fault word, a failing thing, a malfunction;
# and the share of such) 0.837; whether an earlier one does 0.837; the conversation's profile of
# the rules' types 0.849, with the neighbours 0.857, with the neighbours and thread 0.861 (2 of
# 3616 more than without it); the conversation's mean parse and cue columns 0.845. Thread x5 /
# x1.5 0.860 / 0.858; C 0.1 0.857.
# The thread without the neighbours (C 0.03, x7) gives 0.845 (test12 0.788) and keeps three
# hand-written behaviours the neighbours break (a habit between two other tastes typed a decision,
# and two short exchanges whose second turn becomes a decision the answered path then links: the
# strict xfails in tests/test_extract_quality.py and test_causal_readings.py); the neighbours were
# kept on the larger held-out figure, and test13 decides.
# Fourteenth round, test13 spent: it decided for the neighbours. Leave one split out over test5
# ... test13 (C 0.03, x7; 4398 typed candidates): test13 held out from the head 0.794 with the
# neighbours against 0.783 without them; pooled over the nine folds (the others in earlier
# rounds' tuning) 0.853 against 0.835. The shipped head (C 0.03, x7, thread x3) is fitted on every
# spent split, test13 with the rules of f7001f7 as its rules' input; the three strict xfails stay.
# Twentieth round (issue #16): two blocks a head may name, both off unless its parts do.
# "habit": the speaker's habit said with a frequency phrase the rules' list (``classify.HABIT``)
# lacks ("I only ever drink tea after dinner", "we sometimes eat out on payday"): a habit is a
# preference by the issue's own example ("I usually cook at home during the week"), and in every
# spent split's labels (first-person present clauses with a frequency the parse reads: 267 of 290
# preferences); the phrase alone is no habit ("it crashes every time I log in" is a fault), so a
# first-person subject is required. "faults": whether a memory within ``THREAD_SPAN`` either side
# states a fault (a fault's words, a thing that fails or keeps failing: ``states_fault``) and
# their share: the thread block's mean vector says what the talk is about, this says whether a
# fault is being chased, which decides whether a device's state ("the display is blinking 00:00")
# is a finding or a fact about a new home. Measured by forward chaining (``scripts/train_types.py``,
# twentieth round): with the agency block, 0.8136 -> 0.8139 pooled over test14 ... test18 (flat),
# and they move the tea habit from -0.02 to +1.9 (a preference). In the shipped head's parts since
# the twenty-first round (with the stance block below), as is the agency block.
HABIT_NAMES = ("habit_phrase",)
_HABIT_MORE = re.compile(r"\b(?:only ever|hardly ever|barely ever|sometimes|occasionally|seldom|regularly|frequently|every time|"
                         r"each time|whenever|most (?:days|mornings|nights|evenings|weekends|weeks)|daily|nightly|weekly|"
                         r"all the time|tends? to|as a rule|without fail|religiously)\b", re.I)
FAULT_NAMES = ("fault_near", "fault_share", "thing_fault_near", "thing_no_fault")


def habit_features(text: str, spans: Sequence[Any]) -> list[float]:
    """``HABIT_NAMES``: a frequency phrase beyond ``classify.HABIT`` in a memory with a first-person subject."""
    first = any((s := subject_of(span.root)) is not None and s.lower_ in ("i", "we") for span in spans)
    return [float(first and bool(_HABIT_MORE.search(text)))]


def states_fault(parse: Sequence[float], cues: Sequence[float], agency: Sequence[float]) -> bool:
    """A memory states a fault: a fault's own words, a thing that fails, a malfunction, a thing that keeps failing."""
    return bool(cues[CUE_NAMES.index("fault_word")] or cues[CUE_NAMES.index("thing_fails")]
                or parse[PARSE_NAMES.index("malfunction")] or agency[AGENCY_NAMES.index("thing_keeps")])


def of_a_thing(parse: Sequence[float]) -> bool:
    """The memory's subject is a thing or a third-person pronoun (the parse's columns): what a
    finding about a device is said of ("the display is blinking", "it clicks")."""
    return bool(parse[PARSE_NAMES.index("subj_thing")] or parse[PARSE_NAMES.index("subj_pronoun")])


def fault_context(faults: Sequence[bool], things: Sequence[bool] | None = None) -> np.ndarray:
    """For the memories of one conversation in order (whether each states a fault, whether each is
    said of a thing, ``of_a_thing``): each one's "faults" block, whether any of the
    ``THREAD_SPAN`` memories either side states one, their share, and the conjunctions a linear
    head cannot form: said of a thing with a fault near, said of a thing with none (zeros for the
    first two for a memory alone)."""
    f = np.asarray(faults, dtype=np.float32)
    t = np.zeros(len(f), dtype=np.float32) if things is None else np.asarray(things, dtype=np.float32)
    out = np.zeros((len(f), len(FAULT_NAMES)), dtype=np.float32)
    for i in range(len(f)):
        near = [j for j in range(max(0, i - THREAD_SPAN), min(len(f), i + THREAD_SPAN + 1)) if j != i]
        if near:
            out[i, :2] = (float(f[near].max()), float(f[near].mean()))
        out[i, 2:] = (t[i] * out[i, 0], t[i] * (1.0 - out[i, 0]))
    return out


# Twenty-first round (issue #16): "stance", where the speaker's side stands towards an act, each
# column a conjunction of tense or aspect, agency and the verb's kind that the parse columns hold
# apart and a linear head cannot join: a choice done ("I sold the old car", "we switched banks":
# a first-person subject, a completed tense, a verb of choosing, buying, moving or cancelling,
# ``classify.CHANGE_VERBS``; not dated years back, ``classify._LONG_AGO``); a commitment ("we'll
# get the bigger tent", "I'm going to book it": a first-person subject, "will" / "going to", a verb
# that is no state of mind nor a mishap, asserted, not asked nor conditional; the agency block's
# "we_will" leaves out "get" and "have", which are states in the past and acquisitions in a
# promise); the speaker's status on a task ("I'm still on the migration plan", "halfway through
# the report": ``classify._at_work`` or such a phrase with the speaker's side acting, a note of
# work under way whatever else the sentence promises). In every spent split's labels: a choice
# done 797 of 885 decisions, a commitment 429 of 485, the status 345 of 364 session notes.
# Forward chaining over test14 ...
# test19 (``scripts/train_types.py``, twenty-first round): flat against the same head without it
# (+0.08 points, C 0.03 x7 thread x7); it is in the shipped head's parts for the margin it gives
# the cases it names (the shipped head, its evidence and the behaviours it keeps: see there).
STANCE_NAMES = ("chose_done", "commits", "status")
# Verbs whose future with a first-person subject states no commitment ("we'll see", "I'll need a
# hand", "we'll miss the train").
_NO_COMMIT = (rules.STATE_VERBS - {"get", "have", "visit", "spend", "finish", "cook", "bake", "eat", "drink", "read", "play", "meet",
                                   "watch", "work", "talk", "tell", "say"}) | rules.FAIL_VERBS | rules._TASTE | rules._MISHAP_ACTS
_STATUS = re.compile(r"\b(?:next up|up next|halfway through|in the middle of|still (?:on|working on|going through|sorting))\b", re.I)


def stance_features(text: str, spans: Sequence[Any]) -> list[float]:
    """``STANCE_NAMES``: 1 where some main-clause verb (or sentence, for "status") has it."""
    f = dict.fromkeys(STANCE_NAMES, 0.0)
    long_ago = bool(rules._LONG_AGO.search(text))
    for span in spans:
        asked = bool(_QUESTIONISH.search(span.text))
        for verb in span:
            if verb.pos_ not in ("VERB", "AUX") or not (verb.dep_ in ("ROOT", "conj", "xcomp", "ccomp", "dep")
                                                         and rules._main_clause(verb)):
                continue
            if not rules._first_person_agent(verb) and not (verb.dep_ == "dep" and subject_of(verb) is None
                                                             and rules._first_person_agent(verb.head)):
                continue
            lemmas = rules.verb_lemmas(verb.text)
            aux = rules._aux_of(verb)
            negated = any(c.dep_ == "neg" for c in verb.children)
            done = (verb.tag_ == "VBD" and not aux) or (verb.tag_ == "VBN" and bool(aux & {"have", "has", "'ve", "’ve"})
                                                        and "been" not in aux) or rules._subject_left_out(verb)
            if done and not negated and not long_ago and lemmas & rules.CHANGE_VERBS:
                f["chose_done"] = 1.0
            future = bool(aux & rules._FUTURE) or (verb.dep_ == "xcomp" and verb.head.lower_ in ("going", "gon")
                                                   and verb.tag_ == "VB")
            conditional = any(c.dep_ == "advcl" and any(m.lower_ in ("if", "unless") for m in c.children) for c in verb.children)
            if future and not negated and not asked and not conditional and verb.pos_ == "VERB" and not lemmas & _NO_COMMIT:
                f["commits"] = 1.0
        if rules._at_work(span) or (_STATUS.search(span.text) and rules._speaker_acts(span)):
            f["status"] = 1.0
    return [f[n] for n in STANCE_NAMES]


# Twenty-fifth round (issue #16): "events", five columns for the three largest confusions of the
# forward folds test14 ... test21 (shipped setting; 6,564 typed candidates: decision -> fact 290,
# debug_log -> fact 248, fact -> debug_log 161), each a phrasing that says what kind of statement
# it is in any register: an arrangement said with how long it holds ("the car park is closed for
# the weekend", "stand-up moves to 9.45 from next week"), announced by whoever made it and often
# with no agent at all; a rule laid on others ("children will need a packed lunch"); a thing's
# incident with when or how often it happened ("the till printed every receipt twice today", "the
# stairlift stopped halfway up last night"); an expectation not met ("reading 9 degrees, should
# be 3", "the sprinklers never came on"). ``EVENT_NAMES`` names them. Forward chaining over test14
# ... test21 (C 0.03 x4 thread x4, each fold fitted on the splits before it; the phrasings were
# written from those folds' confusions, so this is a development figure): 0.8178 -> 0.8211
# pooled, +0.34 points (95% +0.03 ... +0.66 over conversations; -0.1 / +0.1 / -0.1 / +0.5 / +0.4 /
# +0.4 / +1.0 / +0.6 per fold); validation test22 (in no fit, summary only) types 0.803 -> 0.804,
# links 0.752 / 0.369 -> 0.750 / 0.375. In the shipped head's parts since the twenty-fifth round.
# (Known wart, kept as measured: "directive" also fires on a thing's expected state, "it should
# be 4", which "expect_gap" names.)
EVENT_NAMES = ("time_scope", "scoped_arrangement", "directive", "incident", "expect_gap")
_SCOPE = re.compile(r"\b(?:until|till|til|for now|from (?:now|today|tonight|tomorrow|next|this|(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
                    r"january|february|march|april|may|june|july|august|september|october|november|december|the \d|\d)|"
                    r"for the (?:weekend|week|day|month|term|season|summer|winter|rest of)|this (?:week|weekend|term|season|year)(?:'s)?|"
                    r"next (?:week|month|term|season)|(?:starting|effective|as of) \w+)\b", re.I)
_ARRANGE = re.compile(r"\b(?:cancel\w*|closed?|closing|postpon\w*|moved?|moving|off|on hold|suspend\w*|bann\w*|delay\w*|reschedul\w*|"
                      r"booked|confirmed|shut|reopen\w*|open(?:s|ing)?|launch\w*|goes on|replac\w*|swap\w*|switch\w*|paused?|"
                      r"scrapp\w*|dropp\w*|limited|restricted|rota|instead)\b", re.I)
_OCCUR = re.compile(r"\b(?:twice|(?:three|four|five|several|\d+) times|again|overnight|last night|this morning|yesterday|today|"
                    r"at \d|mid-\w+|halfway)\b", re.I)
_GAP = re.compile(r"\bshould (?:be|have|read|say|show)\b|\bsupposed to\b|\bnever (?:came|turned|showed|arrived|went|got)\b|"
                  r"\bwrong\b|\bany ?more\b", re.I)


def event_features(text: str, spans: Sequence[Any]) -> list[float]:
    """``EVENT_NAMES``: 1 where some main-clause verb (or the text, for the phrases) has it."""
    f = dict.fromkeys(EVENT_NAMES, 0.0)
    scope = bool(_SCOPE.search(text))
    f["time_scope"] = float(scope)
    asked = bool(_QUESTIONISH.search(text))
    for span in spans:
        for verb in span:
            if verb.pos_ not in ("VERB", "AUX") or verb.dep_ not in ("ROOT", "conj", "ccomp", "xcomp"):
                continue
            subj = subject_of(verb)
            who = subj.lower_ if subj is not None else ""
            thing = (subj is not None and who not in _PEOPLE and who not in ("it", "this", "that") and subj.pos_ in ("NOUN", "PROPN")
                     and subj.ent_type_ != "PERSON")
            aux = rules._aux_of(verb)
            passive = any(c.dep_ in ("auxpass", "nsubjpass") for c in verb.children)
            lemmas = rules.verb_lemmas(verb.text)
            copula = "be" in lemmas
            if scope and (thing or who in ("it", "this", "that")) and (passive or copula or verb.tag_ in ("VBZ", "VBP")) \
                    and _ARRANGE.search(span.text):
                f["scoped_arrangement"] = 1.0
            oblige = bool(aux & {"must", "should"}) or (verb.lemma_ in ("need", "have") and any(
                c.dep_ == "xcomp" and any(m.lower_ == "to" for m in c.children) for c in verb.children)) or (
                "will" in aux and verb.lemma_ == "need")
            if oblige and not asked and who not in ("i", "we") and subj is not None:
                f["directive"] = 1.0
            if thing and verb.tag_ == "VBD" and not aux and not lemmas & rules.STATE_VERBS and _OCCUR.search(span.text):
                f["incident"] = 1.0
    f["expect_gap"] = float(bool(_GAP.search(text)))
    return [f[n] for n in EVENT_NAMES]


# Twenty-second round: "knn", the types of the memory's nearest labelled examples. A linear head
# draws one boundary through the vector space per type; what each writer calls a decision or a
# debug log is a convention of its topic (a clock reset after a power cut, a rota moved by a
# committee), held by the examples near it, which a boundary averages away. The block is the share
# of each of ``CLASSES`` among the ``KNN_K`` labelled examples of the fit (``scripts/train_types.py``,
# stored with the head, quantised) most similar to the memory by cosine; a training row's share is
# read leaving its own split out, so the fit weighs it as reliable as it is on a new writer's text.
# Forward chaining over test14 ... test19 (4,928 typed candidates; the head's setting C 0.03 x4
# thread x4 with and without the block, paired bootstrap over conversations): K 7 / 15 / 30 / 60 /
# 120 +1.01 / +0.95 / +1.42 / +1.40 / +1.14 points; K 30 +1.42 (+0.78 ... +2.08), per split test14
# ... test19 +0.95 / +2.50 / +1.15 / +1.15 / +0.87 / +1.66 (quantised as stored: pooled 0.8271
# against 0.8133). The neighbours alone (their majority) type 0.63 of the same candidates: the
# block is evidence the head weighs, not a vote. NOT in the shipped head's parts: fitted on all 23
# spent splits, every setting tried (K 30 / 60, thread x4 / x5 / x7) types the blinking timer of
# tests/test_type_head.py's house-move thread a debug log (its nearest labelled examples are the
# newer writers' clock resets, said in fault threads); keyed by the memory's vector plus its
# thread's (``KNN_THREAD``) the timer holds, but the gain shrinks: KNN_THREAD 0.4 +0.77 (+0.10 ...
# +1.42; "I sold the old car on Saturday." typed a fact, tests/test_causal_after.py), 1.0 +0.32
# (-0.26 ... +0.90; every asserted behaviour kept, and test20 as summary types 0.815 -> 0.818 but
# causal precision 0.719 -> 0.704, recall 0.298 -> 0.291). And the K 30 plain-vector head, fitted
# on all 23 spent splits, scored on test20 (in no fit; summary only): types 0.815 -> 0.815, causal
# precision 0.719 -> 0.721 (98 / 136), recall 0.298 -> 0.301: the forward gain does not show on the
# newest writer's text. A head whose parts name "knn" carries its pool (``knn_pool``); ``retype`` reads it.
KNN_NAMES = CLASSES
KNN_K = 30  # forward chaining test14 ... test19: K 30 / 60 +1.42 / +1.40, the smaller of the flat top


# The thread's share of the key the neighbours are found by (``knn_keys``); 0: the memory's own
# vector (forward chaining test14 ... test19: 0 / 0.4 / 1.0 +1.38 / +0.77 / +0.32 points, above).
KNN_THREAD = 0.0


def knn_keys(vectors: np.ndarray, thread: np.ndarray) -> np.ndarray:
    """What the neighbours are found by: the memory's vector plus ``KNN_THREAD`` times its
    thread's (``context_blocks``), unit length."""
    v = np.asarray(vectors, dtype=np.float32)
    v = v / (np.linalg.norm(v, axis=1, keepdims=True) + 1e-9) + KNN_THREAD * np.asarray(thread, dtype=np.float32)
    return v / (np.linalg.norm(v, axis=1, keepdims=True) + 1e-9)


def knn_features(vectors: np.ndarray, pool: np.ndarray, labels: np.ndarray, k: int = KNN_K,
                 same: np.ndarray | None = None) -> np.ndarray:
    """Per row of ``vectors``: the share of each of ``CLASSES`` among the ``k`` rows of ``pool``
    (unit vectors, their class indices ``labels``) nearest it by cosine; ``same``, a boolean
    (rows, pool) mask of pairs left out (a training row's own split)."""
    q = np.asarray(vectors, dtype=np.float32)
    q = q / (np.linalg.norm(q, axis=1, keepdims=True) + 1e-9)
    out = np.zeros((len(q), len(CLASSES)), dtype=np.float32)
    if not len(q) or not len(pool):
        return out
    sims = q @ pool.T
    if same is not None:
        sims[same] = -np.inf
    k = min(k, pool.shape[0])
    near = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    # Pairs left out never count (a pool smaller than k with its own split masked).
    valid = np.isfinite(np.take_along_axis(sims, near, axis=1)).astype(np.float32)
    weight = valid / np.maximum(valid.sum(axis=1, keepdims=True), 1.0)
    np.add.at(out, (np.repeat(np.arange(len(q)), k), labels[near].ravel()), weight.ravel())
    return out


def quantise(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors as int8 with a scale per row (the pool's stored form: a quarter of float32)."""
    v = np.asarray(vectors, dtype=np.float32)
    v = v / (np.linalg.norm(v, axis=1, keepdims=True) + 1e-9)
    scale = np.abs(v).max(axis=1, keepdims=True) / 127.0 + 1e-12
    return np.round(v / scale).astype(np.int8), scale.astype(np.float32).ravel()


def dequantise(q: np.ndarray, scale: np.ndarray) -> np.ndarray:
    v = q.astype(np.float32) * scale[:, None]
    return v / (np.linalg.norm(v, axis=1, keepdims=True) + 1e-9)


_pools: dict[Path, tuple[np.ndarray, np.ndarray] | None] = {}


def knn_pool(path: Path | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """The labelled examples a head with the "knn" block was fitted with (unit vectors, class
    indices), read once from the head's file; None when the file has none."""
    where = path or HEAD_PATH
    with _lock:
        if where not in _pools:
            _pools[where] = None
            if where.is_file():
                with np.load(where, allow_pickle=False) as data:
                    if "pool" in data.files:
                        _pools[where] = (dequantise(data["pool"], data["pool_scale"]), data["pool_labels"].astype(np.int64))
        return _pools[where]


BLOCKS = ("rules", "parse", "cues", "agency", "habit", "stance", "events", "knn", "neighbours", "faults", "vector", "thread")
# Blocks that enter unstandardised (their cosine geometry kept), only scaled; the last blocks.
VECTOR_BLOCKS = ("vector", "thread")
THREAD_SPAN = 2  # memories either side whose vectors make the "thread" block


def rules_onehot(rule: MemoryType) -> np.ndarray:
    return np.array([float(rule == t) for t in TYPES], dtype=np.float32)


def context_blocks(onehots: np.ndarray, vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For the memories of one conversation in order (the rules' types one-hot, their vectors):
    each one's "neighbours" block (the rules' type of the memory before, then after; zeros at an
    end) and "thread" block (the unit mean vector of the ``THREAD_SPAN`` memories either side,
    itself left out; zeros for a memory alone)."""
    onehots = np.asarray(onehots, dtype=np.float32).reshape(len(onehots), len(TYPES))
    vectors = np.asarray(vectors, dtype=np.float32)
    n = len(onehots)
    zero = np.zeros((1, len(TYPES)), dtype=np.float32)
    prev = np.concatenate([zero, onehots[:-1]]) if n else onehots
    nxt = np.concatenate([onehots[1:], zero]) if n else onehots
    thread = np.zeros_like(vectors)
    for i in range(n):
        near = [j for j in range(max(0, i - THREAD_SPAN), min(n, i + THREAD_SPAN + 1)) if j != i]
        if near:
            m = vectors[near].mean(axis=0)
            thread[i] = m / (float(np.linalg.norm(m)) + 1e-9)
    return np.concatenate([prev, nxt], axis=1), thread


def features(rule: MemoryType, text: str, spans: Sequence[Any], vector: np.ndarray, parts: str = "rules,parse,cues,vector",
             context: tuple[np.ndarray, np.ndarray] | None = None, faults: np.ndarray | None = None,
             known: dict[str, Sequence[float]] | None = None) -> np.ndarray:
    """One memory's input to the head: the rules' type (one-hot), ``parse_features``,
    ``cue_features``, its neighbours' rules' types and its vector and its thread's
    (``context``: its row of ``context_blocks``); ``parts`` names which (the training script
    compares subsets), in ``BLOCKS`` order. ``known``: blocks already computed for this memory
    (``retype`` reads parse, cues and agency for the faults block first: not walked twice)."""
    out: list[np.ndarray] = []
    chosen = set(parts.split(","))
    known = known or {}
    if "rules" in chosen:
        out.append(rules_onehot(rule))
    if "parse" in chosen:
        out.append(np.array(known.get("parse") or parse_features(text, spans), dtype=np.float32))
    if "cues" in chosen:
        out.append(np.array(known.get("cues") or cue_features(text, spans), dtype=np.float32))
    if "agency" in chosen:
        out.append(np.array(known.get("agency") or agency_features(text, spans), dtype=np.float32))
    if "habit" in chosen:
        out.append(np.array(habit_features(text, spans), dtype=np.float32))
    if "stance" in chosen:
        out.append(np.array(stance_features(text, spans), dtype=np.float32))
    if "events" in chosen:
        out.append(np.array(event_features(text, spans), dtype=np.float32))
    if "knn" in chosen:
        assert "knn" in known, "the knn block needs the head's pool (``knn_features``)"
        out.append(np.asarray(known["knn"], dtype=np.float32))
    if "neighbours" in chosen:
        assert context is not None, "the neighbours block needs the memory's context"
        out.append(np.asarray(context[0], dtype=np.float32).ravel())
    if "faults" in chosen:
        assert faults is not None, "the faults block needs the memory's context (``fault_context``)"
        out.append(np.asarray(faults, dtype=np.float32).ravel())
    if "vector" in chosen:
        out.append(np.asarray(vector, dtype=np.float32).ravel())
    if "thread" in chosen:
        assert context is not None, "the thread block needs the memory's context"
        out.append(np.asarray(context[1], dtype=np.float32).ravel())
    return np.concatenate(out)


class TypeHead:
    """The fitted regression: standardised features -> a score per type, the highest wins."""

    def __init__(self, path: Path) -> None:
        with np.load(path, allow_pickle=False) as data:
            self.weights = data["weights"].astype(np.float32)  # (types, features)
            self.bias = data["bias"].astype(np.float32)
            self.mean = data["mean"].astype(np.float32)
            self.scale = data["scale"].astype(np.float32)
            self.classes = tuple(str(c) for c in data["classes"])
            self.parts = str(data["parts"])
            self.model = str(data["model"])
            self.dim = int(data["dim"])
            # The labelled splits it was fitted on (heads written before the tenth round: unknown).
            self.splits = tuple(str(x) for x in data["splits"]) if "splits" in data.files else ()

    def fits(self, embedder: Any, dim: int) -> bool:
        """Whether the vectors come from the model the head was fitted on."""
        name = Path(str(getattr(embedder, "name", ""))).name
        return dim == self.dim and name == self.model

    def scores(self, rows: np.ndarray) -> np.ndarray:
        """A score per type (``classes`` order) for each row."""
        z = (np.asarray(rows, dtype=np.float32) - self.mean) / self.scale
        return np.asarray(z @ self.weights.T + self.bias)

    def predict(self, rows: np.ndarray) -> list[MemoryType | None]:
        """The type for each row; None where the head calls it chatter."""
        if not len(rows):
            return []
        return [None if self.classes[i] == CHATTER else MemoryType(self.classes[i])
                for i in np.argmax(self.scores(rows), axis=1)]


_loaded: dict[Path, TypeHead | None] = {}
_lock = threading.Lock()


def head(path: Path | None = None) -> TypeHead | None:
    """The shipped head (read once), or None when its file is missing."""
    where = path or HEAD_PATH
    with _lock:
        if where not in _loaded:
            _loaded[where] = TypeHead(where) if where.is_file() else None
        return _loaded[where]


def retype(cands: Sequence[Any], vectors: np.ndarray, embedder: Any, path: Path | None = None) -> None:
    """Set each candidate's ``type`` to the head's choice, when a head fits ``embedder``'s
    vectors; otherwise, and where the head sees chatter, the rules' types stand. ``cands`` are
    the kept memories of one conversation (or capture delta) in order, each read beside its
    neighbours (``context_blocks``)."""
    h = head(path)
    vectors = np.asarray(vectors, dtype=np.float32)
    if h is None or not len(cands) or not h.fits(embedder, vectors.shape[1]):
        return
    # The rules' types of all, before any is changed: the neighbours block reads them.
    neighbours, thread = context_blocks(np.stack([rules_onehot(c.type) for c in cands]), vectors)
    faults = np.zeros((len(cands), len(FAULT_NAMES)), dtype=np.float32)
    known: list[dict[str, Sequence[float]]] = [{} for _ in cands]
    if "faults" in h.parts.split(","):
        known = [{"parse": parse_features(c.text, c.spans), "cues": cue_features(c.text, c.spans),
                  "agency": agency_features(c.text, c.spans)} for c in cands]
        faults = fault_context([states_fault(k["parse"], k["cues"], k["agency"]) for k in known],
                               [of_a_thing(k["parse"]) for k in known])
    if "knn" in h.parts.split(","):
        pool = knn_pool(path)
        assert pool is not None, "a head with the knn block is saved with its pool"
        for k, row in zip(known, knn_features(knn_keys(vectors, thread), *pool), strict=True):
            k["knn"] = row.tolist()
    rows = np.stack([features(c.type, c.text, c.spans, vectors[i], h.parts, (neighbours[i], thread[i]), faults[i], known[i])
                     for i, c in enumerate(cands)])
    for c, t in zip(cands, h.predict(rows), strict=True):
        if t is None:
            continue
        if SYSTEM_DEBUG and t == MemoryType.DEBUG_LOG and c.type != t and not rules._technical(c.spans):
            continue  # a debug log is a system's failure: no system part named, the rules' type stands
        if KEEP_REASONED and c.type == MemoryType.DECISION and t != c.type and _with_its_reason(c.text, c.spans):
            continue  # see ``_with_its_reason``
        if KEEP_STATUS and c.type == MemoryType.SESSION_NOTE and t != c.type and _status(c.text, c.spans):
            continue  # see KEEP_STATUS
        c.type = t


def _status(text: str, spans: Sequence[Any]) -> bool:
    """The speaker's status on a task (``stance_features``' "status")."""
    return bool(stance_features(text, spans)[STANCE_NAMES.index("status")])


def _with_its_reason(text: str, spans: Sequence[Any]) -> bool:
    """A step said with its cause or its result in the same sentence ("We installed a sump pump,
    so the flooding stopped", "Because of the rent rise, we cancelled ..."): the rules' decision
    stands, since that cue is what links it to its cause. (The issue's own phrasing test,
    tests/test_extract_quality.py "so the problem stopped", had the head make it a fact; not
    measured held out.)"""
    plain = rules._REPLY.sub("", text)
    if rules._REASON.search(text) or rules._CONSEQUENCE.search(plain) or rules._CONSEQUENCE_LAST.search(text):
        return True
    return any(rules._purposeful(t) or rules._so_clause(t) for s in spans for t in s if t.pos_ in ("VERB", "AUX"))
