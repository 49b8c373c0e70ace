"""`Spec.token_suffix`: a tokenizer that suffixes its special tokens (Tencent Hy3's
`:opensource`), spelled into every marker before anything is derived."""

from __future__ import annotations

from dataclasses import replace

from protocall.compile.factory import build
from protocall.spec import Call, Section, Spec, Think, from_json, to_json
from protocall.spec.codecs import XmlArguments
from protocall.spec.tags import spelled
from protocall.testing import verify
from protocall.values.xmlargs import Layout

PLAIN = Spec(
    name="suffix-demo",
    summary="a ChatML-like family whose tokens a tokenizer may suffix",
    turn=Think(),
    call=Call('<call name="{name}">{arguments}</call>'),
    section=Section(("<|calls|>",), ("<|/calls|>",)),
    stops=("<|im_end|>", "<｜eos｜>"),
    prompt="<|im_start|>assistant\n",
)
SUFFIXED = replace(PLAIN, token_suffix="#v2")


def test_every_token_is_suffixed_inside_its_closing_bracket() -> None:
    spec = spelled(SUFFIXED)
    assert spec.token_suffix == ""
    assert spec.stops == ("<|im_end#v2|>", "<｜eos#v2｜>")
    assert spec.prompt == "<|im_start#v2|>assistant\n"
    assert (spec.section.begins, spec.section.ends) == (("<|calls#v2|>",), ("<|/calls#v2|>",))
    assert isinstance(spec.turn, Think)
    assert (spec.turn.open, spec.turn.close) == ("<think#v2>", "</think#v2>")


def test_a_tag_with_attributes_names_and_prose_are_no_tokens() -> None:
    spec = spelled(SUFFIXED)
    assert spec.call.template == '<call name="{name}">{arguments}</call#v2>'
    assert (spec.name, spec.summary) == (PLAIN.name, PLAIN.summary)


def test_a_layouts_tags_are_suffixed_too() -> None:
    layout = Layout("<k>", "</k>", "</v>", "</call>", value_open="<v>")
    call = Call("<call>{name}\n{arguments}</call>", XmlArguments(layout))
    spec = spelled(replace(SUFFIXED, call=call))
    assert isinstance(spec.call.arguments, XmlArguments)
    written = spec.call.arguments.layout
    tags = (written.opener, written.key_close, written.value_open, written.end)
    assert tags == ("<k#v2>", "</k#v2>", "<v#v2>", "</call#v2>")


def test_the_suffix_survives_printing_and_reading_back() -> None:
    assert from_json(to_json(SUFFIXED)) == SUFFIXED


def test_a_suffixed_format_reads_its_suffixed_output_one_shot_and_streamed() -> None:
    text = '<think#v2>Plan.</think#v2>Hi<|calls#v2|><call name="f">{"a": 1}</call#v2><|/calls#v2|>'
    verify(
        build(SUFFIXED),
        text + "<|im_end#v2|>",
        None,
        expected={
            "reasoning_content": "Plan.",
            "content": "Hi",
            "tool_calls": [{"name": "f", "arguments": {"a": 1}}],
        },
    )
