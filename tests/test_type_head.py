"""The learned type head (mnemo/nlp/type_head.py): it loads, it has the last word over the rules
through ingest with the real model, the rules stand without it, and the training script's fit is
what the runtime computes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from mnemo.models import MemoryType
from mnemo.nlp import type_head
from mnemo.nlp.classify import classify_parsed
from mnemo.nlp.embedder import HashEmbedder
from mnemo.nlp.entities import nlp

ROOT = Path(__file__).resolve().parent.parent


def _types(engine, turns: list[tuple[str, str]]) -> list[str]:
    text = json.dumps([{"speaker": s, "text": t, "timestamp": 1_770_000_000 + 60 * i} for i, (s, t) in enumerate(turns)])
    res = engine.ingest(text, format="json", session_id="s", wing="s")
    return [m["type"] for m in res["memories"] if m["created"]]


def _rules(text: str) -> MemoryType:
    doc = nlp()(text)
    return classify_parsed(text, [s for s in doc.sents if s.text.strip()])


def test_the_shipped_head_loads_and_fits_minilm(real_embedder) -> None:
    head = type_head.head()
    assert head is not None
    assert head.classes == type_head.CLASSES
    assert head.fits(real_embedder, 384)
    assert not head.fits(HashEmbedder(384), 384)  # another model's vectors: the rules decide
    assert head.weights.shape == (6, len(head.mean)) == (6, len(head.scale))


# Sentences of each type that the rules get wrong (checked below, so the test says something
# about the head and not about the rules), written for this test, none from the labelled splits.
# (The rules' wrong types, for the record: session note, fact, fact, fact, decision.)
WRONG_BY_THE_RULES = [
    ("Ana", "We're dropping the Thursday stand-up and writing async updates in the channel.", "decision"),
    ("Ben", "Cats over dogs for me, every single time.", "preference"),
    ("Ben", "Uploads over 20 MB stall at 99 percent on the mobile app.", "debug_log"),
    ("Ana", "Currently halfway through migrating the contact forms to the new template.", "session_note"),
    ("Ben", "I moved to Lisbon when I was nineteen.", "fact"),
]


@pytest.mark.slow
def test_the_head_types_what_the_rules_get_wrong(real_engine) -> None:
    for _, text, want in WRONG_BY_THE_RULES:
        assert _rules(text).value != want, text
    got = _types(real_engine, [(s, t) for s, t, _ in WRONG_BY_THE_RULES])
    assert got == [want for _, _, want in WRONG_BY_THE_RULES]


# Written for this test (none from the labelled splits): a habit the ninth round's head (fitted
# before test9 and the statement filter) typed a decision, and the rules a fact; the head refitted
# with test9 under the filter types it a preference.
REFIT_RIGHT = [("Kit", "I only ever drink tea after dinner tbh", "preference")]


@pytest.mark.slow
def test_the_refitted_head_types_what_the_ninth_rounds_got_wrong(real_engine) -> None:
    for _, text, want in REFIT_RIGHT:
        assert _rules(text).value != want, text
    got = _types(real_engine, [(s, t) for s, t, _ in REFIT_RIGHT])
    assert got == [want for _, _, want in REFIT_RIGHT]


@pytest.mark.slow
def test_without_the_head_file_the_rules_type(real_engine, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(type_head, "HEAD_PATH", tmp_path / "missing.npz")
    got = _types(real_engine, [(s, t) for s, t, _ in WRONG_BY_THE_RULES])
    assert got == [_rules(t).value for _, t, _ in WRONG_BY_THE_RULES]


def test_a_hash_embedder_keeps_the_rules_types() -> None:
    from mnemo.nlp.conversation import Turn
    from mnemo.nlp.extract import candidates

    turns = [Turn(index=0, speaker="Ana", text="I always choose aisle seats on long flights.", timestamp=None)]
    cands, _ = candidates(turns)
    before = [c.type for c in cands]
    embedder = HashEmbedder(384)
    type_head.retype(cands, embedder.embed([c.text for c in cands]), embedder)
    assert [c.type for c in cands] == before


def _train_types():
    sys.path.insert(0, str(ROOT / "scripts"))
    import train_types

    return train_types


def test_the_shipped_head_is_fitted_on_the_spent_splits_and_never_a_fresh_one() -> None:
    """Each spent split is in the script's lists with the rules as they stood when it was scored
    once as its rules' input (test14 a311639, test15 cd02c48, test16 8b8be0c, test17 8ab4f65,
    test18 4a306f3, test19 d78095e, test20 9fcb7f4, test21 9c1f362, test22 59269a6, test23
    2035c26). The shipped head is the twenty-first round's fit on every spent split but test20 ...
    test23 (``HEAD_SPLITS``: the fits with them break asserted behaviours, see
    ``train_types.py``); test24 (the twenty-eighth round's validation split), test25 and test26
    are in none of the lists, and the script refuses them."""
    train_types = _train_types()
    head = type_head.head()
    assert head is not None
    assert set(head.splits) == set(train_types.HEAD_SPLITS) == set(train_types.SPENT) - {"test20", "test21", "test22", "test23"}
    assert "test19" in train_types.SPENT and train_types.FRESH_RULES["test19"] == "d78095e" and "test19" in train_types.FOLDS
    assert "test18" in train_types.SPENT and train_types.FRESH_RULES["test18"] == "4a306f3" and "test18" in train_types.FOLDS
    assert "test17" in train_types.SPENT and train_types.FRESH_RULES["test17"] == "8ab4f65" and "test17" in train_types.FOLDS
    assert "test16" in train_types.SPENT and train_types.FRESH_RULES["test16"] == "8b8be0c"
    assert "test15" in train_types.SPENT and train_types.FRESH_RULES["test15"] == "cd02c48" and "test15" in train_types.FOLDS
    assert "test14" in train_types.SPENT and train_types.FRESH_RULES["test14"] == "a311639" and "test14" in train_types.FOLDS
    assert "test9" in head.splits and train_types.FRESH_RULES["test9"] == "73c2045" and "test9" in train_types.FOLDS
    assert "test10" in head.splits and train_types.FRESH_RULES["test10"] == "59a06f4" and "test10" in train_types.FOLDS
    assert "test11" in head.splits and train_types.FRESH_RULES["test11"] == "1fa6e9b" and "test11" in train_types.FOLDS
    assert "test12" in head.splits and train_types.FRESH_RULES["test12"] == "a8e18bc" and "test12" in train_types.FOLDS
    assert "test13" in head.splits and train_types.FRESH_RULES["test13"] == "f7001f7" and "test13" in train_types.FOLDS
    assert train_types.SPENT[-4:] == ("test20", "test21", "test22", "test23")
    assert train_types.FRESH_RULES["test20"] == "9fcb7f4" and train_types.FRESH_RULES["test21"] == "9c1f362"
    assert train_types.FRESH_RULES["test22"] == "59269a6" and train_types.FRESH_RULES["test23"] == "2035c26"
    for names in (train_types.SPENT, train_types.FOLDS, train_types.FORWARD, tuple(train_types.FRESH_RULES), head.splits):
        assert "test24" not in names and "test25" not in names and "test26" not in names
    assert set(train_types.FOLDS) <= set(train_types.SPENT) and set(train_types.FRESH_RULES) <= set(train_types.SPENT)
    # The twenty-fifth round's head adds the events block (``type_head.EVENT_NAMES``) to the
    # twenty-first round's inputs (PARTS[3], shipped until then).
    assert head.parts == train_types.PARTS[9] == "rules,parse,cues,agency,habit,stance,events,neighbours,faults,vector,thread"
    assert train_types.PARTS[3] == "rules,parse,cues,agency,habit,stance,neighbours,faults,vector,thread"
    assert train_types.PARTS[0] == "rules,parse,cues,neighbours,vector,thread"  # the heads shipped before
    assert train_types.PARTS[1] == "rules,parse,cues,agency,neighbours,vector,thread"  # measured, not shipped
    assert train_types.PARTS[2] == "rules,parse,cues,agency,habit,neighbours,faults,vector,thread"  # measured, not shipped
    for fresh in ("test24", "train,test24", "test23,test24", "test22,test24", "test25", "test24,test25", "test26", "train,test26"):
        with pytest.raises(SystemExit, match="spent"):
            train_types.main(["--splits", fresh])


@pytest.mark.slow
def test_the_training_script_fits_what_the_runtime_computes(real_engine, tmp_path: Path) -> None:
    """A small fit on one spent split: the same file twice (fixed seed), and the numpy head read
    from it predicts what the fitted regression predicts, for the shipped inputs and a subset the
    script can compare, in the runtime's order; the script's overrides are the runtime's."""
    train_types = _train_types()

    examples = train_types.collect(real_engine, "train2")
    assert examples and {e.label for e in examples} <= set(type_head.CLASSES)
    assert {len(e.blocks["cues"]) for e in examples} == {len(type_head.CUE_NAMES)}
    assert {len(e.blocks["agency"]) for e in examples} == {len(type_head.AGENCY_NAMES)}
    assert {len(e.blocks["neighbours"]) for e in examples} == {2 * len(type_head.TYPES)}
    for parts in ("rules,parse,cues,agency,neighbours,vector,thread", "rules,parse,cues,neighbours,vector,thread", "parse,vector"):
        heads = []
        for name in ("a.npz", "b.npz"):
            fitted = train_types.fit(examples, parts, 0.1, 5.0)
            train_types.save(fitted, tmp_path / name, splits=("train2",))
            heads.append(fitted)
        a, b = np.load(tmp_path / "a.npz"), np.load(tmp_path / "b.npz")
        for key in a.files:
            assert np.array_equal(a[key], b[key]), key
        runtime = type_head.TypeHead(tmp_path / "a.npz")
        assert runtime.splits == ("train2",)
        rows = np.stack([e.row(runtime.parts) for e in examples])
        assert rows.shape[1] == len(runtime.mean)
        assert [t.value if t else type_head.CHATTER for t in runtime.predict(rows)] == list(heads[0].predict(examples))
    # The overrides: the head's chatter and a reasoned decision keep the rules' type.
    e = examples[0]
    chatter = train_types.runtime_types([e], ["chatter"])
    assert chatter == [e.rule]
    reasoned = train_types.Example("x", "c", "t", "fact", "decision", e.blocks, technical=False, reasoned=True)
    assert train_types.runtime_types([reasoned], ["fact"]) == ["decision"]
    assert train_types.runtime_types([reasoned], ["fact"], keep_reasoned=False) == ["fact"]
    untechnical = train_types.Example("x", "c", "t", "debug_log", "fact", e.blocks, technical=False, reasoned=False)
    assert train_types.runtime_types([untechnical], ["debug_log"]) == ["debug_log"]  # SYSTEM_DEBUG off
    assert train_types.runtime_types([untechnical], ["debug_log"], system_debug=True) == ["fact"]


# Written for this test (none from the labelled splits): each sentence and the cues it has.
CUES = [
    ("The dishwasher stopped draining halfway through the cycle.", {"thing_fails"}),
    ("The scanner shows error E42 whenever I open the lid.", {"thing_fails", "fault_word", "device_says"}),
    ("Our old modem doesn't support the new band.", {"thing_negated"}),
    ("I'm repotting the ferns this afternoon.", {"plan_time"}),
    ("I failed my driving theory test twice.", set()),
]


def test_cue_features_say_what_they_name() -> None:
    for text, want in CUES:
        doc = nlp()(text)
        got = dict(zip(type_head.CUE_NAMES, type_head.cue_features(text, [s for s in doc.sents]), strict=True))
        assert {n for n, v in got.items() if v} == want, text


def test_context_blocks_read_the_neighbours_and_the_thread() -> None:
    """The neighbours block is the rules' type of the memory before, then after (zeros at an
    end); the thread block the unit mean vector of up to THREAD_SPAN memories either side,
    without the memory itself; a memory alone has no context."""
    onehots = np.eye(len(type_head.TYPES), dtype=np.float32)[[0, 2, 4, 1]]
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(4, 8)).astype(np.float32)
    neighbours, thread = type_head.context_blocks(onehots, vectors)
    n = len(type_head.TYPES)
    assert neighbours.shape == (4, 2 * n) and thread.shape == (4, 8)
    assert not neighbours[0, :n].any() and np.array_equal(neighbours[0, n:], onehots[1])
    assert np.array_equal(neighbours[2, :n], onehots[1]) and np.array_equal(neighbours[2, n:], onehots[3])
    assert np.array_equal(neighbours[3, :n], onehots[2]) and not neighbours[3, n:].any()
    want = vectors[[0, 1, 3]].mean(axis=0)  # memory 2: two before, one after
    assert np.allclose(thread[2], want / np.linalg.norm(want), atol=1e-6)
    want = vectors[[1, 2]].mean(axis=0)  # memory 0: the two after
    assert np.allclose(thread[0], want / np.linalg.norm(want), atol=1e-6)
    alone_n, alone_t = type_head.context_blocks(onehots[:1], vectors[:1])
    assert not alone_n.any() and not alone_t.any()


def test_the_training_script_reads_the_context_the_runtime_reads() -> None:
    """``train_types.with_context`` gives each example the blocks ``context_blocks`` computes
    over its own conversation, in order (never across conversations), and the fit scales the
    thread's columns by THREAD_SCALE after the vector's."""
    train_types = _train_types()
    rng = np.random.default_rng(1)
    eye = np.eye(len(type_head.TYPES), dtype=np.float32)

    def example(conv: str, k: int) -> object:
        blocks = {"rules": eye[k % len(type_head.TYPES)], "parse": np.zeros(len(type_head.PARSE_NAMES), np.float32),
                  "cues": np.zeros(len(type_head.CUE_NAMES), np.float32), "agency": np.zeros(len(type_head.AGENCY_NAMES), np.float32),
                  "vector": rng.normal(size=6).astype(np.float32)}
        return train_types.Example("x", conv, "t", ("fact", "decision")[k % 2], "fact", blocks)

    examples = train_types.with_context([example("a", 0), example("a", 1), example("b", 2), example("b", 3), example("a", 4)])
    a = [examples[i] for i in (0, 1, 4)]
    neighbours, thread = type_head.context_blocks(np.stack([e.blocks["rules"] for e in a]), np.stack([e.blocks["vector"] for e in a]))
    for i, e in enumerate(a):
        assert np.array_equal(e.blocks["neighbours"], neighbours[i]) and np.array_equal(e.blocks["thread"], thread[i])
    n = len(type_head.TYPES)
    assert not examples[2].blocks["neighbours"][:n].any()  # the first of conversation b: nothing before
    fitted = train_types.fit(examples, train_types.PARTS[0], 0.1, 7.0)
    assert np.allclose(fitted.scale[-12:-6], 1 / 7.0) and np.allclose(fitted.scale[-6:], 1 / train_types.THREAD_SCALE)


# Written for this test (none from the labelled splits): the same sentence in a thread chasing a
# fault and in one about a house move. The thirteenth round's head reads the thread around a
# memory (``context_blocks``), so the finding is a debug log in the first and a fact in the
# second; the head without the thread gave each sentence one type whatever the conversation.
THREAD_TARGETS = ["The pilot light goes out after about ten seconds.", "The timer display is blinking 00:00.",
                  "The left burner clicks but never catches."]
FAULT_THREAD = [("Jo", "Our boiler keeps cutting out and the radiators are stone cold."), ("Sam", "Did you reset it?"),
                ("Jo", "Reset it twice, it fires up and then locks out with a red light."), None,
                ("Jo", "The engineer can't come until Friday.")]
MOVE_THREAD = [("Jo", "We moved into the flat in March."), ("Sam", "How is it?"),
               ("Jo", "I love the big kitchen and the light in the mornings."), None, ("Jo", "My sister lives two streets away.")]


@pytest.mark.slow
def test_the_thread_decides_what_a_finding_is(real_embedder, tmp_path: Path) -> None:
    from mnemo.clock import Clock
    from mnemo.config import load_settings
    from mnemo.engine import Mnemo

    for k, target in enumerate(THREAD_TARGETS):
        got = {}
        for name, thread in (("fault", FAULT_THREAD), ("move", MOVE_THREAD)):
            with Mnemo(load_settings(home=tmp_path / f"{name}{k}"), clock=Clock(1_800_000_000.0), embedder=real_embedder) as m:
                turns = [t if t is not None else ("Jo", target) for t in thread]
                text = json.dumps([{"speaker": s, "text": t, "timestamp": 1_770_000_000 + 60 * i} for i, (s, t) in enumerate(turns)])
                res = m.ingest(text, format="json", session_id="s", wing="s")
                got[name] = [mem["type"] for mem in res["memories"] if target in mem["content"]]
        assert got == {"fault": ["debug_log"], "move": ["fact"]}, target


# Written for this test (none from the labelled splits): each sentence and the agency features it
# has (seventeenth round, ``type_head.agency_features``; measured by forward chaining, not in the
# shipped head's parts).
AGENCY = [
    ("We swapped the Tuesday run for a swim.", {"we_did"}),
    ("I'll renew the parking permit tonight.", {"we_will"}),
    ("Let's push the quiz night back a week.", {"we_will"}),
    ("I'm sanding the back door with the orbital.", {"we_doing"}),
    ("The council turned down the extension plans.", {"other_acts"}),
    ("The choir practice has been moved to the library.", {"arranged"}),
    ("Half nine at the station then.", {"concluded"}),
    ("The card reader keeps dropping the connection.", {"thing_keeps"}),
    ("The porch light hasn't worked since the storm.", {"thing_keeps"}),
    ("My cousin lives near Bristol.", set()),
    ("The lighthouse was built in 1870.", set()),  # a past passive is history, no arrangement
]


def test_agency_features_say_what_they_name() -> None:
    for text, want in AGENCY:
        doc = nlp()(text)
        got = dict(zip(type_head.AGENCY_NAMES, type_head.agency_features(text, list(doc.sents)), strict=True))
        assert {n for n, v in got.items() if v} == want, text


def test_a_head_without_the_agency_block_reads_rows_as_before() -> None:
    """Backward compatible: the agency block is computed only where a head's parts name it, so a
    head fitted before it (main's) gets the same rows as before."""
    doc = nlp()("The card reader keeps dropping the connection.")
    spans = list(doc.sents)
    vector = np.ones(4, np.float32)
    context = (np.zeros(2 * len(type_head.TYPES), np.float32), np.zeros(4, np.float32))
    old = type_head.features(MemoryType.FACT, doc.text, spans, vector, "rules,parse,cues,neighbours,vector,thread", context)
    new = type_head.features(MemoryType.FACT, doc.text, spans, vector, "rules,parse,cues,agency,neighbours,vector,thread", context)
    n = len(type_head.TYPES) + len(type_head.PARSE_NAMES) + len(type_head.CUE_NAMES)
    assert len(new) == len(old) + len(type_head.AGENCY_NAMES)
    assert np.array_equal(new[:n], old[:n]) and np.array_equal(new[n + len(type_head.AGENCY_NAMES):], old[n:])
