"""``scripts/eval_locomo.py --dump``: every question's list, as mnemo ranks it, written outside the
repository for re-orderings measured without a store or a model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .script_module import load_script

ROOT = Path(__file__).resolve().parent.parent


def _eval_module():  # noqa: ANN202
    return load_script("eval_locomo", reuse=True)


def _sample() -> dict[str, object]:
    """Two sessions of a made-up talk, with distilled facts citing its turns."""
    conv: dict[str, object] = {
        "speaker_a": "Ada", "speaker_b": "Ben",
        "session_1": [{"speaker": "Ada", "text": "I adopted a grey cat called Pixel.", "dia_id": "D1:1"},
                      {"speaker": "Ben", "text": "Lovely! I am learning the cello.", "dia_id": "D1:2"}],
        "session_1_date_time": "1:00 pm on 2 May, 2023",
        "session_2": [{"speaker": "Ada", "text": "Pixel knocked over my orchid.", "dia_id": "D2:1"},
                      {"speaker": "Ben", "text": "My cello teacher moved to Lisbon.", "dia_id": "D2:2"}],
        "session_2_date_time": "3:00 pm on 9 May, 2023",
    }
    observation = {
        "session_1_observation": {"Ada": [["Ada adopted a grey cat called Pixel.", "D1:1"]],
                                  "Ben": [["Ben is learning the cello.", "D1:2"]]},
        "session_2_observation": {"Ada": [["Ada's cat Pixel knocked over her orchid.", "D2:1", "D1:1"]],
                                  "Ben": [["Ben's cello teacher moved to Lisbon.", "D2:2"]]},
    }
    qa = [{"question": "What is the name of Ada's cat?", "evidence": ["D1:1"], "category": 4},
          {"question": "Where did Ben's cello teacher move?", "evidence": ["D2:2"], "category": 4}]
    return {"sample_id": "made-up", "conversation": conv, "observation": observation, "qa": qa}


def test_dump_writes_each_questions_ranked_hits_with_the_turns_they_cover(tmp_path: Path) -> None:
    ev = _eval_module()
    data = tmp_path / "talk.json"
    data.write_text(json.dumps([_sample()]), encoding="utf-8")
    out = tmp_path / "lists.jsonl"
    assert ev.main([str(data), "--store", "observations", "--embedder", "hash-64", "--dump", str(out), "--json"]) == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["question"] for r in records] == ["What is the name of Ada's cat?", "Where did Ben's cello teacher move?"]
    first = records[0]
    assert first["store"] == "observations" and first["conversation"] == "made-up"
    assert first["category"] == 4 and first["evidence"] == ["D1:1"]
    # Every stored fact comes back (four of them, fewer than 50), each with the turns it cites.
    texts = {h["text"]: h["covers"] for h in first["hits"]}
    assert texts == {"Ada adopted a grey cat called Pixel.": ["D1:1"], "Ben is learning the cello.": ["D1:2"],
                     "Ada's cat Pixel knocked over her orchid.": ["D1:1", "D2:1"],
                     "Ben's cello teacher moved to Lisbon.": ["D2:2"]}
    scores = [h["score"] for h in first["hits"]]
    assert scores == sorted(scores, reverse=True)
    # The one fact naming Lisbon's move is ranked first for the question that asks it, by BM25 too.
    lisbon = records[1]["hits"][0]
    assert lisbon["covers"] == ["D2:2"] and lisbon["bm25_rank"] == 1


def test_dump_refuses_a_file_inside_the_repository(tmp_path: Path) -> None:
    ev = _eval_module()
    data = tmp_path / "talk.json"
    data.write_text(json.dumps([_sample()]), encoding="utf-8")
    inside = ROOT / "scripts" / "lists.jsonl"
    with pytest.raises(SystemExit) as stop:
        ev.main([str(data), "--store", "observations", "--embedder", "hash-64", "--dump", str(inside)])
    assert stop.value.code == 2 and not inside.exists()
    assert ev.outside_repository(tmp_path / "x.jsonl") and not ev.outside_repository(ROOT / "x.jsonl")
