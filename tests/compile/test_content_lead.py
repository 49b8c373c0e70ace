"""`Spec.content_lead`: a role prefix a template writes before an answer (Hunyuan A13B's
`助手：` in vLLM's example template), dropped where the content begins and nowhere else."""

from __future__ import annotations

from dataclasses import replace

import pytest

from protocall.blocks.channels import Channel
from protocall.combinators import UsageError
from protocall.compile.factory import build
from protocall.spec import Call, Channels, Section, Spec, Think, from_json, to_json
from protocall.spec.codecs import NameAndArguments
from protocall.testing import verify

TOOLS = [{"name": "get_time", "parameters": {"type": "object", "properties": {}}}]
SPEC = Spec(
    name="lead-demo",
    summary="a role prefix before the answer, calls in <calls>",
    turn=Think(),
    call=Call("{call}", NameAndArguments()),
    section=Section(("<calls>",), ("</calls>",)),
    stops=("<|end|>",),
    prompt="<|bot|>",
    content_lead=("助手：",),
)
CALL = {"name": "get_time", "arguments": {}}


def message(content: str | None, reasoning: str | None = None, *calls: object) -> dict[str, object]:
    return {"reasoning_content": reasoning, "content": content, "tool_calls": list(calls)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("助手：The answer.<|end|>", message("The answer.")),
        ("助手：It said 助手： here.<|end|>", message("It said 助手： here.")),
        ("Just 助手：<|end|>", message("Just 助手：")),
        ("<think>Hm.</think>\n助手：Yes.<|end|>", message("Yes.", "Hm.")),
        (
            '助手：<calls>{"name": "get_time", "arguments": {}}</calls><|end|>',
            message(None, None, CALL),
        ),
    ],
)
def test_a_content_lead_is_dropped_where_the_content_begins_only(
    text: str, expected: dict[str, object]
) -> None:
    verify(build(SPEC), text, "<|bot|>", tools=TOOLS, expected=expected)


def test_a_content_lead_spec_reads_back_from_json() -> None:
    assert from_json(to_json(SPEC)) == SPEC


def test_channels_have_no_content_lead() -> None:
    turn = Channels((Channel("reasoning", "<r>", "</r>"),), tokens=("<",))
    with pytest.raises(UsageError, match="`content_lead` is read in a `Think` turn"):
        build(replace(SPEC, turn=turn))
