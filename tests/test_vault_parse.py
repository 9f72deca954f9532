"""Parsing, chunking, wikilinks and frontmatter editing: pure functions on real note text."""

from __future__ import annotations

from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemo.vault.chunk import chunk_note
from mnemo.vault.parse import load_yaml, parse_note, split_frontmatter
from mnemo.vault.props import _ISO, edit_frontmatter, render_frontmatter, yaml_scalar
from mnemo.vault.render import note_content
from mnemo.vault.wikilinks import find_links, rewrite_links

NOTE = """---
title: Kept   # a comment on a key
tags: [alpha, "#beta"]
aliases:
  - Second name
created: 2026-03-02T09:00:00Z
custom:
  nested: 1
---
# Intro

Text with a #inline-tag, a #123 number and [[Target#Heading|shown]] and a url http://x.y/#frag.

> [!note] A callout
> stays as text [[Callout link]]

```python
# not a heading
x = "[[not a link]]"  # and #not-a-tag
```

Inline `[[code link]]` here. ![[Embedded.png]] and [[Other#^blockid]] ^para1

## Second

| a | b |
|---|---|
| [[Table note\\|alias]] | x |
"""


def test_frontmatter_headings_links_tags_blocks() -> None:
    n = parse_note("Folder/My note.md", NOTE)
    assert n.title == "My note"
    assert n.fm_error is None
    assert n.frontmatter["created"] == "2026-03-02T09:00:00Z"  # dates stay text
    assert n.frontmatter["custom"] == {"nested": 1}
    assert [(h.level, h.text) for h in n.headings] == [(1, "Intro"), (2, "Second")]
    links = {(ln.name, ln.heading, ln.block, ln.alias, ln.embed) for ln in n.links}
    assert links == {
        ("Target", "Heading", None, "shown", False),
        ("Callout link", None, None, None, False),
        ("Embedded.png", None, None, None, True),
        ("Other", None, "blockid", None, False),
        ("Table note", None, None, "alias", False),
    }
    assert n.tags == ("alpha", "beta", "inline-tag")
    assert n.aliases == ("Second name",)
    assert n.block_ids == ("para1",)


def test_unsafe_yaml_is_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    for payload in (
        f'!!python/object/apply:os.system ["touch {marker}"]',
        f'!!python/object/apply:subprocess.call [["touch", "{marker}"]]',
        "!!python/name:os.system",
    ):
        text = f"---\nmnemo_id: x\nevil: {payload}\n---\nbody\n"
        n = parse_note("n.md", text)
        assert n.fm_error and "invalid YAML" in n.fm_error
        assert n.mnemo_id is None  # unreadable frontmatter never makes a note mnemo's
        assert n.body == "body\n"
    assert not marker.exists()


def test_alias_bomb_is_refused() -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"] + [f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]"
                                                    for p, c in zip("abcdefgh", "bcdefghi", strict=True)]
    n = parse_note("n.md", "---\n" + "\n".join(lines) + "\n---\n")
    assert n.fm_error is not None


def test_frontmatter_only_at_the_top_and_closed() -> None:
    assert split_frontmatter("text\n---\na: 1\n---\n")[0] is None
    assert split_frontmatter("---\na: 1\nno closing fence\n")[0] is None
    raw, body, prefix = split_frontmatter("---\na: 1\n---\nbody\n---\nb: 2\n---\n")
    assert raw == "a: 1\n" and body == "body\n---\nb: 2\n---\n" and prefix + body == "---\na: 1\n---\nbody\n---\nb: 2\n---\n"


def test_chunks_by_heading_within_budget() -> None:
    para = " ".join(f"word{i}" for i in range(70))
    text = "Preamble line.\n\n# One\n\n" + "\n\n".join([para] * 5) + "\n\n## Two\n\nShort %% hidden comment %% text.\n"
    chunks = chunk_note(parse_note("n.md", text), budget=100)
    assert chunks[0].heading is None and chunks[0].text == "Preamble line."
    ones = [c for c in chunks if c.heading == "One"]
    assert len(ones) == 5 and all(c.words <= 100 for c in chunks)
    assert chunks[-1].heading == "Two" and chunks[-1].text == "Short  text."
    assert [c.ord for c in chunks] == list(range(len(chunks)))
    # A single huge line is split at words.
    big = chunk_note(parse_note("n.md", " ".join(["w"] * 250)), budget=100)
    assert [c.words for c in big] == [100, 100, 50]


def test_callouts_are_indexed_as_text() -> None:
    chunks = chunk_note(parse_note("n.md", "> [!warning] Careful\n> the disk is small\n"))
    assert chunks[0].text == "> [!warning] Careful\n> the disk is small"


def test_rewrite_links_touches_only_link_targets() -> None:
    text = (
        "See [[Old]], [[Old|x]], [[Old#h]], [[Old#^b]], ![[Old]], [[Memories/Old]], [[Old.md]], [[Oldish]]\n"
        "`[[Old]]` in code and\n```\n[[Old]]\n```\n| [[Old\\|t]] |\r\n"
    )
    new, n = rewrite_links(text, "Old", "Memories/Old.md", "New name", "Memories/New name.md")
    assert n == 8
    assert new == (
        "See [[New name]], [[New name|x]], [[New name#h]], [[New name#^b]], ![[New name]], [[Memories/New name]], "
        "[[New name.md]], [[Oldish]]\n"
        "`[[Old]]` in code and\n```\n[[Old]]\n```\n| [[New name\\|t]] |\r\n"
    )
    # Ambiguous old title: only path links are rewritten.
    new2, n2 = rewrite_links(text, "Old", "Memories/Old.md", "New", "Memories/New.md", bare_ok=False)
    assert n2 == 1 and "[[Memories/New]]" in new2 and "[[Old|x]]" in new2


def test_edit_frontmatter_keeps_order_comments_and_unknown_keys() -> None:
    text = "---\n# top comment\nzeta: 1   # why\ntags: [a]\nmnemo_id: m1\nalpha: [x, y]\n---\nBody ^blk\n\n## Mine\n"
    new = edit_frontmatter(text, {"tags": ["b", "c"], "updated": "2026-03-03T00:00:00Z"})
    assert new == (
        "---\n# top comment\nzeta: 1   # why\ntags:\n  - b\n  - c\nmnemo_id: m1\nalpha: [x, y]\n"
        "updated: 2026-03-03T00:00:00Z\n---\nBody ^blk\n\n## Mine\n"
    )
    assert new.count("---\n") == 2  # never a second frontmatter block
    # CRLF notes stay CRLF.
    crlf = edit_frontmatter(text.replace("\n", "\r\n"), {"tags": ["b"]})
    assert "\r\n" in crlf and "\n" not in crlf.replace("\r\n", "")


def test_note_content_excludes_the_managed_section() -> None:
    body = "---\nmnemo_id: x\n---\nMy text\n\n## Related\n%% mnemo: this section is rebuilt %%\n- [[A]]\n"
    assert note_content(body) == "My text"
    assert note_content("---\nmnemo_id: x\n---\nMy text\n\n## Related\nmy own related list\n") == (
        "My text\n\n## Related\nmy own related list"
    )


_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30).filter(lambda s: s.strip())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tags=st.lists(_text, max_size=5), alias=_text, other=_text)
def test_properties_round_trip(tags: list[str], alias: str, other: str) -> None:
    props = {"mnemo_id": "id-1", "tags": tags, "aliases": [alias], "related": [f"[[{other}]]"], "source": other}
    text = render_frontmatter(props) + "body\n"
    n = parse_note("n.md", text)
    assert n.fm_error is None
    assert n.frontmatter == props
    # Editing one key leaves every other value as it was.
    edited = edit_frontmatter(text, {"tags": ["z"]})
    assert parse_note("n.md", edited).frontmatter == {**props, "tags": ["z"]}


@given(_text)
@settings(max_examples=150, deadline=None)
def test_yaml_scalar_reads_back(s: str) -> None:
    assert load_yaml(f"k: {yaml_scalar(s)}\n") == ({"k": s}, None)
    if not _ISO.fullmatch(s):  # ISO times are left plain on purpose; everything else is plain YAML too
        assert yaml.safe_load(f"k: {yaml_scalar(s)}\n")["k"] == s


def test_wikilinks_in_properties_count_as_links() -> None:
    n = parse_note("n.md", '---\nrelated:\n  - "[[A note]]"\n---\ntext\n')
    assert [ln.name for ln in n.links] == ["A note"]
    assert find_links("no links here") == []


# One line that starts with a letter: no code block can form around the links.
_plain_text = st.text(st.characters(blacklist_characters="[]`~|#^!\\\r\n\t", blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=150, deadline=None)
@given(parts=st.lists(_plain_text, min_size=1, max_size=6), forms=st.lists(
    st.sampled_from(["[[Old]]", "[[Old|x y]]", "[[Old#Head]]", "[[Old#^b1]]", "![[Old]]", "[[Dir/Old]]"]), max_size=5))
def test_rename_rewrites_exactly_the_link_targets(parts: list[str], forms: list[str]) -> None:
    """Whatever surrounds the links, a rename changes the targets and not one other character."""
    parts[0] = "x" + parts[0]
    text = parts[0] + "".join(f + p for f, p in zip(forms, parts[1:] + [""] * len(forms), strict=False))
    new, n = rewrite_links(text, "Old", "Dir/Old.md", "New", "Dir/New.md")
    assert n == len(forms)
    expected = parts[0] + "".join(f.replace("Old", "New") + p for f, p in zip(forms, parts[1:] + [""] * len(forms), strict=False))
    assert new == expected
