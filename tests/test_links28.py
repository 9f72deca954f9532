"""Twenty-eighth round: causal-link precision (#16). Real spaCy parse, real MiniLM model, real
store, the shipped link head; the conversations are written for these tests, none is taken from
the labelled splits."""

from __future__ import annotations

from .labelled_set import content_links, linked


def test_a_pointer_right_after_the_speakers_own_sentence_points_at_it_not_at_their_earlier_report(real_engine) -> None:
    # "So ..." said straight after the speaker's own sentence of the same turn takes up that
    # sentence (the detail asked for), not the earlier report the step names again.
    turns = [("Alan", "The oak boards for the porch arrived warped."),
             ("Bryn", "How badly?"),
             ("Alan", "Half of them bow by an inch, and the decking has to sit flat. "
                      "So I've sent the warped oak boards back and ordered larch for the porch instead.")]
    kept, pairs = content_links(real_engine, turns, "pointer-own-sentence")
    assert any("bow by an inch" in m["content"] for m in kept), kept
    assert linked(pairs, "bow by an inch", "ordered larch"), pairs
    assert not linked(pairs, "arrived warped", "ordered larch"), pairs
