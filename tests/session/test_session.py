"""The session's own parts: the stripped text fields, the raw transcript it reads back
from the run's input, and the one door (`Run.feed` with a sink) its deltas go through."""

from __future__ import annotations

from unittest.mock import patch

from hypothesis import given
from hypothesis import strategies as st

from protocall import formats
from protocall import session as session_module
from protocall.combinators import NEED_MORE, Run, Text, until
from protocall.events import ContentDelta, ProtocolError
from protocall.session import Session, StrippedField, _ItemLog
from protocall.testing import chunkings
from protocall.testing.degenerate import TOOLS


@given(
    st.lists(st.text(alphabet=" \n\tab", min_size=1, max_size=5), max_size=12),
    st.sets(st.integers(0, 12)),
)
def test_field_deltas_add_up_to_the_stripped_text(pieces: list[str], compacted: set[int]) -> None:
    """Whatever the pieces, the deltas join to the stripped whole and none ends in
    whitespace (a trailing run waits for the text after it); joining the deltas so far
    into a block, at any point, changes nothing."""
    field = StrippedField(ContentDelta)
    pushed = []
    for index, piece in enumerate(pieces):
        if index in compacted:
            field.compact()
        pushed.append(field.push(piece))
    assert all(len(events) <= 1 for events in pushed)
    deltas = [event.text for events in pushed for event in events]  # type: ignore[union-attr]
    assert "".join(deltas) == "".join(pieces).strip()
    assert all(delta and delta == delta.rstrip() for delta in deltas)
    assert field.value == ("".join(pieces).strip() or None)


@given(st.lists(st.booleans(), max_size=40), st.integers(0, 45), st.integers(0, 45))
def test_the_item_log_reads_back_what_was_appended_whatever_was_sealed(
    seals: list[bool], start: int, end: int
) -> None:
    """Entries appended one by one, sealed into blocks (of at most 3 here) after any of
    them: any range of them reads back as the same range of the entries appended (text
    entries that do not continue one another: see the next test for those)."""
    log, appended = _ItemLog(), []
    with patch.object(session_module, "_SEALED", 3):
        for index, seal in enumerate(seals):
            log.open.append((str(index), 10 * index))
            appended.append((str(index), 10 * index))
            if seal:
                log.seal()
    assert len(log) == len(appended)
    assert list(log.entries()) == appended
    assert list(log.entries(start, min(end, len(appended)))) == appended[start:end]


@given(
    st.lists(st.tuples(st.text(min_size=1, max_size=100), st.integers(0, 3)), max_size=30),
    st.integers(1, 8),
    st.booleans(),
)
def test_runs_of_text_in_the_item_log_are_joined_as_the_session_compacts_it(
    pieces: list[tuple[str, int]], every: int, synthesised: bool
) -> None:
    """A log entry per batch of deltas, not one per delta: each `compact` joins the text
    entries appended since the last into one where they are contiguous (or a call's
    arguments text, `synthesised`), else each contiguous run; the text reads back the
    same, each joined entry at the start of its first piece; a node's entry is never
    joined, and text before it never joins text after it."""
    log, start, appended = _ItemLog(), 0, []
    for index, (piece, gap) in enumerate(pieces):
        start += gap  # text the grammar dropped (a marker read without a node)
        log.open.append((piece, start))
        appended.append((piece, start))
        start += len(piece)
        if index % every == every - 1:
            log.compact(synthesised)
    log.compact(synthesised)  # as the session does before a node, after a long run
    log.open.append(("tag", start, None))  # a node's Open
    log.settled = len(log.open)
    log.open.append(("after", start))
    log.compact(synthesised)
    entries = list(log.entries())
    texts = [entry for entry in entries[:-2]]
    assert "".join(text for text, _ in texts) == "".join(piece for piece, _ in appended)
    assert entries[-2:] == [("tag", start, None), ("after", start)]
    batches = -(-len(appended) // every)
    if synthesised or not any(gap for _, gap in pieces[1:]):
        assert len(texts) <= batches
    if not synthesised:  # each entry's text is the stream's from its start
        stream = {start: piece for piece, start in appended}
        for text, at in texts:
            assert text.startswith(stream[at])


def test_final_text_goes_to_the_sink_and_the_log_not_to_out() -> None:
    """Text the suspended scan takes without a resume, with nothing waiting, is final."""
    log: list[object] = []
    run = Run(until("<"), log=log)
    run.feed("ab")  # the first delta resumes the tree: its text is in `out`
    assert run.take() == [Text("ab", 0)]
    assert run.feed("cd", str.upper) == "CD"
    assert (log, run.out) == ([("cd", 2)], [])
    assert run.feed("e<", str.upper) is None  # a marker: resumed, the scan ends
    assert run.take() == [Text("e", 4)]
    assert run.feed("x") is run.status and run.status is not NEED_MORE


@given(st.integers(0, 1500), st.integers(0, 1500), st.data())
def test_a_rejected_call_keeps_its_raw_text_after_the_buffer_released_it(
    before: int, inside: int, data: st.DataObject
) -> None:
    """The raw text of an error is read back from text the buffer dropped long ago."""
    call = '<tool_call>\n{"name": "nope", "arguments": {"q": "' + "q" * inside + '"}}\n</tool_call>'
    text = "a b\n" * (before // 4) + call + " tail" * 80
    session = formats.get("hermes").parser(TOOLS)
    chunks = data.draw(chunkings(text, ["<tool_call>"]))
    events = [event for chunk in chunks for event in session.feed(chunk)]
    errors = [e for e in [*events, *session.finish()] if isinstance(e, ProtocolError)]
    assert [(e.code, e.offset, e.raw) for e in errors] == [("unknown_tool", text.index(call), call)]


def test_a_long_text_is_kept_in_few_entries_with_the_same_tree() -> None:
    """Contiguous text outside calls is joined where the item log is sealed: a long turn
    keeps a few long strings, not one entry per delta (a work count, not a timing)."""
    call = '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>'
    text = ("A long answer. " * 30_000 + call) * 2
    streamed = formats.get("hermes").parser(seed=0)
    for start in range(0, len(text), 4):
        streamed.feed(text[start : start + 4])
    streamed.finish()
    assert len(streamed._log) < len(text) // 4 // 20  # at most one open block unjoined
    whole = formats.get("hermes").parser(seed=0)
    whole.feed(text)
    whole.finish()
    assert streamed.message == whole.message and len(streamed.message.tool_calls) == 2

    def tree(session: Session) -> list[tuple[str, int, int | None, str]]:
        return [(node.tag, node.start, node.end, node.text) for node in session.ast.walk()]

    assert tree(streamed) == tree(whole)
