"""Bytes that are not UTF-8 inside a call are flagged on the call, so an executor can refuse
it; elsewhere they become U+FFFD, as before (docs/semantics.md)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocall import formats
from protocall.message import Message
from protocall.testing import byte_chunkings

TOOLS = [{"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}]  # fmt: skip
CALLS = {  # a call whose city is written by `{city}`, for a JSON and an XML-style format
    "hermes": b'<tool_call>\n{"name": "get_weather", "arguments": {"city": "{city}"}}\n'
    b"</tool_call>",
    "qwen3-coder": b"<tool_call>\n<function=get_weather>\n<parameter=city>\n{city}\n"
    b"</parameter>\n</function>\n</tool_call>",
}


def parsed(name: str, chunks: list[bytes], reject_invalid: bool = False) -> Message:
    session = formats.get(name).parser(TOOLS, seed=0, reject_invalid=reject_invalid)
    for chunk in chunks:
        session.feed(chunk)
    session.finish()
    return session.message


def call(name: str, city: bytes, before: bytes = b"") -> bytes:
    return before + CALLS[name].replace(b"{city}", city)


@pytest.mark.parametrize("name", CALLS)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_invalid_bytes_in_arguments_are_a_validation_error_in_every_chunking(
    name: str, data: st.DataObject
) -> None:
    raw = call(name, b"Par\xc3 \xff\xfeis")
    whole = parsed(name, [raw])
    [done] = whole.tool_calls
    assert done.arguments == {"city": "Par\ufffd \ufffd\ufffdis"}
    offset = raw.index(b"Par") + 3
    assert done.validation_errors == (
        f"bytes that are not UTF-8 replaced by U+FFFD in the call at offset {offset} (and 1 more)",
    )
    assert parsed(name, data.draw(byte_chunkings(raw))) == whole


@pytest.mark.parametrize("name", CALLS)
def test_with_reject_invalid_the_call_is_not_completed(name: str) -> None:
    message = parsed(name, [call(name, b"Par\xc3")], reject_invalid=True)
    assert message.tool_calls == ()
    assert [error.code for error in message.errors] == ["invalid_arguments"]


@pytest.mark.parametrize("name", CALLS)
def test_a_replacement_character_the_model_wrote_is_no_problem(name: str) -> None:
    [done] = parsed(name, [call(name, "Par\ufffd".encode())]).tool_calls
    assert done.arguments == {"city": "Par\ufffd"} and done.validation_errors == ()


@pytest.mark.parametrize("name", CALLS)
def test_invalid_bytes_outside_the_call_are_content_and_flag_nothing(name: str) -> None:
    message = parsed(name, [call(name, b"Paris", before=b"Hi \xff there, "), b"\xe2\x82"])
    assert message.content == "Hi \ufffd there, \ufffd"
    [done] = message.tool_calls
    assert done.validation_errors == () and message.errors == ()


def test_text_after_bytes_ends_an_incomplete_character_outside_the_call() -> None:
    session = formats.get("hermes").parser(TOOLS)
    session.feed(b"Hi \xe2\x82")
    session.feed(call("hermes", b"Paris").decode())
    session.finish()
    assert session.message.content == "Hi \ufffd"
    assert session.message.tool_calls[0].validation_errors == ()
