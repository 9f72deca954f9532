"""Fit the memory-type head (mnemo/nlp/type_head.py) on the spent labelled splits and write
mnemo/nlp/heads/types.npz; print its leave-one-split-out figures.

Training examples are the candidates ingest itself makes from each labelled conversation (the
same sentence splitting, the same statement filter, the text as saved with its speaker's name,
its stored MiniLM vector, the rules' type after the filter), each labelled with the unit the
evaluation matches it to (``tests.labelled_set.unit_of``). Chatter the statement filter let
through is a class of its own: the head learns that a "Good tip, thank you." is none of the
five types, and at run time leaves such a candidate the rules' type (what is kept is the
filter's to say; trained without it, the head typed such leftovers as decisions, which the
decision rules then kept and linked: test5 held out, 2 of 3 new wrong links). So the features
at training time are those the head sees at run time.

    .venv/bin/python scripts/train_types.py                      # LOO over splits, then fit on all, write the head
    .venv/bin/python scripts/train_types.py --hold-out test8     # fit without test8, score test8 end to end
    .venv/bin/python scripts/train_types.py --splits train,test --out /tmp/h.npz   # a small fit

Never give it LoCoMo, nor a split not yet scored once. test10 was scored once by the tenth round:
it is spent, and the eleventh round trains on it; test11 was scored once by the eleventh round:
spent, and the twelfth round trains on it (with the rules of 1fa6e9b as its rules' input);
test12 was scored once by the twelfth round (types 0.791 held out): spent, and the thirteenth
round trains on it (the rules of a8e18bc as its input; classify.py has not changed since
4777eee); test13 was scored once by the thirteenth round (types 0.797 held out, frozen at
f7001f7): spent, and the fourteenth round trains on it (the rules of f7001f7 as its input);
test14 was scored once by the fourteenth round (types 0.824 held out, frozen at a311639): spent,
and the fifteenth round's folds score it (the rules of a311639 as its input; the shipped head
is still the 17-split fit, see below); test15 was scored once by the fifteenth round (types 0.788
held out, frozen at cd02c48): spent, and the sixteenth round's folds score it (the rules of
cd02c48 as its input; the shipped head is still the 17-split fit). test16 was scored once by the
fifteenth round's code (types 0.814 held out, frozen at 8b8be0c): spent, and the sixteenth
round's ``scripts/type_offsets.py`` measures corrections of the shipped head on test15 / test16
(the rules of 8b8be0c as its input; classify.py has not changed since cd02c48). test17 was
scored once by the sixteenth round (types 0.795, frozen at 8ab4f65): spent, and the seventeenth
round's folds score it and its fit trains on it (the rules of 8ab4f65 as its input; classify.py has
not changed since 4777eee). test18 was scored once by the seventeenth round (4a306f3) and test19
once by the eighteenth (types 0.804, frozen at d78095e): both spent, forward folds, and in the
twenty-first round's shipped fit (each with the rules of the commit that scored it as its input).
test20 was scored once by the nineteenth round (types 0.815, frozen at 9fcb7f4) and test21 once by
the twentieth (types 0.848, frozen at 9c1f362): both spent, in ``SPENT`` since the twenty-third
round (each with the rules of the commit that scored it as its input; classify.py has not changed
since 4777eee, so both are today's rules), which used them as forward folds only (test20 scored by
a head fitted on train ... test19, test21 by one fitted on train ... test20; summary figures, see the
grid's comments). The shipped head is NOT refitted on them: every fit on all 25 spent splits tried
breaks an asserted behaviour (the grid's comments), so it is still the twenty-first round's fit on
train ... test19. test22 was scored once at the freeze of 59269a6 and test23 at 2035c26: both
spent, in ``SPENT`` since the twenty-eighth round with those commits' rules as their input (the
same classify.py as today's), which used them as forward folds and in the learning curve
(``--curve``); the fit on all 27 spent splits breaks two asserted behaviours and lowers test24's
link precision, so it is not shipped either (the grid's comments). test24 was scored once at the
freeze of 9dc64b1 (the twenty-eighth round's validation split, read as eval_labelled's summary
only) and test25 once at the freeze of 91e4ecd; test26 is fresh: none of the three is read here,
nor any later one (``main`` refuses a split not in ``SPENT``).

The shipped head (twenty-fifth round: the twenty-first round's setting with the events block;
fitted on train ... test19, ``HEAD_SPLITS``, the default ``--splits``):

    .venv/bin/python scripts/train_types.py --parts rules,parse,cues,agency,habit,stance,events,neighbours,faults,vector,thread \
        --c 0.03 --scale 4 --thread 4 [--report]

Since the sixteenth round the setting is chosen by forward chaining (``FORWARD``, ``forward``):
each of the newest splits scored by a head fitted only on the splits written before it, pooled.
``--loso`` chooses by leaving one split out, as before. The learning curve (twenty-eighth round):

    .venv/bin/python scripts/train_types.py --splits <all of SPENT> --parts ... --c 0.03 --scale 4 --thread 4 \
        --folds test20,test21,test22,test23 --curve test13,test15,test17,test19,test20,test21,test22 --cache DIR
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The rules as they stood when each split was scored for the first time, frozen, before any rule
# was written from it (the commits that scored them once): on these splits the rules' type is
# what the rules say on text they were never tuned on, which is what they will say at run time.
# The splits before test4 have been in every round's tuning, so the current rules stand there.
FRESH_RULES = {"test4": "156505f", "test5": "3a2888b", "test6": "cf8acb4", "test7": "f0be8fe", "test8": "523cb41",
               "test9": "73c2045", "test10": "59a06f4", "test11": "1fa6e9b",
               "test12": "a8e18bc", "test13": "f7001f7", "test14": "a311639", "test15": "cd02c48",
               "test16": "8b8be0c", "test17": "8ab4f65", "test18": "4a306f3", "test19": "d78095e",
               "test20": "9fcb7f4", "test21": "9c1f362", "test22": "59269a6", "test23": "2035c26"}
SPENT = ("train", "train2", "train3", "train4", "test", "test2", "test3", "test4", "test5", "test6", "test7", "test8",
         "test9", "test10", "test11", "test12", "test13", "test14", "test15", "test16", "test17", "test18", "test19", "test20", "test21",
         "test22", "test23")
# What the shipped head is fitted on (``--splits``' default): every spent split but test20 ...
# test23. Fits with test20 and test21 broke asserted behaviours (twenty-third round); with test22
# and test23 too (twenty-eighth round) the blinking timer in the house-move thread
# (tests/test_type_head.py), the meal-kit switch (tests/test_causal_readings.py) and test19's
# near-miss level (tests/test_extract_quality.py) break, and test24's link precision falls 0.769
# -> 0.766 (the grid's comments): not shipped.
HEAD_SPLITS = SPENT[:-4]
SEED = 0
# The ONNX export of the model, made once and shared by the engines this script opens.
MODELS = Path(tempfile.gettempdir()) / "mnemo-train-types-models"
# Grid the folds choose from (inverse regularisation, which inputs).
# Twenty-eighth round (types28): test22 and test23 in ``SPENT`` (rules 59269a6 / 2035c26; 27
# splits, 14,198 examples re-collected on this round's extraction; typed candidates test20 774,
# test21 849, test22 875, test23 840). The shipped setting throughout (CANDIDATE: C 0.03 x4 thread
# x4); the grid was not re-tuned, the forward folds giving no reason to. Paired 95% bootstrap over
# conversations.
#   Forward chaining over test20 ... test23 (each fold fitted on every split written before it),
#     against the shipped head (train ... test19; held out on all four): 0.8206 (0.8071 ... 0.8331;
#     0.819 / 0.854 / 0.801 / 0.808) against 0.8185 (0.819 / 0.852 / 0.801 / 0.802), +0.21 points
#     (-0.26 ... +0.69; per fold +0.00 (the same fit) / +0.24 / +0.00 / +0.60). Flat.
#   The learning curve (``--curve``: each target scored by the setting fitted on train ... the
#     cutoff): cutoff test13 / test15 / test17 / test19 / test20 / test21 / test22 (5,484 / 7,271 /
#     9,034 / 10,705 / 11,519 / 12,407 / 13,306 examples) on test23 0.769 / 0.780 / 0.787 / 0.802 /
#     0.799 / 0.806 / 0.808 (+3.93 points from the first to the last, +2.25 ... +5.77); test20 ...
#     test23 pooled through cutoff test19 0.796 / 0.807 / 0.807 / 0.819 (+2.28, +1.50 ... +3.09).
#     About +2.3 points per doubling of the examples, so the four newest splits (+24%) are worth
#     ~+0.7 on the next writer, inside the noise of one split; 0.85 by data alone is ~one more
#     doubling (~15 more splits) away.
#   The fit on all 27 spent splits (the shipped setting), validation test24 (in no fit;
#     eval_labelled summary only) against the shipped head: types 0.852 -> 0.856, link precision
#     0.769 -> 0.766 (103 / 134 -> 105 / 137 right), recall 0.318 -> 0.324; LoCoMo eval_extract
#     (leave one conversation out) cited 0.849 both, uncited 0.403 -> 0.400, 1.29 per kept turn
#     both (decisions 265 -> 250, facts 728 -> 748). In sample beside (eval_labelled summaries;
#     the shipped head held out on test20 ... test23): types test20 / 21 / 22 / 23 0.824 / 0.854 /
#     0.804 / 0.806 -> 0.849 / 0.885 / 0.845 / 0.835, links 0.744 / 0.304, 0.813 / 0.425, 0.768 /
#     0.375, 0.735 / 0.278 -> 0.752 / 0.307, 0.808 / 0.422, 0.780 / 0.390, 0.739 / 0.290; test19 (in
#     both fits) types 0.871 -> 0.868, links 0.810 / 0.405 -> 0.792 / 0.396, near-misses linked 0 ->
#     3 of 124.
#   NOT SHIPPED: test24's link precision falls, and the must-pass suite fails three asserted
#     behaviours (beside the list test of the head's splits): test19's asserted near-miss level
#     (tests/test_extract_quality.py, <= 0.01; 0.024 above) and two fixtures, each a score
#     margin that shrinks with every newer writer in the fit (the wanted type's score minus the
#     best other's; fits on train ... test19 / test20 / test21 / test22 / test23): the blinking
#     timer in the house-move thread a fact (tests/test_type_head.py) +0.10 / -0.08 / -0.25 /
#     -0.44 / -0.66 (the shipped head +0.095; of the 19 typed units of the spent splits saying
#     "flashing", "blink", "reset to", "00:00" or "12:00", 14 are debug logs, 3 of 5 in test20 ...
#     test23: the fixture's thread is all that makes it a fact); "I switched to
#     the meal kit subscription, the boxes come on Mondays." a decision +0.17 / -0.16 / -0.27 /
#     -0.39 / -0.54 (the shipped head +0.16; "I / we switched / changed / moved to" is a decision
#     in 13 of the 15 typed units of train ... test19 and a fact in the one of test20 ... test23),
#     typed a fact it becomes the cause of the next
#     turn's "decision" (tests/test_causal_readings.py, following as a verb; that turn, "I don't
#     like following meal kit instructions, I improvise.", is a preference to the head by +3.4,
#     but ``KEEP_REASONED`` keeps the rules' decision because classify's reason pattern reads
#     "following" as a verb as a cue; no labelled unit of any spent split has that reading, so it
#     is reported, not changed). The other fixtures hold: the sold car +0.70, the tea habit
#     +0.91, the tent +0.70, the status note +1.66, the mesh guard kept a decision.
# Twenty-fifth round (types25): forward chaining over test14 ... test21 (6,564 typed candidates;
# test20 scored by a head fitted on train ... test19, test21 by one on train ... test20), paired
# bootstrap over conversations; the shipped setting (PARTS[3], C 0.03 x4 thread x4) refitted per
# fold 0.8178 (0.8079 ... 0.8272; 0.820 / 0.803 / 0.832 / 0.811 / 0.794 / 0.824 / 0.810 / 0.849).
# Its confusions pooled (true -> typed): decision -> fact 290, debug_log -> fact 248, fact ->
# debug_log 161, fact -> decision 149, then 57 and fewer.
#   + the "events" block (PARTS[9], ``type_head.EVENT_NAMES``; written from a sample of those
#     confusions over all eight folds): 0.8211 (5,390 against 5,368), +0.34 points (+0.03 ...
#     +0.66; per fold -0.1 / +0.1 / -0.1 / +0.5 / +0.4 / +0.4 / +1.0 / +0.6); decision -> fact 290
#     -> 272. SHIPPED, fitted on ``HEAD_SPLITS`` (train ... test19) as before: it keeps every
#     asserted behaviour (the blinking timer in the house-move thread a fact by +0.095, the
#     shipped head's +0.060). Validation, test22 (in no fit; eval_labelled summary and per-type
#     counts only): types 0.803 -> 0.804 (687 -> 688 of 856), link precision / recall 0.752 /
#     0.369 -> 0.750 / 0.375 (165 -> 168 made).
#     End to end on test20 + test21 (spent, in neither head's fit; eval_labelled summaries): types
#     0.834 -> 0.840 (1,327 / 1,591 -> 1,335 / 1,590), links 0.762 / 0.361 -> 0.774 / 0.366 (319
#     made both); LoCoMo recall@10 through ingest (leave one conversation out) 0.779 unchanged.
#   Measured, not kept (the same folds, against 0.8178): vector x6 0.8233 (+0.55), C 0.05 x5
#     0.8221, x5 thread x3 0.8208, C 0.1 x4 0.8187; the events block at x6 0.8239, with the faults
#     block weighted x2 (its columns penalised 4 times less, for the thread to decide) 0.8231, x6
#     with faults x2 alone 0.8230. Every x6 head fitted on train ... test19 types the blinking
#     timer (and the left burner) in the house-move thread a debug log (tests/test_type_head.py,
#     margin ~0.47): the vector's gain is the newer writers' convention that a blinking display is
#     a finding wherever it is said, which the product's test rejects. The events head fitted on
#     all 25 spent splits (test20 and test21 added) types the timer a debug log too (margin 0.11):
#     not shipped, so test20 and test21 stay out of the fit.
# Twenty-third round (types23; the lead's twenty-first): test20 and test21 in ``SPENT`` (their
# rules those of 9fcb7f4 / 9c1f362, i.e. today's); 12,389 examples over 25 splits, re-collected on
# this round's extraction. Criteria fixed before looking. Shipped setting (C 0.03 x4 thread x4)
# unless said; 95% bootstrap over conversations, paired.
#   More data (each fold fitted on all splits written before it, against the same without the
#     newest of them): test21 (train ... test20 against train ... test19) 0.8481 against 0.8469,
#     +0.12 points (-0.57 ... +0.82); pooled over test15 ... test21 0.8156 both, +0.00 (-0.35 ...
#     +0.35); per fold -0.95 / +0.51 / +0.80 / -0.49 / -0.13 / +0.13 / +0.12. Neutral: one more
#     writer moves the next writer's figure by nothing measurable at ~11k examples.
#   C / scales, forward over test14 ... test20 (5,704 typed candidates), against the shipped
#     setting 0.8117 (0.822 / 0.795 / 0.828 / 0.813 / 0.793 / 0.822 / 0.810): C 0.1 0.8149, +0.32
#     (-0.14 ... +0.79); vector x6 0.8182, +0.65 (+0.30 ... +1.03; every fold up); thread x6
#     0.8066, -0.51 (-0.83 ... -0.19).
#   Not shipped: every fit on all 25 spent splits tried types the house-move thread's blinking
#     timer a debug log (tests/test_type_head.py): C 0.03 x4 thread x4 (and "I don't like following
#     meal kit instructions" gains a link, tests/test_causal_readings.py), x6 thread x4, x5 thread x4
#     (the timer only), C 0.1 x4 thread x4 and x6 thread x5 (and the mesh guard in
#     tests/test_segments14.py), x5 thread x5 and x4 thread x5 (all three). The newer writers call a
#     reset clock a debug log outside a fault thread (see the twentieth round below), and two more
#     of them tip it. In sample, the x4 thread x4 fit on all 25 scores test20 types 0.815 -> 0.854,
#     links 0.719 / 0.298 -> 0.739 / 0.304, test21 0.849 -> 0.879, 0.788 / 0.417 -> 0.785 / 0.420
#     (eval_labelled summaries; both splits in its fit). The shipped head stays the 23-split fit.
#   Vector x6 (thread x4, C 0.03) on the 23 splits alone (test20 and test21 in no fit), checked
#     by the lead before the freeze: test21 (in none of the grid's folds) types 0.848 -> 0.854,
#     links 0.788 / 0.417 unchanged; test20 0.816 -> 0.824, links 0.721 / 0.301 -> 0.739 / 0.304
#     (the x4 refit on today's collection as the baseline; eval_labelled summaries). It too types
#     the blinking timer a debug log (tests/test_type_head.py), so it is not shipped either: the
#     one held-out gain on types this round waits on whether that assertion still states what a
#     person means (the newer writers say no; the test says a finding depends on its thread).
# Twenty-second round (nothing newly spent; the collection of the twenty-first round's shipped fit,
# 10,685 examples). Forward chaining over test14 ... test19 (4,928 typed candidates), each setting
# against the shipped setting (C 0.03, vector x4, thread x4) refitted per fold, 0.8133 (0.8019 ...
# 0.8242; 0.821 / 0.797 / 0.831 / 0.814 / 0.793 / 0.825), paired bootstrap over conversations.
# Its confusions pooled (true -> typed): decision -> fact 215, debug_log -> fact 194, fact ->
# debug_log 116, fact -> decision 113, debug_log -> decision 50, decision -> debug_log 43,
# session_note -> decision 39; the head types 193 more facts than there are (decisions -86,
# debug logs -79), in every fold test9 ... test19.
#   The "knn" block (``type_head.knn_features``: the types of the 30 nearest labelled examples of
#     the fit, each training row's read without its own split), C 0.03 x4 thread x4: 0.8271
#     (0.8165 ... 0.8376), +1.38 points (+0.74 ... +2.07; per split +0.95 / +2.50 / +1.15 / +1.15 /
#     +0.87 / +1.66); K 7 / 15 / 60 / 120 +1.01 / +0.95 / +1.40 / +1.14 (unquantised). Not shipped:
#     fitted on all 23 splits (K 30 thread x4 / x5 / x7, K 60 thread x4) it types the blinking timer
#     in the house-move thread a debug log (tests/test_type_head.py), and thread x7 and K 60 the sold
#     car a fact (tests/test_causal_after.py). Keyed by the vector plus the thread's
#     (``type_head.KNN_THREAD``) 0.4: +0.77 (+0.10 ... +1.42), keeps the timer, loses the car; 1.0:
#     +0.32 (-0.26 ... +0.90; +0.47 / +0.48 / +0.38 / -0.92 / +0.25 / +1.41), keeps every asserted
#     behaviour but test_types21's counterfactual (without KEEP_STATUS the head itself keeps the
#     status note a session note), and test20 as summary types 0.815 -> 0.818, causal precision
#     0.719 -> 0.704, recall 0.298 -> 0.291 (links lost): not shipped.
#   Measured, not kept (C 0.03 x4 thread x4, plus a block of columns; scratch code):
#     "mood" (an imperative, one addressed by name, an obligation of the speaker's side or of
#     another, a negated act of the speaker's side, a condition) -0.16 (-0.41 ... +0.06);
#     "state" (a measurement, an expectation not met: "should be", "again", "still", "since the
#     update"; a thing's state, and one not as expected; another person's past non-act) +0.02
#     (-0.30 ... +0.37); the rules' one-hot times every binary column of parse, cues, agency,
#     stance and habit (230) -0.67 (-1.19 ... -0.14), at C 0.01 -1.54; the turn (the memory before
#     / after said by the same speaker, the one before another speaker's question, another
#     speaker's) -0.30 (-0.70 ... +0.06); the agency and stance columns of the memory before and
#     after -0.30 (-0.77 ... +0.18); a per-split decay 0.9 / 0.95 +0.08 / -0.06; a prior shift
#     (offsets added to the decision / debug log / session note scores, chosen by forward chaining
#     over test9 ... the fold before each fold, +0.2 to debug logs and session notes, -0.2 to
#     decisions each time) -0.08 (-0.56 ... +0.42): the over-typed facts are not a prior's to move.
# Twenty-first round, test19 spent (its rules those of d78095e; 782 typed candidates; 4903 over the
# six forward folds test14 ... test19). Forward chaining, each fold fitted only on the splits
# written before it; typed accuracy per candidate with the runtime's overrides (KEEP_STATUS among
# them), pooled, 95% bootstrap over conversations (per split test14 / 15 / 16 / 17 / 18 / 19):
#   main's head (the 17-split fit; held out on all six) 0.7975 (0.7854 ... 0.8091; 0.823 / 0.783
#     / 0.812 / 0.789 / 0.774 / 0.804)
#   the twentieth round's candidate (PARTS[2], C 0.03, x7, thread x7) 0.8158 (0.8045 ... 0.8266);
#     thread x3 0.8173
#   + the stance block (PARTS[3], ``type_head.STANCE_NAMES``), C 0.03: vector x7 thread x7 / x5 /
#     x3 0.8166 / 0.8181 / 0.8181; x7 thread x10 0.8122; x5 thread x7 0.8130; C 0.05 x5 thread x7
#     0.8138. The block itself is flat held out (+0.08 points at x7 thread x7): its columns are
#     precise in every spent split's labels (a choice done: 797 of 885 decisions; a commitment: 429
#     of 485; the speaker's status: 345 of 364 session notes), and the vector and agency blocks
#     already carry most of it; what it adds is the margin on the cases it names (a sale done, a
#     tent promised: +0.8 and +1.4 of score towards a decision).
#   KEEP_STATUS (``type_head``): not one held-out type changes with it (the folds already agree);
#     it keeps a status note said with a promise (tests/test_causal_readings.py, tests/test_types21.py).
#   Measured, not kept: the rules' decision kept where a choice done or a commitment is read (an
#     override like KEEP_STATUS) 0.8148 against 0.8166: the head is right more often than the rules
#     there.
# Shipped: PARTS[3], C 0.03, vector x5, thread x7, fitted on all 23 spent splits: 0.8130 (0.8014
# ... 0.8238; 0.823 / 0.795 / 0.826 / 0.815 / 0.798 / 0.822); against main's head +1.55 points
# (+0.80 ... +2.29; test14 +0.00, test15 +1.20, test16 +1.41, test17 +2.55, test18 +2.37, test19
# +1.79 (+0.00 ... +3.59)). The settings above it (x7 thread x3 / x5 / x7, within 0.5 points, well
# inside each interval) each break an asserted behaviour when fitted on all 23 splits: the blinking
# timer in a house-move thread (tests/test_type_head.py) typed a debug log at thread x3 ... x7 with
# vector x7 (margin 0.13 at x7), and at C 0.05 x5 "I sold the old car on Saturday."
# (tests/test_causal_after.py) typed a fact (margin 0.03); the shipped setting keeps every asserted
# behaviour (the sale +0.22 a decision, the timer +0.27 a fact, the tent +0.94 a decision, the
# status note a session note by KEEP_STATUS) and turns the three strict xfails into passes.
# In sample (test18 + test19 end to end, eval_labelled): types 0.789 -> 0.866, causal precision
# 0.738 -> 0.777, recall 0.283 -> 0.305.
# Re-collected once the extraction of the same round changed what is kept (a second decision in a
# turn is a memory of its own; 10,685 examples), the x5 thread x7 head refitted typed the fix in
# tests/test_segments14.py ("Cleared it and fitted a mesh guard over the intake", after a finding)
# a debug log, so its cause was not linked. Forward chaining over the new collection, PARTS[3],
# C 0.03 (against the sixteenth round's head, paired): vector x5 thread x1 / x3 / x5 / x7 0.8139 /
# 0.8168 / 0.8149 / 0.8123; x4 thread x4 0.8133 (per split 0.821 / 0.797 / 0.831 / 0.814 / 0.793 /
# 0.825; +1.54 points, +0.77 ... +2.27). Fitted on all 23 spent splits, the asserted behaviours
# split the settings: thread x3 and lighter lose the blinking timer (tests/test_type_head.py), x5
# thread x5 and heavier (and x7 at thread x5 ... x7, C 0.02 and 0.05) lose the mesh guard; of the
# settings tried (x4 thread x4, x4 thread x3, x5 thread x1 ... x7, x6 thread x6, x7 thread x5 / x7,
# C 0.02 / 0.05 x5 thread x7) only x4 thread x4 keeps every one, and it is shipped: all are within
# 0.4 points of each other held out, inside each interval, and the margins on those sentences are
# thin. Measured, not kept: a "faults" column for a step done by the speaker's side with a fault
# near (a decision in 437 of 508 such candidates): -0.08 points (-0.28 ... +0.12) held out, and it
# does not fire on the mesh guard (no fault within two memories).
# Twentieth round, test18 spent (its rules those of 4a306f3; 802 typed candidates; 4121 over the
# five forward folds test14 ... test18). Forward chaining, each fold fitted only on the splits
# written before it; typed accuracy per candidate with the runtime's overrides, pooled (95%
# bootstrap over conversations, 2,000 draws; per split test14 / 15 / 16 / 17 / 18):
#   main's head (the 17-split fit; held out on all five) 0.7962 (0.7832 ... 0.8094; 0.823 / 0.783
#     / 0.812 / 0.789 / 0.774)
#   "more data" (PARTS[0], C 0.03 x7, thread x3 refitted per fold) 0.8059 (0.7935 ... 0.8182;
#     0.821 / 0.784 / 0.818 / 0.813 / 0.794); against main's head +0.97 points (+0.32 ... +1.60)
#   + the agency block (PARTS[1]) 0.8136 (0.8017 ... 0.8253; 0.825 / 0.794 / 0.827 / 0.819 / 0.803)
#   + the habit and faults blocks (PARTS[2]; ``type_head.habit_features``, ``fault_context``), C
#     0.03 x7: thread x3 0.8139 (0.8151 with the faults block's first two columns only), x5
#     0.8146, x7 0.8127 (0.8000 ... 0.8247; 0.823 / 0.801 / 0.822 / 0.819 / 0.798); C 0.1 thread
#     x3 0.8122; vector x5 0.8107. The habit block alone (thread x3 / x5 / x7) 0.8139 / 0.8127 /
#     0.8119. Flat within 0.3 points, well inside each interval.
# Candidate: PARTS[2], C 0.03, vector x7, thread x7 (``CANDIDATE``), fitted on all 22 spent
# splits: the best of the flat top that keeps the three behaviours the last round's refits broke.
# Against main's head +1.65 points pooled (+0.83 ... +2.47; test14 +0.00, test15 +1.80, test16
# +1.03, test17 +3.01, test18 +2.37 (+0.26 ... +4.33)); against "more data" +0.68 (+0.02 ... +1.36); against the
# agency setting (thread x3) -0.10 (-0.66 ... +0.46). The hand-written behaviours, as the score
# margin of the wanted type over the next (main's head / agency thread x3 / shipped): the tea
# habit +0.08 / -0.02 / +1.80 (the habit block: "only ever" is a frequency the rules' list lacks,
# and "after dinner" read as a reason cue pulled it off the preferences); the house-move thread's
# blinking timer +0.10 / -0.73 / +0.30 (the newer writers call a clock reset after a power cut a
# debug log even outside a fault thread, e.g. test10 "Its clock reset to midnight after the power
# cut", test18 "The timer reset itself to factory settings"; the thread's weight decides: x3 /
# x5 / x7 -0.62 / -0.11 / +0.30 with the habit and faults blocks); the habit between two tastes
# (test_extract_quality's strict xfail since the thirteenth round) now a preference. Measured,
# not kept: the hand-written train splits weighted x2 / x3 / x5 (``sample_weights``; agency,
# thread x3) move the tea habit away from a preference (margins -0.21 / -0.34 / -0.54): those
# splits say habits with "always" / "usually", which the parse has already; a per-split decay
# 0.9 (newest writers weigh most) -0.10 / -1.02 on the tea / timer margins.
# NOT SHIPPED: the candidate passes test13's asserted levels and the three behaviours above, but the
# must-pass suite (4 min) fails 3 asserted behaviours, each a decision / session-note convention of
# the issue: tests/test_causal_after.py "I sold the old car on Saturday." typed a fact (so the gearbox
# cause is not linked), tests/test_targets19.py "We'll get the bigger tent for the festival." typed a
# fact, tests/test_causal_readings.py "So, I'm still on the warehouse migration plan, will share it
# by Friday." typed a decision (session note asserted); and two strict xfails of
# test_causal_readings (the thirteenth round's neighbours regression) and test_extract_quality's
# habit between two tastes pass (fixed). Thread x7 was taken for the timer, and a heavier thread
# is the likeliest cause of the three (untested: time). mnemo/nlp/heads/types.npz stays main's.
# Nineteenth round, test17 spent (its rules those of 8ab4f65; 864 typed candidates; 3319 over the
# four forward folds test14 ... test17, 4866 over test12 ... test17). Forward chaining, each fold
# fitted only on the splits written before it; typed accuracy per candidate with the runtime's
# overrides (pooled 14-17 | pooled 12-17; per split test12 / 13 / 14 / 15 / 16 / 17):
#   the shipped head (the 17-split fit, held out on test14 ... test17)  0.8014 | 0.8218 in part in
#     sample (0.876 / 0.857 in sample / 0.823 / 0.783 / 0.812 / 0.789)
#   its setting refitted per fold (C 0.03 x7, thread x3; "more data") 0.8087 | 0.8070 (0.815 /
#     0.794 / 0.820 / 0.784 / 0.818 / 0.812). Against the shipped head, paired bootstrap over
#     conversations: 14-17 +0.72 points (95% +0.06 ... +1.41), test17 +2.31 (+0.70 ... +4.04):
#     test14 ... test16 in the fit raise the next writer's text, where test14 alone did not.
#   + the agency block (``type_head.AGENCY_NAMES``, PARTS[1]) C 0.03 x7 0.8162 | 0.8140 (0.823 /
#     0.798 / 0.825 / 0.794 / 0.827 / 0.819); x5 0.8132 | 0.8115; thread x5: x7 0.8147, x5 0.8117.
#     Against the same setting without it: 14-17 +0.75 (+0.12 ... +1.41), 12-17 +0.70 (+0.23 ...
#     +1.22), and on the four folds whose errors were never read while the block was written
#     (test12, 13, 14, 17; it was written from 80 confusions of the test15 / test16 folds) +0.58
#     (+0.00 ... +1.16); against the shipped head 14-17 +1.48 (+0.67 ... +2.32), test17 +3.01.
#     Per feature (left out one at a time, with an eighth "state_only" since dropped: its verb list
#     holds activities such as drink / read, and leaving it out cost nothing, 0.8171 -> 0.8162 |
#     0.8132 -> 0.8140): "concluded" carries most (0.8171 -> 0.8114 without it), each other
#     feature 0.1 - 0.2 points.
#   The grid (rules,parse,cues,neighbours,vector,thread | with agency, 8 features), pooled 14-17:
#   C 0.01 x5 / x7 / x10 0.797 / 0.801 / 0.805 | 0.809 / 0.815 / 0.815; C 0.03 0.805 / 0.809 /
#   0.811 | 0.819 / 0.817 / 0.817; C 0.1 0.810 / 0.807 / 0.806 | 0.816 / 0.813 / 0.810; C 0.3
#   0.805 / 0.804 / 0.799 | 0.814 / 0.809 / 0.806; thread x1.5 / x5 (C 0.03 x7) 0.809 / 0.808 |
#   0.817 / 0.816; balanced class weights (C 0.03 x7) 0.802 | 0.806: flat within a point, and the
#   agency inputs above the others in every cell.
# Not shipped all the same: every refit on the 21 spent splits tried (the inputs with and without
# the agency block; C 0.03 / 0.1, x5 / x7 / x10, thread x3 / x5) breaks a test that must hold:
# test13's asserted link recall (tests/test_extract_quality.py, 0.33; the refits 0.322 - 0.329,
# test13 being in sample for the shipped head and the refits alike), the tea habit
# (tests/test_type_head.py REFIT_RIGHT, typed a fact), or the blinking timer in a house-move thread
# (typed a debug log); thread x5 keeps the first and the last, not the tea habit. The shipped head
# stays main's 17-split fit; end to end the agency refit (C 0.03 x5) typed test15 + test16 0.874,
# links 0.658 / 0.265, in sample (the shipped head, held out: 0.802, 0.622 / 0.237).
# Sixteenth round, test15 spent (its rules those of cd02c48; 828 typed candidates, 3214 over the
# four forward folds). Forward chaining (``FORWARD``: test12 / test13 / test14 / test15, each
# fitted only on the splits before it), inputs rules,parse,cues,neighbours,vector,thread, thread x3:
#   C 0.03 x7 (the shipped setting) 0.815 / 0.794 / 0.821 / 0.780, pooled 0.8021 (2578 / 3214);
#   C 0.03 x3 / x5 0.788 / 0.798; C 0.1 x3 / x5 / x7 0.802 / 0.802 / 0.799; C 0.3 x3 / x5 / x7
#   0.799 / 0.795 / 0.791; C 0.01 x3 / x5 / x7 0.769 / 0.784 / 0.794; thread x1.5 / x5 (C 0.03
#   x7) 0.800 / 0.800. C 0.03 x7 is the first of the tied top (2578: C 0.1 x3 and x5 too).
#   The shipped head (the 17-split fit) on the same candidates: test14 0.822 (690 / 839) and
#   test15 0.780 (646 / 828) held out; test12 / test13 0.876 / 0.857 in sample. Its test15 fold
#   (the 18-split fit, C 0.03 x7) is 646 / 828 as well: test14 in the fit added nothing on the next
#   writer. The best test15 fold, C 0.1 x7 0.790 (+8 of 828 over the shipped head; a paired
#   bootstrap over test15's 116 conversations: +1.0 points, 95% -0.7 ... +2.6, P(<= 0) 0.15),
#   is 0.3 points below C 0.03 x7 pooled: noise, not kept.
# Measured on the same folds with a reason to generalise, not kept (C 0.03 x7 unless said):
#   (a) every split weighted the same (sample weights 1 / its size, mean 1): pooled 0.790 (test15
#   0.771); C 0.1 x7 0.795 (0.779); C 0.01 x7 0.776; x3 / x5 lower still; (b) a stronger prior
#   towards the rules: the rules' one-hot x2 / x4 (its weights penalised 4 / 16 times less)
#   0.8012 / 0.8018 (test15 0.783 both), fewer inputs (rules,parse,cues,vector: no thread nor neighbours) 0.787
#   (test15 0.778), more regularisation (C 0.01) above; (c) abstaining to the rules' type where
#   the head's top probability is below 0.35 / 0.45 / 0.55: 0.8012 / 0.7987 / 0.7844 (test15
#   0.780 / 0.785 / 0.771); (d) the mean logits of heads each fitted without one earlier writer
#   (train ... test4 as one), a linear head too: 0.8006 (test15 0.779).
# Diagnosis (test15's fold, C 0.03 x7, 182 of 828 wrong): with test15's other conversations in the
# fit too (five folds over its conversations) 0.801, on them alone 0.749: the new writer's own
# conventions are worth ~2 points, the rest of the errors are what these inputs do not separate.
# The shipped head's 171 confusions on test15 end to end (eval_labelled --show): decision -> fact
# 33 (some 20 arrangements said impersonally or by another party, "Lessons move to Thursdays from
# January", "the boiler has been capped", which this writer calls decisions and earlier writers
# facts: "hosepipes are banned from next month" [fact], "your visa appointment has been moved"
# [fact]), debug_log -> fact 29 (device findings outside software: "Walk-in read 9 degrees this
# morning"), fact -> decision 29 (people's past deeds in chat: "dinged the nose on the rocks"),
# fact -> debug_log 17, decision <-> session_note 12 / 12 (this writer's "I'll sign the offer
# tonight" is a decision, "rewriting it from my notes rn" a note), decision -> debug_log 10,
# debug_log -> decision 8, others 21.
# The 19-split fit is not shipped: nothing above beats the shipped head on test15's fold, and it
# fails three hand-written behaviours (tests/test_type_head.py's thread finding, test13's asserted
# held-out level in tests/test_extract_quality.py, tests/test_causal_readings.py's work-in-progress
# note); in sample it types test15 0.871 and test14 0.872 end to end (links 0.648 / 0.302 and
# 0.734 / 0.312, against the shipped head's 0.612 / 0.269 and 0.699 / 0.286).
# Fifteenth round, test14 spent (its rules those of a311639; 5313 typed candidates over the ten
# folds): one pass, inputs rules,parse,cues,neighbours,vector,thread, thread x3. Forward chaining (fit only on splits written
# before the fold): test14 0.821 (689 / 839; the same as its leave-one-out fold), test13 0.794.
# Leave one split out over test5 ... test14, pooled: C 0.03 x7 0.8485 (4508 / 5313; per split
# 0.870 / 0.869 / 0.845 / 0.870 / 0.876 / 0.929 / 0.863 / 0.822 / 0.797 / 0.821), C 0.03 x5
# 0.8483 (test14 0.814, forward test13 0.791), C 0.1 x7 0.8430 (test14 0.812, test13 0.787):
# C 0.03 x7 stays. Measured, not kept: the fourteenth round's two passes (branch types14):
# pooled 0.8538, test14 0.824 (+2 of 839, within noise), forward test13 0.801; three parse cues
# (a done deed by a party, a finding about a cause, a short verbless answer): pooled 0.8489,
# test14 0.820, forward test13 0.793. The 18-split fit itself is not shipped: it types test14's
# own text 0.824 -> 0.874 in sample but adds nothing held out (test14's fold 0.821 against the
# shipped head's 0.824 when test14 was fresh) and flips two hand-written behaviours (a tea habit
# -> fact; a timer found blinking -> debug_log); mnemo/nlp/heads/types.npz stays the fourteenth
# round's 17-split fit.
# Fourteenth round, test13 spent (its rules those of f7001f7): leave one split out over test5 ...
# test13 (each fold fitted on the 16 other spent splits; 4398 typed candidates re-collected under
# the current segmentation), inputs rules,parse,cues,neighbours,vector,thread, thread x3. Held out, the fold that matters: test13
# (the head never saw it) C 0.03 at x3 / x5 / x7 0.778 / 0.791 / 0.794; C 0.1 0.798 / 0.791 /
# 0.788; C 0.3 x3 / x5 0.789 / 0.777 (the thirteenth round's head scored 0.797 on test13 end to
# end, once). Pooled over the nine folds (each fold's split unseen by its head, the others in the
# tuning of earlier rounds): C 0.03 0.846 / 0.851 / 0.853, C 0.1 0.852 / 0.850 / 0.850, C 0.3
# 0.849 / 0.844 / 0.837 (the rules alone: test13 0.682, test12 0.670); chosen C 0.03 x7 again (per split test5 ... test13 0.870 / 0.875 /
# 0.842 / 0.880 / 0.878 / 0.929 / 0.853 / 0.821 / 0.794). Without the neighbours block
# ("rules,parse,cues,vector,thread"): C 0.03 x7 0.835 (test13 0.783), C 0.1 x5 0.835 (test13
# 0.778), so the neighbours stay (+1.8 points pooled, +1.1 on test13).
# Thirteenth round, with the thread (inputs rules,parse,cues,neighbours,vector,thread; see
# ``type_head.context_blocks``; 3616 typed candidates under the current segmentation): C 0.03 at
# x7 0.860 (test5 ... test12 0.876 / 0.878 / 0.842 / 0.873 / 0.875 / 0.920 / 0.841 / 0.807), C
# 0.1 at x7 0.857, against 0.838 without the thread (C 0.03 x7; test12 0.791); the rest of the
# grid was not run with the thread (time), so C 0.03 x7 stands from the round before. End to end,
# a head fitted without test12 (test12 held out): types 0.797 -> 0.812, links 0.672 / 0.380 ->
# 0.664 / 0.394.
# Thirteenth round, before the thread: leave one split out over test5 ... test12 (each fold fitted on the 15 other
# spent splits, test12's rules those of a8e18bc; pooled typed accuracy with the runtime's
# overrides; 3602 typed candidates, re-collected under the current segmentation and statement
# filter), inputs rules,parse,cues,vector: C 0.03 / 0.1 / 0.3 at x3 0.822 / 0.833 / 0.830, x5
# 0.835 / 0.833 / 0.828, x7 0.838 / 0.834 / 0.827 (the rules alone: test5 ... test12 0.783 /
# 0.786 / 0.751 / 0.779 / 0.743 / 0.777 / 0.740 / 0.663); chosen C 0.03, x7 again. Per split at
# C 0.03 x7: test5 0.856, test6 0.856, test7 0.827, test8 0.829, test9 0.834, test10 0.878,
# test11 0.851, test12 0.792 (the fold with test12 held out is the twelfth round's head on fresh
# text: end to end it scored 0.791). Measured on the same folds (C 0.03, x7) and not kept:
# a sixth cue "doing_now" (a person's own -ing activity with a present time: "writing up the
# incident doc now", 116 of 122 such spent units are session notes) 0.837, test12 0.793;
# a context column (an earlier candidate of the conversation states a fault, alone and with the
# rules' fact) 0.837, test12 0.787; the older writers' facts that state a failure with no
# system part named (train ... test8, the convention test9 ... test12 label debug_log) left
# out of training 0.835, test12 0.787; test9 ... test12's rows weighted x2 0.838 (3017 of 3602
# against 3020), test12 0.792 unchanged.
# Twelfth round: leave one split out over test5 ... test11 (each fold fitted on the 14 other
# spent splits, test11's rules those of 1fa6e9b; pooled typed accuracy with the runtime's
# overrides applied; 2881 typed candidates), inputs rules,parse,cues,vector: C 0.03 / 0.1 / 0.3
# at x3 0.830 / 0.842 / 0.843, x5 0.843 / 0.845 / 0.838, x7 0.845 / 0.841 / 0.833 (the rules
# alone 0.765); C 0.03 x7 and C 0.1 x5 tie exactly (2434 of 2881), and the first of equals in the
# grid's order is shipped: C 0.03, x7. Per split at C 0.03 x7: test5 0.869, test6 0.855, test7 0.814,
# test8 0.832, test9 0.824, test10 0.863, test11 0.849 (the eleventh round's 0.840 was pooled
# over test5 ... test10 without test11 among the training splits). Weighting the rows of
# test9 ... test11 x2 (their writers label device faults outside software debug logs, where
# test3 ... test8 call a broken boiler or car a fact): 0.839 pooled, test9 ... test11 alone 0.846
# against 0.850 unweighted, so every split weighs the same.
# Eleventh round: leave one split out over test5 ... test10 (each fold fitted on the 13 other
# spent splits; pooled typed accuracy with the runtime's overrides applied, ``runtime_types``,
# SYSTEM_DEBUG off; the rules alone 0.767), inputs rules,parse,cues,vector: C 0.03 / 0.1 / 0.3
# at x5 0.831 / 0.840 / 0.833; x3 / x7 at C 0.1 0.834 / 0.838; chosen C 0.1, x5 again. Without
# the cues: C 0.03 / 0.1 / 0.3 at x5 0.830 / 0.834 / 0.830.
# Tenth round (over test5 ... test9, no overrides applied): C 0.03 / 0.1 / 0.3 with the vector
# x5 0.826 / 0.833 / 0.823, x3 0.807 / 0.828 / 0.829, x7 0.831 / 0.832 / 0.818. Finer points
# were no better (C 0.05 / 0.2 at x5: 0.829 / 0.826; x4 / x6 at C 0.1: 0.832 / 0.830; C 0.05 at
# x8 / x10: 0.832 / 0.835): the surface is flat within a point, so the grid stays.
CS = (0.03, 0.1, 0.3)
# The thread's mean vector (``type_head.context_blocks``) enters times this factor, beside the
# memory's own (``SCALES``). Thirteenth round, leave one split out over test5 ... test12 (C 0.03,
# vector x7, inputs rules,parse,cues,neighbours,vector,thread): x1.5 / x3 / x5 0.858 / 0.860 / 0.860 (3102 / 3110 / 3111 of 3616;
# test12 0.803 / 0.807 / 0.805); the smaller of the flat top.
THREAD_SCALE = 3.0
# The shipped setting (twenty-first round, the events block added in the twenty-fifth; see the grid's
# comments): the best by forward chaining of those that keep every asserted behaviour when fitted.
# (The ×5 / ×7 it held until the twentieth round was the helper's fit, not what shipped: the
# shipped head's scales, mnemo/nlp/heads/types.npz, are ×4 / ×4, as the docstring says.)
CANDIDATE = ("rules,parse,cues,agency,habit,stance,events,neighbours,faults,vector,thread", 0.03, 4.0, 4.0, 1.0, 1.0)
# The hand-written train splits (train ... train4: written by the project around the issue's own
# phrasings, "I usually cook at home during the week" a preference) and the weights of their rows
# the folds choose from (``sample_weights``); and the per-split decays (1.0: every split alike).
HAND = ("train", "train2", "train3", "train4")
HAND_WEIGHTS = (1.0,)
DECAYS = (1.0,)
# The vector enters unstandardised (its cosine geometry kept), times this factor: with C, how
# much the regression may lean on it against the rules and the parse.
SCALES = (3.0, 5.0, 7.0)
# Inputs: ``type_head.BLOCKS``. The shipped head reads rules,parse,cues,vector (eleventh round,
# the folds above: 0.840 with the cues, 0.834 without; see ``type_head.CUE_NAMES``). The
# overrides ``retype`` applies after the head were measured on the same folds (see
# ``type_head.SYSTEM_DEBUG`` and ``KEEP_REASONED``): without the cues, both on 0.824, the system
# gate off 0.834, both off 0.839; with them 0.825 / 0.840 / 0.844.
# Measured in the twelfth round and not used (C 0.1, x5, against 0.845 without them, the same
# folds; code in the round's notes, not kept): three more conjunctions for test11's confusions,
# "thing_event" (a thing, no person, the subject of a past or perfect verb with no object that
# is no state: "the heater died overnight", "the alarm went off at 2am"), "from_time" (a new
# arrangement dated "from Monday", "from next week") and "group_plan" ("we're opening a second
# table next week"): all three 0.847 (per split -0.4 / 0.0 / +0.3 / +1.0 / -0.8 / +0.6 / +0.6
# points over test5 ... test11); without thing_event 0.847, without from_time 0.848, without
# group_plan 0.847: within a few examples of 2881 and no cue carries it alone, so none is kept.
# Measured in the tenth round and not used, their code since removed (same folds as its grid,
# C 0.1, x5; 0.833): + the parse's subject x tense pairs 0.826; + the local context without the
# position (after a question, the turn before has a statement, same speaker) 0.832; + the turn
# before's mean vector (x0.3 / x0.5 of the vector's scale) 0.836 / 0.837, within a fold's noise;
# + the position in the conversation (first turn, turn / last) 0.856, but that is the labelled
# writer's template (first turns 69% facts, middle turns 66% decisions) and not where a memory
# stands in a capture delta or a long chat: with the position made uninformative on the
# held-out fold (first_turn 0, position uniform) the same heads score 0.804, below the head
# without it. Balanced class weights: 0.825. A 32- or 64-unit MLP on the same inputs: 0.829 -
# 0.831.
PARTS = ("rules,parse,cues,neighbours,vector,thread", "rules,parse,cues,agency,neighbours,vector,thread",
         "rules,parse,cues,agency,habit,neighbours,faults,vector,thread",
         "rules,parse,cues,agency,habit,stance,neighbours,faults,vector,thread", "rules,parse,cues,vector", "rules,parse,vector", "parse,vector", "rules,parse", "vector",
         "rules,parse,cues,agency,habit,stance,events,neighbours,faults,vector,thread")
FOLDS = ("test5", "test6", "test7", "test8", "test9", "test10", "test11", "test12", "test13", "test14", "test15", "test16", "test17",
         "test18", "test19")
# The selection criterion since the sixteenth round: forward chaining, each of these splits scored
# by a head fitted only on the splits written before it (``SPENT`` is in the order they were
# written), pooled. Leaving one split out pools folds whose training splits include writers that
# came later and resemble each other more than a new writer resembles them: it promised ~0.85
# where three fresh splits scored 0.797 / 0.824 / 0.788; forward chaining over test12 ... test15
# reads 0.802 for the same setting (see the grid's comments). Nineteenth round: the newest four,
# test14 ... test17 (the shipped setting 0.809 there, the shipped head 0.801).
# Twenty-third round: test20 and test21 are spent but not in this default (scripts/diagnose_links.py
# reads it as its default splits and prints per-link rows); the round's folds named them with
# ``--folds``.
FORWARD = ("test14", "test15", "test16", "test17", "test18", "test19")


@dataclass
class Example:
    split: str
    conversation: str
    text: str
    label: str
    rule: str
    blocks: dict[str, np.ndarray]
    # What the runtime's two overrides of the head read (``type_head.retype``): a system part is
    # named (``classify._technical``); a step said with its cause or result (``_with_its_reason``).
    technical: bool = True
    reasoned: bool = False
    # Examples with label "" are kept candidates no labelled unit matches: context for the
    # others (``with_context`` reads a conversation's examples in order), never trained or scored on.

    def row(self, parts: str) -> np.ndarray:
        """The head's input, its blocks in the runtime's order (``type_head.BLOCKS``)."""
        chosen = parts.split(",")
        return np.concatenate([self.blocks[p] for p in _blocks() if p in chosen])


def old_rules(commit: str) -> Any:
    """``mnemo/nlp/classify.py`` as it was at ``commit`` (from git), as a module."""
    import importlib.util
    import subprocess

    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:mnemo/nlp/classify.py"], check=True,
                            capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp(prefix="mnemo-rules-")) / f"classify_{commit}.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"mnemo.nlp._classify_{commit}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "mnemo.nlp"
    spec.loader.exec_module(module)
    return module


def collect(engine: Any, split: str) -> list[Example]:
    """The typed candidates ingest keeps from ``split``, with their features and gold label; the
    ``rules`` block is the rules' type as the rules of ``FRESH_RULES`` say it, where the split has
    them."""
    from unittest import mock

    from mnemo import ingest as ingest_mod
    from mnemo.models import MemoryType
    from mnemo.nlp import classify as rules_mod
    from mnemo.nlp import conversation, extract, statement, type_head
    from tests.labelled_set import examples_without, load, unit_of

    embedder = engine.core.embedder
    fresh = old_rules(FRESH_RULES[split]) if split in FRESH_RULES else None
    out: list[Example] = []
    for n, conv in enumerate(load(split)):
        t0 = 1_770_000_000.0 + n * 86400
        turns_json = [{"speaker": sp, "text": tx, "timestamp": t0 + 60 * i} for i, (sp, tx) in enumerate(conv.turns)]
        turns, _, _ = conversation.load(json.dumps(turns_json), "json")
        cands, _ = extract.candidates(turns)
        speakers = extract.people(t.speaker for t in turns)  # as ingest names them
        addressee = ingest_mod.addressees(turns, speakers)
        said = [ingest_mod.attributed(c.text, c.speaker if c.speaker in speakers else None, addressee.get(c.turn.index))[0]
                for c in cands]
        vectors = np.asarray(embedder.embed(said), dtype=np.float32) if said else np.zeros((0, 384), np.float32)
        # The rules' types as the head will see them: the filter run with no head.
        named = [s != c.text for s, c in zip(said, cands, strict=True)]
        with examples_without(engine, conv), mock.patch.object(type_head, "HEAD_PATH", ROOT / "no-such-head.npz"):
            kept = extract.judge(cands, vectors, named, embedder)
            protos = statement.prototypes(embedder)
            for i in kept:
                c = cands[i]
                unit = unit_of(conv, c.turn.index, said[i])
                rule = c.type
                if fresh is not None:
                    rule = MemoryType(fresh.classify_parsed(c.text, c.spans).value)
                    if rule == MemoryType.DEBUG_LOG and protos is not None and not protos.near(vectors[i], "debug_log", named=named[i]):
                        rule = MemoryType.FACT  # what ``extract.judge`` does to the rules' debug logs
                blocks = {p: type_head.features(rule, c.text, c.spans, vectors[i], p) for p in BASE}
                out.append(Example(split, conv.cid, said[i], unit.type if unit is not None else "", rule.value, blocks,
                                   rules_mod._technical(c.spans), type_head._with_its_reason(c.text, c.spans)))
    return with_context(out)


# The blocks each candidate has on its own; the thread's (``type_head.context_blocks``) are
# computed from them over its conversation (``with_context``), at collection and from the cache.
BASE = ("rules", "parse", "cues", "agency", "habit", "stance", "events", "vector")


def with_context(examples: list[Example]) -> list[Example]:
    """The examples with their "neighbours", "faults" and "thread" blocks, read off the other kept
    candidates of their conversation in order (what ``type_head.retype`` sees at ingest)."""
    from mnemo.nlp import type_head

    by: dict[tuple[str, str], list[Example]] = {}
    for e in examples:
        by.setdefault((e.split, e.conversation), []).append(e)
    for conv in by.values():
        neighbours, thread = type_head.context_blocks(np.stack([e.blocks["rules"] for e in conv]),
                                                      np.stack([e.blocks["vector"] for e in conv]))
        none = np.zeros(len(type_head.AGENCY_NAMES), np.float32)
        faults = type_head.fault_context([type_head.states_fault(e.blocks["parse"], e.blocks["cues"], e.blocks.get("agency", none))
                                          for e in conv], [type_head.of_a_thing(e.blocks["parse"]) for e in conv])
        for i, e in enumerate(conv):
            e.blocks["neighbours"], e.blocks["thread"], e.blocks["faults"] = neighbours[i], thread[i], faults[i]
    return examples


@dataclass
class Head:
    """A fitted head: the standardisation (the vector block only scaled) and the regression; with
    the "knn" block, the pool of labelled examples it reads (``knn_pool``)."""

    parts: str
    c: float
    vector_scale: float
    mean: np.ndarray
    scale: np.ndarray
    model: Any
    pool: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # int8 vectors, their scales, class indices

    def predict(self, examples: list[Example]) -> np.ndarray:
        if self.pool is not None:
            set_knn(examples, self.pool)
        x = (np.stack([e.row(self.parts) for e in examples]) - self.mean) / self.scale
        return np.asarray(self.model.predict(x))


def knn_pool(examples: list[Example]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The fit's labelled examples as the "knn" block's pool, in the form saved with the head
    (``type_head.quantise``; what the runtime reads, so the fit reads the same)."""
    from mnemo.nlp.type_head import CLASSES, knn_keys, quantise

    q, scale = quantise(knn_keys(np.stack([e.blocks["vector"] for e in examples]), np.stack([e.blocks["thread"] for e in examples])))
    return q, scale, np.array([CLASSES.index(e.label) for e in examples], dtype=np.int8)


def set_knn(examples: list[Example], pool: tuple[np.ndarray, np.ndarray, np.ndarray],
            splits: np.ndarray | None = None) -> None:
    """Each example's "knn" block read off ``pool`` (``type_head.knn_features``); with ``splits``
    (the pool rows' splits: the examples are the pool's own), each leaving its own split out."""
    from mnemo.nlp.type_head import dequantise, knn_features, knn_keys

    vectors, labels = dequantise(pool[0], pool[1]), pool[2].astype(np.int64)
    q = knn_keys(np.stack([e.blocks["vector"] for e in examples]), np.stack([e.blocks["thread"] for e in examples]))
    same = None if splits is None else np.array([e.split for e in examples])[:, None] == splits[None, :]
    for e, row in zip(examples, knn_features(q, vectors, labels, same=same), strict=True):
        e.blocks["knn"] = row


def sample_weights(examples: list[Example], hand: float = 1.0, decay: float = 1.0) -> np.ndarray:
    """A weight per example, mean 1 (so C keeps its meaning): the hand-written train splits
    (``HAND``) times ``hand``; each split times ``decay`` to the power of how many splits of the
    fit were written after it (``SPENT``'s order; 1.0: no decay), so that with ``decay`` < 1 the
    newest writers weigh most."""
    splits = sorted({e.split for e in examples}, key=SPENT.index)
    age = {s: len(splits) - 1 - i for i, s in enumerate(splits)}
    w = np.array([(hand if e.split in HAND else 1.0) * decay ** age[e.split] for e in examples], dtype=np.float64)
    return w / w.mean() if len(w) else w


def fit(examples: list[Example], parts: str, c: float, vector_scale: float, thread_scale: float | None = None,
        hand: float = 1.0, decay: float = 1.0) -> Head:
    from sklearn.linear_model import LogisticRegression

    from mnemo.nlp.type_head import VECTOR_BLOCKS

    pool = None
    if "knn" in parts.split(","):
        # Each training row's neighbours from the other splits only: on a new writer's text none
        # of the pool is its own, and the fit should weigh the block as it reads there.
        pool = knn_pool(examples)
        set_knn(examples, pool, splits=np.array([e.split for e in examples]))
    x = np.stack([e.row(parts) for e in examples])
    y = np.array([e.label for e in examples])
    # Rules' one-hot and parse features standardised; the vector keeps its geometry, times
    # ``vector_scale``, and the thread's mean vector times ``thread_scale`` (dividing by 1 /
    # scale is what the runtime does with every column). They are the last blocks.
    chosen = parts.split(",")
    n_own = len(examples[0].blocks["vector"]) if "vector" in chosen else 0
    n_thread = len(examples[0].blocks["thread"]) if "thread" in chosen else 0
    n = x.shape[1] - n_own - n_thread
    assert all(p in VECTOR_BLOCKS for p in chosen[len(chosen) - (n_own > 0) - (n_thread > 0):])
    mean = np.zeros(x.shape[1], dtype=np.float64)
    scale = np.ones(x.shape[1], dtype=np.float64)
    mean[:n] = x[:, :n].mean(axis=0)
    std = x[:, :n].std(axis=0)
    scale[:n] = np.where(std > 0, std, 1.0)
    scale[n:n + n_own] = 1.0 / vector_scale
    scale[n + n_own:] = 1.0 / (THREAD_SCALE if thread_scale is None else thread_scale)
    model = LogisticRegression(C=c, max_iter=5000, random_state=SEED)
    weighted = hand != 1.0 or decay != 1.0
    model.fit((x - mean) / scale, y, sample_weight=sample_weights(examples, hand, decay) if weighted else None)
    return Head(parts, c, vector_scale, mean, scale, model, pool)


def runtime_types(examples: list[Example], predicted: Any, system_debug: bool | None = None,
                  keep_reasoned: bool = True, keep_status: bool | None = None) -> list[str]:
    """What ``type_head.retype`` makes of the head's choices: the rules' type where the head sees
    chatter, where it says debug log with no system part named (``type_head.SYSTEM_DEBUG``),
    where the rules' decision is said with its reason, and where the rules' session note is said
    as the speaker's status on a task (``type_head.KEEP_STATUS``)."""
    from mnemo.nlp import type_head

    gate = type_head.SYSTEM_DEBUG if system_debug is None else system_debug
    status = type_head.KEEP_STATUS if keep_status is None else keep_status
    k = type_head.STANCE_NAMES.index("status")
    out = []
    for e, p in zip(examples, predicted, strict=True):
        if p == "chatter" or (gate and p == "debug_log" and e.rule != p and not e.technical) or (
                keep_reasoned and e.rule == "decision" and p != e.rule and e.reasoned) or (
                status and e.rule == "session_note" and p != e.rule and "stance" in e.blocks and bool(e.blocks["stance"][k])):
            p = e.rule
        out.append(str(p))
    return out


def accuracy(head: Head, examples: list[Example], **gates: Any) -> float:
    """Share of the typed examples (chatter units have no type to get right) given their type,
    with the runtime's overrides (``runtime_types``)."""
    typed = [e for e in examples if e.label != "chatter"]
    if not typed:
        return 0.0
    got = runtime_types(typed, head.predict(typed), **gates)
    return float(np.mean([g == e.label for g, e in zip(got, typed, strict=True)]))


def save(head: Head, path: Path, model_name: str = "all-MiniLM-L6-v2", splits: tuple[str, ...] = ()) -> None:
    from mnemo.nlp.type_head import CLASSES

    lr = head.model
    # Rows in type_head.CLASSES order; a class the examples lack (a small fit with no chatter let
    # through) gets a row that never wins.
    known = list(lr.classes_)
    n = lr.coef_.shape[1]
    weights = np.stack([lr.coef_[known.index(t)] if t in known else np.zeros(n) for t in CLASSES])
    bias = np.array([lr.intercept_[known.index(t)] if t in known else -1e9 for t in CLASSES])
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays: dict[str, Any] = dict(weights=weights.astype(np.float32), bias=bias.astype(np.float32),
                                  mean=head.mean.astype(np.float32), scale=head.scale.astype(np.float32),
                                  classes=np.array(CLASSES), parts=np.array(head.parts), model=np.array(model_name),
                                  dim=np.array(384), splits=np.array(list(splits), dtype=str))
    if head.pool is not None:  # the "knn" block's labelled examples (``type_head.knn_pool``)
        arrays.update(pool=head.pool[0], pool_scale=head.pool[1], pool_labels=head.pool[2])
    np.savez(path, **arrays)


# (parts, C, vector scale), optionally followed by the thread's scale (None: THREAD_SCALE), the
# hand-written splits' weight and the per-split decay (``sample_weights``): ``fit``'s arguments.
Setting = tuple[Any, ...]


def outcomes(head: Head, examples: list[Example]) -> list[tuple[str, bool]]:
    """Per typed example, its conversation (split and id) and whether the runtime's type
    (``runtime_types`` of the head's choice) is its label."""
    typed = [e for e in examples if e.label != "chatter"]
    got = runtime_types(typed, head.predict(typed)) if typed else []
    return [(f"{e.split}/{e.conversation}", g == e.label) for g, e in zip(got, typed, strict=True)]


class Saved:
    """A written head (``save``'s file, e.g. the shipped one) read as ``type_head`` reads it at run
    time, with ``Head.predict``'s interface: the rows are the examples' blocks the file's parts name."""

    def __init__(self, path: Path) -> None:
        from mnemo.nlp.type_head import CHATTER, TypeHead

        self.runtime = TypeHead(path)
        self.path = path
        self.parts = self.runtime.parts
        self.chatter = CHATTER

    def predict(self, examples: list[Example]) -> np.ndarray:
        from mnemo.nlp.type_head import knn_features, knn_keys, knn_pool

        if "knn" in self.parts.split(","):
            pool = knn_pool(self.path)
            assert pool is not None
            keys = knn_keys(np.stack([e.blocks["vector"] for e in examples]), np.stack([e.blocks["thread"] for e in examples]))
            for e, row in zip(examples, knn_features(keys, *pool), strict=True):
                e.blocks["knn"] = row
        rows = np.stack([e.row(self.parts) for e in examples])
        return np.array([t.value if t is not None else self.chatter for t in self.runtime.predict(rows)])


def forward_outcomes(data: dict[str, list[Example]], folds: list[str], setting: Setting | Path) -> dict[str, list[tuple[str, bool]]]:
    """Per fold, ``outcomes`` of a head with ``setting`` fitted only on the splits written before
    the fold (or of the written head at a path, the same for every fold)."""
    out = {}
    for held in folds:
        if isinstance(setting, Path):
            head: Any = Saved(setting)
        else:
            head = fit([e for s in SPENT[:SPENT.index(held)] if s in data for e in data[s]], *setting)
        out[held] = outcomes(head, data[held])
    return out


def curve(data: dict[str, list[Example]], targets: list[str], cutoffs: list[str],
          setting: Setting) -> dict[str, dict[str, list[tuple[str, bool]]]]:
    """The learning curve behind forward chaining: per cutoff, ``outcomes`` on each target written
    after it of a head with ``setting`` fitted on the splits of ``data`` up to and including the
    cutoff (``SPENT``'s order). How the next writers' figure moves as earlier writers are added."""
    out: dict[str, dict[str, list[tuple[str, bool]]]] = {}
    for cut in cutoffs:
        fit_on = [s for s in SPENT[:SPENT.index(cut) + 1] if s in data]
        head = fit([e for s in fit_on for e in data[s]], *setting)
        out[cut] = {t: outcomes(head, data[t]) for t in targets if SPENT.index(t) > SPENT.index(cut)}
    return out


def print_curve(table: dict[str, dict[str, list[tuple[str, bool]]]], data: dict[str, list[Example]]) -> None:
    """``curve``'s table, per cutoff (its training examples, each target's accuracy), then the
    targets every cutoff scores, pooled, with the last cutoff against the first (paired)."""
    cutoffs = list(table)
    for cut in cutoffs:
        n = sum(len(data[s]) for s in SPENT[:SPENT.index(cut) + 1] if s in data)
        print(f"  train ... {cut:7} ({n} examples): " + "; ".join(f"{t} {np.mean([ok for _, ok in o]):.4f}"
                                                           for t, o in table[cut].items()), flush=True)
    common = [t for t in table[cutoffs[0]] if all(t in table[c] for c in cutoffs)]
    if common and len(cutoffs) > 1:
        diff = bootstrap({t: table[cutoffs[-1]][t] for t in common}, {t: table[cutoffs[0]][t] for t in common})["pooled"]
        print(f"  {'+'.join(common)} pooled: " + "; ".join(f"{c} {np.mean([ok for t in common for _, ok in table[c][t]]):.4f}"
                                                          for c in cutoffs)
              + f"; {cutoffs[-1]} against {cutoffs[0]} {diff[0]:+.4f} ({diff[1]:+.4f} ... {diff[2]:+.4f})", flush=True)


def bootstrap(a: dict[str, list[tuple[str, bool]]], b: dict[str, list[tuple[str, bool]]] | None = None,
              draws: int = 2000, seed: int = SEED) -> dict[str, tuple[float, float, float]]:
    """Per fold and pooled ("pooled"): the accuracy of ``a`` (minus ``b``'s on the same examples,
    when given: a paired difference) and its 95% interval over 2,000 draws of the conversations,
    each fold's drawn from its own with replacement."""
    rng = np.random.default_rng(seed)
    folds = list(a)
    per: dict[str, tuple[list[str], np.ndarray, np.ndarray]] = {}
    for f in folds:
        convs = sorted({c for c, _ in a[f]})
        index = {c: i for i, c in enumerate(convs)}
        right = np.zeros(len(convs))
        n = np.zeros(len(convs))
        for k, (c, ok) in enumerate(a[f]):
            right[index[c]] += ok - (b[f][k][1] if b is not None else 0)
            n[index[c]] += 1
        per[f] = (convs, right, n)
    out: dict[str, tuple[float, float, float]] = {}
    pooled_r = np.zeros(draws)
    pooled_n = np.zeros(draws)
    for f in folds:
        _, right, n = per[f]
        picks = rng.integers(0, len(n), size=(draws, len(n)))
        r, m = right[picks].sum(axis=1), n[picks].sum(axis=1)
        pooled_r += r
        pooled_n += m
        lo, hi = np.percentile(r / m, [2.5, 97.5])
        out[f] = (float(right.sum() / n.sum()), float(lo), float(hi))
    lo, hi = np.percentile(pooled_r / pooled_n, [2.5, 97.5])
    total = sum(per[f][1].sum() for f in folds) / sum(per[f][2].sum() for f in folds)
    out["pooled"] = (float(total), float(lo), float(hi))
    return out


def report(data: dict[str, list[Example]], folds: list[str], setting: Setting, shipped: Path | None) -> None:
    """Forward chaining for ``setting`` against the head written at ``shipped`` (main's): each
    fold and pooled with its interval, and the paired difference with its interval."""
    ours = forward_outcomes(data, folds, setting)
    lines = [("setting " + ", ".join(map(str, setting)), bootstrap(ours))]
    if shipped is not None and shipped.is_file():
        theirs = forward_outcomes(data, folds, shipped)
        lines += [(f"head {shipped.name}", bootstrap(theirs)), ("difference", bootstrap(ours, theirs))]
    for name, b in lines:
        print(f"  {name}")
        print("    " + "; ".join(f"{k} {v[0]:+.4f} ({v[1]:+.4f} ... {v[2]:+.4f})" if name == "difference"
                                  else f"{k} {v[0]:.4f} ({v[1]:.4f} ... {v[2]:.4f})" for k, v in b.items()), flush=True)


def _folds_table(data: dict[str, list[Example]], folds: list[str], grid: list[Setting],
                 fit_on: Callable[[str], list[str]]) -> dict[Setting, dict[str, float]]:
    """For each setting (parts, C, vector scale), the accuracy on each fold's split of a head
    fitted on the splits ``fit_on(fold)`` names, and pooled over the folds."""
    table: dict[Setting, dict[str, float]] = {}
    for setting in grid:
        row = {}
        right = total = 0
        for held in folds:
            head = fit([e for s in fit_on(held) if s in data for e in data[s]], *setting)
            acc = accuracy(head, data[held])
            typed = sum(e.label != "chatter" for e in data[held])
            row[held] = acc
            right += round(acc * typed)
            total += typed
        row["pooled"] = right / max(1, total)
        table[setting] = row
        parts, c, scale, *rest = setting
        extra = " ".join(f"{n} {v}" for n, v in zip(("thread", "hand", "decay"), rest, strict=False))
        print(f"  {parts:20} C={c:<5} vector x{scale:<4} {extra} " + " ".join(f"{k} {v:.3f}" for k, v in row.items()), flush=True)
    return table


def loso(data: dict[str, list[Example]], folds: list[str], grid: list[Setting]) -> dict[Setting, dict[str, float]]:
    """Each fold's split scored by a head fitted on all the other splits."""
    return _folds_table(data, folds, grid, lambda held: [s for s in data if s != held])


def forward(data: dict[str, list[Example]], folds: list[str], grid: list[Setting]) -> dict[Setting, dict[str, float]]:
    """Each fold's split scored by a head fitted only on the splits of ``data`` written before it
    (``SPENT``'s order): what a head fitted today will meet on the next writer's text."""
    return _folds_table(data, folds, grid, lambda held: list(SPENT[:SPENT.index(held)]))


def end_to_end(engine_factory: Any, split: str, head_path: Path | None) -> Any:
    """``scripts/eval_labelled.py --split SPLIT`` with the head at ``head_path`` (None: the
    rules); the ``labelled_set.Score``."""
    from unittest import mock

    from mnemo.nlp import type_head
    from tests.labelled_set import evaluate, load

    target = head_path if head_path is not None else ROOT / "no-such-head.npz"
    with mock.patch.object(type_head, "HEAD_PATH", target), engine_factory() as m:
        total, _ = evaluate(m, load(split))
    return total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--splits", default=",".join(HEAD_SPLITS), help="the spent splits to fit on (default HEAD_SPLITS; never test22 or later)")
    ap.add_argument("--hold-out", default=None, help="fit without these splits (comma-separated) and score each end to end")
    ap.add_argument("--parts", default=None, help="fixed inputs, of type_head.BLOCKS in that order (skip the leave-one-split-out choice)")
    ap.add_argument("--c", type=float, default=None, help="fixed C (skip the leave-one-split-out choice)")
    ap.add_argument("--scale", type=float, default=None, help="fixed vector scale (skip the leave-one-split-out choice)")
    ap.add_argument("--thread", default=None, help="the thread's scales to choose from, comma-separated (default THREAD_SCALE)")
    ap.add_argument("--hand", default=None, help="weights of the hand-written train splits to choose from (default HAND_WEIGHTS)")
    ap.add_argument("--decay", default=None, help="per-split decays to choose from (default DECAYS)")
    ap.add_argument("--report", action="store_true", help="the chosen setting's forward figures with 95%% intervals against main's head")
    ap.add_argument("--folds", default=None, help="the splits the choice is scored on (default: FORWARD, or FOLDS with --loso)")
    ap.add_argument("--loso", action="store_true", help="choose by leaving one split out (the old criterion) instead of forward chaining")
    ap.add_argument("--out", default=str(ROOT / "mnemo" / "nlp" / "heads" / "types.npz"))
    ap.add_argument("--against", default=str(ROOT / "mnemo" / "nlp" / "heads" / "types.npz"), help="the head --report compares with")
    ap.add_argument("--cache", default=None, help="a folder keeping the collected features between runs")
    ap.add_argument("--curve", default=None, help="cutoffs (comma-separated spent splits): the fixed setting's learning curve "
                    "(``curve``) on --folds, then nothing is written")
    args = ap.parse_args(argv)

    splits = [s for s in args.splits.split(",") if s]
    if any(s not in SPENT for s in splits):
        raise SystemExit(f"only the spent splits may be trained on: {', '.join(SPENT)}")
    held = [s for s in (args.hold_out or "").split(",") if s]

    from mnemo.clock import Clock
    from mnemo.config import load_settings
    from mnemo.engine import Mnemo

    home = tempfile.mkdtemp(prefix="mnemo-types-")

    def engine() -> Any:
        settings = load_settings(home=tempfile.mkdtemp(dir=home), overrides={"embedding.model": "all-MiniLM-L6-v2",
                                                                              "embedding.model_cache": str(MODELS)})
        return Mnemo(settings, clock=Clock(1_800_000_000.0))

    data: dict[str, list[Example]] = {}
    with engine() as m:
        for s in splits:
            data[s] = load_cached(args.cache, s) if args.cache else None  # type: ignore[assignment]
            if data[s] is None:
                data[s] = collect(m, s)
                if args.cache:
                    store_cached(args.cache, s, data[s])
            data[s] = [e for e in data[s] if e.label]
            print(f"{s}: {sum(e.label != 'chatter' for e in data[s])} typed candidates, "
                  f"{sum(e.label == 'chatter' for e in data[s])} of chatter units", flush=True)

    fit_on = [s for s in splits if s not in held]
    if args.parts and args.c is not None and args.scale is not None:
        setting: Setting = (args.parts, args.c, args.scale, float(args.thread) if args.thread else THREAD_SCALE,
                            float(args.hand) if args.hand else HAND_WEIGHTS[0], float(args.decay) if args.decay else DECAYS[0])
        folds = [s for s in (args.folds.split(",") if args.folds else FORWARD) if s in fit_on]
        if args.report:
            report({s: data[s] for s in fit_on}, folds, setting, Path(args.against))
        if args.curve:
            print_curve(curve({s: data[s] for s in fit_on}, folds, [c for c in args.curve.split(",") if c], setting), data)
            return 0
    else:
        folds = [s for s in (args.folds.split(",") if args.folds else (FOLDS if args.loso else FORWARD)) if s in fit_on]
        def floats(arg: str | None, default: tuple[float, ...]) -> tuple[float, ...]:
            return tuple(float(v) for v in arg.split(",")) if arg else default

        grid = [(p, c, sc, th, hw, d) for p in ((args.parts,) if args.parts else (PARTS[9],))
                for c in ((args.c,) if args.c is not None else CS) for sc in ((args.scale,) if args.scale is not None else SCALES)
                for th in floats(args.thread, (THREAD_SCALE,)) for hw in floats(args.hand, HAND_WEIGHTS)
                for d in floats(args.decay, DECAYS)]
        if args.loso:
            print(f"leave one split out: each of {', '.join(folds)} scored by a head fitted on the others of {', '.join(fit_on)}")
            table = loso({s: data[s] for s in fit_on}, folds, grid)
        else:
            print(f"forward chaining: each of {', '.join(folds)} scored by a head fitted on the splits of {', '.join(fit_on)} "
                  "written before it")
            table = forward({s: data[s] for s in fit_on}, folds, grid)
        setting = max(grid, key=lambda k: round(table[k]["pooled"], 4))  # the first of equals: the grid's order
        print(f"chosen: {setting} (pooled held-out accuracy {table[setting]['pooled']:.3f})")
        rules_row = {s: float(np.mean([e.rule == e.label for e in data[s] if e.label != "chatter"])) for s in folds}
        print("  the rules' type alone:  " + " ".join(f"{k} {v:.3f}" for k, v in rules_row.items()))
        if args.report and not args.loso:
            report({s: data[s] for s in fit_on}, folds, setting, Path(args.against))

    head = fit([e for s in fit_on for e in data[s]], *setting)
    if not held:
        save(head, Path(args.out), splits=tuple(fit_on))
        print(f"wrote {args.out} ({setting}, {sum(len(data[s]) for s in fit_on)} examples)")
        return 0
    path = Path(home) / "held-out-types.npz"
    save(head, path, splits=tuple(fit_on))
    for s in held:
        with_head = end_to_end(engine, s, path)
        rules = end_to_end(engine, s, None)
        print(f"{s} held out, end to end ({setting}, fitted on {', '.join(fit_on)}):")
        print(f"  {'types right':20} head {with_head.typed_right} / {with_head.typed}   rules {rules.typed_right} / {rules.typed}")
        ours, theirs = with_head.summary(), rules.summary()
        for k in ours:
            print(f"  {k:20} head {ours[k]:<8} rules {theirs[k]}")
    return 0


def _cache_file(cache: str, split: str) -> Path:
    return Path(cache) / f"{split}.npz"


def load_cached(cache: str, split: str) -> list[Example] | None:
    f = _cache_file(cache, split)
    if not f.is_file():
        return None
    with np.load(f, allow_pickle=False) as d:
        if any(p not in d.files for p in BASE):
            return None  # a cache written before a block was added: collected anew
        meta = json.loads(str(d["meta"]))
        # Each block read once (``d[p]`` reads the whole array from the file at every access:
        # indexing it per example kept a copy of the array alive per example).
        arrays = {p: np.array(d[p]) for p in BASE}
    return with_context([Example(split, m["conversation"], m["text"], m["label"], m["rule"], {p: arrays[p][i] for p in BASE},
                                 m["technical"], m["reasoned"]) for i, m in enumerate(meta)])


def _blocks() -> tuple[str, ...]:
    from mnemo.nlp.type_head import BLOCKS

    return BLOCKS


def store_cached(cache: str, split: str, examples: list[Example]) -> None:
    Path(cache).mkdir(parents=True, exist_ok=True)
    meta = [{"conversation": e.conversation, "text": e.text, "label": e.label, "rule": e.rule, "technical": e.technical,
             "reasoned": e.reasoned} for e in examples]
    arrays: dict[str, Any] = {p: np.stack([e.blocks[p] for e in examples]) for p in BASE}
    np.savez(_cache_file(cache, split), meta=np.array(json.dumps(meta)), **arrays)


if __name__ == "__main__":
    raise SystemExit(main())
