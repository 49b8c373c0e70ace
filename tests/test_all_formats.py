"""Every registered format against the testing kit (protocall.testing, DESIGN.md §4 and §7).

CI runs a few examples per run with a fixed seed. `PROTOCALL_CHECK_EXAMPLES` sets the number
(`HYPOTHESIS_PROFILE=long` makes it 200) and `PROTOCALL_CHECK_SEED` the seed (`random` for a
fresh one), so a long local search reads:

    PROTOCALL_CHECK_EXAMPLES=300 PROTOCALL_CHECK_SEED=random pytest tests/test_all_formats.py

A failure prints the kit's report: one minimal counterexample per failing property.
"""

from __future__ import annotations

import os

import pytest

from protocall import formats
from protocall.formats.turns import ToolUse, Turn
from protocall.testing import check_format, verify

LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
EXAMPLES = int(os.environ.get("PROTOCALL_CHECK_EXAMPLES") or (200 if LONG else 8))
SEED_SETTING = os.environ.get("PROTOCALL_CHECK_SEED", "0")
SEED = None if SEED_SETTING == "random" else int(SEED_SETTING)


@pytest.mark.parametrize("name", formats.names())
def test_format_has_every_property_of_the_kit(name: str) -> None:
    report = check_format(name, max_examples=EXAMPLES, seed=SEED)
    assert report.ok, str(report)


PRE_OPENING = [name for name in formats.names()
               if "reasoning" in formats.get(name).channels
               and formats.get(name).prompt_for("reasoning") is not None]  # fmt: skip


@pytest.mark.parametrize("name", PRE_OPENING)
def test_a_redundant_opener_after_a_pre_opened_prompt_is_not_reasoning(name: str) -> None:
    """The model writes the opener the prompt already wrote (issue #15): it is dropped."""
    fmt = formats.get(name)
    opener = fmt.channels["reasoning"][0]
    text = opener + fmt.render(Turn("Hmm.", ("Answer.",)), "reasoning")
    expected = {"reasoning_content": "Hmm.", "content": "Answer.", "tool_calls": []}
    verify(fmt, text, fmt.prompt_for("reasoning"), expected=expected)


ZONE_TOOL = {"name": "get_time", "parameters": {"properties": {"zone": {"type": "string"}}}}


@pytest.mark.parametrize("name", PRE_OPENING)
def test_a_close_after_a_call_ended_pre_opened_reasoning_is_no_content(name: str) -> None:
    """A genuine call ended the pre-opened block; the model closes it afterwards anyway:
    that close is a stray marker, dropped, never content (issue #15)."""
    fmt = formats.get(name)
    prompt, close = fmt.prompt_for("reasoning"), fmt.channels["reasoning"][1]
    call = fmt.render(Turn(None, (ToolUse("get_time", {"zone": "UTC"}),)), None)
    stop = next((s for s in fmt.reserved if call.endswith(s)), "")
    text = "Hmm.\n" + call.removesuffix(stop) + close + "Done." + stop
    calls = [{"name": "get_time", "arguments": {"zone": "UTC"}}]
    expected = {"reasoning_content": "Hmm.", "content": "Done.", "tool_calls": calls}
    verify(fmt, text, prompt, tools=[ZONE_TOOL], expected=expected)
