"""Formats as data (`protocall.spec`, built by `protocall.compile`): the factory, printing a
spec and reading it back."""

from __future__ import annotations

import ast
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocall import cli, formats
from protocall.blocks.turns import ToolUse, Turn
from protocall.combinators import UsageError
from protocall.compile.factory import build
from protocall.formats import registry
from protocall.formats.glm import LAYOUT as GLM
from protocall.formats.qwen3_coder import LAYOUT as QWEN3_CODER
from protocall.grammar import export
from protocall.spec import (
    Call,
    Channel,
    Channels,
    Messages,
    Section,
    Spec,
    Tags,
    Think,
    from_data,
    from_json,
    to_data,
    to_json,
)
from protocall.spec.codecs import (
    Attribute,
    IdName,
    JsonObject,
    NameAndArguments,
    Plain,
    PythonKeywords,
    XmlArguments,
)
from protocall.spec.tags import spelled
from protocall.testing import assert_format, stream, tool_sets, turns, verify
from protocall.tools import normalize_tools

SPECCED = [name for name in formats.names() if formats.get(name).spec is not None]
DERIVED = ("name", "reserved", "channels", "default_start", "summary", "markers", "prompts")
WEATHER = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"location": {"type": "string"}}}}}]  # fmt: skip

# The Acme family of docs/writing-a-format.md, built at run time from data.
ACME = Spec(
    name="acme",
    summary="Acme: JSON arguments in <call name=…>",
    turn=Think("<reflect>", "</reflect>"),
    call=Call('<call name="{name}">{arguments}</call>', arguments=JsonObject(), name=Attribute()),
    stops=("<|end|>",),
    prompt="<|assistant|>",
)


def test_the_ported_families_are_written_as_specs() -> None:
    assert {"kimi-k2", "kimi-k3", "hermes", "olmo-3"} <= set(SPECCED)
    assert set(SPECCED) == set(formats.names())  # every built-in family


@pytest.mark.parametrize("name", SPECCED)
def test_a_spec_read_back_from_json_is_the_same_spec(name: str) -> None:
    spec = formats.get(name).spec
    assert from_json(to_json(spec)) == spec
    assert json.loads(to_json(spec))["name"] == name
    assert from_data(to_data(spec)) == spec


@pytest.mark.slow
@pytest.mark.parametrize("name", SPECCED)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_a_spec_read_back_from_json_builds_a_format_that_behaves_the_same(
    name: str, data: st.DataObject
) -> None:
    fmt = formats.get(name)
    again = build(from_json(to_json(fmt.spec)))
    assert {k: getattr(again, k) for k in DERIVED} == {k: getattr(fmt, k) for k in DERIVED}
    tools = normalize_tools(data.draw(tool_sets()))
    start = data.draw(st.sampled_from([None, *fmt.channels]))
    turn = data.draw(turns(fmt, tools, start))
    text = fmt.render(turn, start)
    assert again.render(turn, start) == text
    prompt = fmt.prompt_for(start)
    cut = data.draw(st.integers(0, len(text)))
    for chunks in ([text], [text[:cut], text[cut:]], [text[:cut]]):
        expected = stream(fmt, chunks, tools, prompt)
        assert stream(again, chunks, tools, prompt).merged_events == expected.merged_events


def test_a_family_built_at_run_time_passes_the_testing_kit() -> None:
    assert_format(build(ACME), max_examples=6, seed=0)


def test_a_spec_derives_its_markers_renderer_and_prompts() -> None:
    fmt = build(ACME)
    assert fmt.reserved == ("<reflect>", "</reflect>", "<call", "</call>", "<|end|>")
    assert fmt.markers == {"reasoning": "<reflect>…</reflect>",
                           "call": '<call name="NAME">{…}</call>'}  # fmt: skip
    assert fmt.prompts == {None: "<|assistant|>", "reasoning": "<|assistant|><reflect>"}
    turn = Turn("Rain?", ("Checking.", ToolUse("get_weather", {"location": "Paris"})))
    assert fmt.render(turn, "reasoning") == (
        'Rain?</reflect>Checking.<call name="get_weather">{"location": "Paris"}</call><|end|>'
    )


def test_a_pseudo_function_call_reserves_no_punctuation() -> None:
    olmo = formats.get("olmo-3")
    assert olmo.reserved == (
        "<think>",
        "</think>",
        "<function_calls>",
        "</function_calls>",
        "<|im_end|>",
    )
    assert olmo.markers["call"] == "<function_calls>NAME(k=v, …)\\n…</function_calls>"


def test_a_spec_built_at_run_time_parses_one_shot_and_streamed() -> None:
    text = 'Rain?</reflect>Checking.<call name="get_weather">{"location": "Paris"}</call><|end|>'
    call = {"name": "get_weather", "arguments": {"location": "Paris"}}
    expected = {"reasoning_content": "Rain?", "content": "Checking.", "tool_calls": [call]}
    verify(build(ACME), text, "<|assistant|><reflect>", tools=WEATHER, expected=expected)


# Acme's markers as tags spelled with tokens, as Kimi K3's are.
TAGGED = Spec(
    name="acme-tags",
    summary="Acme: channels and calls as tags over <|o|>, <|c|>, <|s|>",
    tags=Tags("<|o|>", "<|c|>", "<|s|>"),
    turn=Channels((Channel("reasoning", "<reflect>", ""), Channel("content", "<say>", ""))),
    call=Call('<call name="{name}">{arguments}</call>'),
    section=Section(("<calls>",), ("</calls>",)),
    stops=("<|end|>",),
    prompt='<turn who="me">',
)


def test_tags_are_spelled_with_their_tokens_and_what_they_imply_is_derived() -> None:
    assert spelled(TAGGED) == replace(
        TAGGED,
        tags=None,
        turn=Channels(
            (
                Channel("reasoning", "<|o|>reflect<|s|>", "<|c|>reflect<|s|>"),
                Channel("content", "<|o|>say<|s|>", "<|c|>say<|s|>"),
            ),
            ("<|o|>", "<|c|>", "<|end|>"),
        ),
        call=Call('<|o|>call name="{name}"<|s|>{arguments}<|c|>call<|s|>', name=Attribute()),
        section=Section(("<|o|>calls<|s|>",), ("<|c|>calls<|s|>",)),
        prompt='<|o|>turn who="me"<|s|>',
    )
    assert spelled(spelled(TAGGED)) == spelled(TAGGED)
    assert from_json(to_json(TAGGED)) == TAGGED
    fmt, spelled_out = build(TAGGED), build(spelled(TAGGED))
    assert fmt.spec == TAGGED
    assert {k: getattr(fmt, k) for k in DERIVED} == {k: getattr(spelled_out, k) for k in DERIVED}
    text = (
        "Rain?<|c|>reflect<|s|><|o|>say<|s|>Checking.<|c|>say<|s|><|o|>calls<|s|>"
        '<|o|>call name="get_weather"<|s|>{"location": "Paris"}<|c|>call<|s|><|c|>calls<|s|><|end|>'
    )
    call = {"name": "get_weather", "arguments": {"location": "Paris"}}
    expected = {"reasoning_content": "Rain?", "content": "Checking.", "tool_calls": [call]}
    prompt = fmt.prompt_for("reasoning")
    verify(fmt, text, prompt, tools=WEATHER, expected=expected)
    use = ToolUse("get_weather", {"location": "Paris"})
    assert fmt.render(Turn("Rain?", ("Checking.", use)), "reasoning") == text
    assert_format(fmt, max_examples=6, seed=0)


def test_an_attribute_name_is_entity_decoded_and_the_rest_of_its_tag_is_free() -> None:
    text = '<call name="a&quot;b" id="7">{}</call>'
    tools = [{"type": "function", "function": {"name": 'a"b', "parameters": {}}}]
    message = verify(build(ACME), text, "<|assistant|>", tools=tools)
    assert [call.name for call in message.tool_calls] == ['a"b']


def test_an_id_name_and_a_section_with_tolerances_come_from_data() -> None:
    spec = Spec(
        name="ids",
        summary="ids",
        turn=None,
        call=Call("<c>{id}<a>{arguments}</c>", name=IdName("fn."), spaced=True),
        section=Section(("<s>", "<S>"), ("</s>",), bare=True, noise=True, empty=True),
        dropped=("</s>",),
        stops=("<eot>",),
    )
    fmt = build(spec)
    text = '<S> noise <c> fn.f:3 <a> {"x": 1} </c></s>after<s></s><eot>'
    message = verify(fmt, text)
    assert [(c.name, c.id, c.arguments) for c in message.tool_calls] == [("f", "fn.f:3", {"x": 1})]
    assert message.content == "after"
    assert (
        fmt.render(Turn(None, (ToolUse("f", {"x": 1}),)), None)
        == '<s><c>fn.f:0<a>{"x": 1}</c></s><eot>'
    )


def test_a_call_codec_carries_the_name() -> None:
    spec = Spec(
        name="objects",
        summary="objects",
        call=Call("<tool>{call}</tool>", arguments=NameAndArguments(("args",))),
        stops=("<eot>",),
    )
    fmt = build(spec)
    message = verify(fmt, '<tool>{"name": "f", "args": {"x": 1}}</tool><eot>')
    assert [(c.name, c.arguments) for c in message.tool_calls] == [("f", {"x": 1})]
    assert fmt.markers["call"] == '<tool>{"name", "args"}</tool>'


def test_the_turn_options_of_the_blocks_are_fields_of_the_spec() -> None:
    spec = replace(
        ACME, turn=Think("<reflect>", "</reflect>", also=(("<r>", "</r>"),)), fenced=True
    )
    fmt = build(spec)
    assert "`" in fmt.reserved and "<r>" in fmt.reserved
    quoted = 'See `<call name="get_weather">{}</call>`.<|end|>'
    message = verify(fmt, "<r>Rain?</r>" + quoted, "<|assistant|>", tools=WEATHER)
    assert message.reasoning_content == "Rain?"
    assert message.content == quoted.removesuffix("<|end|>") and not message.tool_calls


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"type": "Nope"}, "not 'Nope'"),
        ({"type": "Think", "opens": "<t>"}, "Think has no field opens"),
        ({"type": "Section", "begins": ["<s>"], "ends": ["</s>"], "opens_at": "x"}, "opens at"),
    ],
)
def test_bad_spec_data_is_a_usage_error_naming_the_problem(data: Any, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        from_data(data)


@pytest.mark.parametrize(
    "call",
    [
        lambda: Call("<c>{name}</c>"),
        lambda: Call("<c>{name}{arguments}{arguments}</c>"),
        lambda: Call("<c>{name}{arguments}</c>", name=IdName()),
        lambda: Call("<c>{name}{arguments}</c>", arguments=NameAndArguments()),
    ],
)
def test_a_call_template_must_have_the_placeholders_its_codecs_fill(call: Any) -> None:
    with pytest.raises(UsageError, match="a call template with"):
        call()


def test_from_json_wants_a_spec() -> None:
    with pytest.raises(UsageError, match="of type Spec, not Think"):
        from_json(json.dumps(to_data(Think())))


def test_the_formats_command_prints_a_spec_as_json_or_python(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["formats", "--spec", "kimi-k2"]) == 0
    assert from_json(capsys.readouterr().out) == formats.get("kimi-k2").spec
    assert cli.main(["formats", "--spec", "kimi-k3", "--python"]) == 0
    assert capsys.readouterr().out.startswith("Spec(name='kimi-k3',")


def test_the_formats_command_names_a_format_without_a_spec(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    unported = "hermes-in-code"  # every built-in family is a spec: one made in code
    formats.names()  # the built-ins loaded first
    in_code = replace(formats.get("hermes"), name=unported, spec=None)
    monkeypatch.setitem(registry._REGISTRY, unported, in_code)
    assert cli.main(["formats", "--spec", unported]) == 2
    assert "is not written as a spec yet" in capsys.readouterr().err
    assert cli.main(["formats", "--python"]) == 2
    assert "--python applies to --spec" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("call", "section", "complaint"),
    [
        ("<a>{name}{arguments}</x>", None, "ending with '</tool_call>'"),
        ("<a>{name}{arguments}</tool_call>", Section(("<s>",), ("</s>",), bare=True), "tolerance"),
        ("<a>\n<b={name}>{arguments}</tool_call>", Section(("<s>",), ("</s>",)), "no section"),
    ],
)
def test_an_xml_call_spec_it_cannot_read_is_a_usage_error(
    call: str, section: Section | None, complaint: str
) -> None:
    spec = Spec("x", "x", Call(call, XmlArguments(GLM)), ("<e>",), section=section)
    with pytest.raises(UsageError, match=complaint):
        build(spec)
    with pytest.raises(UsageError, match="outer tag"):
        build(
            replace(
                spec, call=Call("<a>{name}{arguments}</tool_call>", XmlArguments(GLM), bare=True)
            )
        )


def test_xml_calls_render_one_argument_a_line_and_parse_back() -> None:
    fmt = formats.get("ling-3")
    use = ToolUse("get_weather", {"location": "Paris"})
    text = fmt.render(Turn(None, ("Hi", use)), None)
    assert text == (
        "Hi<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>Paris</arg_value>\n"
        "</tool_call><|role_end|>"
    )
    message = verify(fmt, text, fmt.prompt_for(None), tools=WEATHER)
    assert [(c.name, c.arguments) for c in message.tool_calls] == [("get_weather", use.arguments)]


def test_an_interleaved_channel_turn_writes_each_part_in_order_in_its_array_framing() -> None:
    fmt = formats.get("cohere")
    first, second = ToolUse("get_weather", {"location": "Paris"}), ToolUse("get_time")
    text = fmt.render(Turn("Hmm.", ("Hi.", first, second, "Bye.", first)), None)
    call = '{{"tool_call_id": "{}", "tool_name": "get_{}", "parameters": {}}}'
    weather, time = call.format(0, "weather", '{"location": "Paris"}'), call.format(1, "time", "{}")
    action = "<|START_ACTION|>[\n    {}\n]<|END_ACTION|>"
    assert text == (
        "<|START_THINKING|>Hmm.<|END_THINKING|><|START_RESPONSE|>Hi.<|END_RESPONSE|>"
        + action.format(f"{weather},\n    {time}")
        + "<|START_RESPONSE|>Bye.<|END_RESPONSE|>"
        + action.format(call.format(2, "weather", '{"location": "Paris"}'))
        + "<|END_OF_TURN_TOKEN|>"
    )
    assert "<|START_ACTION|>" in fmt.reserved and "[" not in fmt.reserved
    assert fmt.channels == {"reasoning": ("<|START_THINKING|>", "<|END_THINKING|>")}


def test_an_array_framing_is_its_brackets_and_whitespace() -> None:
    with pytest.raises(UsageError, match="framing"):
        Section(("<a>",), ("</a>",), array=True, framing=("{", "}"))


def test_pseudo_function_calls_with_a_list_separator_are_a_python_list() -> None:
    use = ToolUse("f", {"s": "x", "flag": True, "none": None})
    for name, written in (("pythonic", "{}"), ("llama-4", "{}"), ("lfm2", "<|tool_call_start|>{}")):
        fmt = formats.get(name)
        text = fmt.render(Turn(None, ("Hi", use, use)), None)
        call = "f(s='x', flag=True, none=None)"
        assert text.startswith("Hi" + written.format(f"[{call}, {call}]"))
        assert "[" not in fmt.reserved and "]" not in fmt.reserved
        assert [c.arguments for c in verify(fmt, text, fmt.prompt_for(None)).tool_calls] == [
            use.arguments
        ] * 2
    with pytest.raises(UsageError, match='"json" or "python"'):
        PythonKeywords(literals="repr")
    with pytest.raises(UsageError, match="written bare"):
        Section(("<a>",), ("</a>",), written_bare=True)


def test_optional_template_pieces_may_be_missing_and_an_id_piece_is_written_with_an_id() -> None:
    fmt = formats.get("mistral")
    uses = (ToolUse("get_weather", {"location": "Paris"}, "a1b2c3d4e"), ToolUse("get_time"))
    text = fmt.render(Turn(None, uses), None)
    assert text == (
        '[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"location": "Paris"}'
        "[TOOL_CALLS]get_time[ARGS]{}</s>"
    )
    message = verify(fmt, text.replace("[ARGS]", "", 1), "[/INST]", tools=None)
    assert [c.name for c in message.tool_calls] == ["get_weather", "get_time"]
    assert message.tool_calls[0].id == "a1b2c3d4e"
    assert fmt.markers["call"] == "[TOOL_CALLS]NAME[ARGS]{…}"
    listed = '[TOOL_CALLS] [{"id": "x", "name": "get_weather", "arguments": {}}]</s>'
    assert [c.id for c in verify(fmt, listed, "[/INST]", tools=WEATHER).tool_calls] == ["x"]


@pytest.mark.parametrize(
    "made",
    [
        lambda: Call("<c>{name}[A]{arguments}</c>", optional=("[B]",)),
        lambda: Call("<c>{name}[A]{arguments}</c>", PythonKeywords(), optional=("[A]",)),
        lambda: Section(("<s>",), (), element=NameAndArguments()),
    ],
)
def test_optional_pieces_and_an_alternative_array_are_checked(made: Any) -> None:
    with pytest.raises(UsageError, match=r"optional pieces|`element`"):
        made()


def test_a_name_prefix_is_written_and_optional_and_a_channel_opener_is_written_labelled() -> None:
    fmt = formats.get("gemma-4")
    text = fmt.render(Turn("Hmm.", (ToolUse("get_weather", {"location": "Paris"}),)), None)
    call = '<|tool_call>call:get_weather{location:<|"|>Paris<|"|>}<tool_call|>'
    assert text == f"<|channel>thought\nHmm.<channel|>{call}<|tool_response>"
    assert fmt.prompt_for("reasoning") == "<|turn>model\n<|channel>thought\n"
    message = verify(fmt, text.replace("call:", ""), "<|turn>model\n", tools=WEATHER)
    assert [(c.name, c.arguments) for c in message.tool_calls] == [
        ("get_weather", {"location": "Paris"})
    ]
    assert verify(fmt, "<|tool_call>get_weather and more<turn|>", tools=WEATHER).tool_calls == ()


def test_bare_call_objects_are_proven_by_a_named_hook() -> None:
    spec = Spec(
        "bare",
        "bare",
        Call(
            "{call}",
            NameAndArguments(("arguments", "parameters")),
            between=" | ",
            proof="declared-call",
        ),
        ("<eot>",),
        turn=None,
    )
    fmt = build(spec)
    call = '{"name": "get_weather", "arguments": {}}'
    text = f'{{"answer": 1}} then {call} | {call.replace("arguments", "parameters")}'
    message = verify(fmt, text + "<eot>", tools=WEATHER)
    assert [c.name for c in message.tool_calls] == ["get_weather"] * 2
    assert message.content == '{"answer": 1} then'
    assert fmt.render(Turn(None, (ToolUse("f"), ToolUse("g"))), None) == (
        '{"name": "f", "arguments": {}} | {"name": "g", "arguments": {}}<eot>'
    )
    with pytest.raises(UsageError, match="no proof hook named 'nope'"):
        build(replace(spec, call=replace(spec.call, proof="nope")))


# Acme's blocks, each headed by a token, as Inkling's are.
HEADED = Spec(
    name="acme-headed",
    summary="Acme: blocks headed <|head|>",
    turn=Channels(
        (Channel("reasoning", "<|think|>", "<|stop|>"), Channel("content", "<|say|>", "<|stop|>")),
        tokens=("<|",),
        header="<|head|>",
    ),
    call=Call("<|call|>{call}<|stop|>", NameAndArguments()),
    stops=("<|end|>",),
    prompt="<|head|>",
)


def test_a_header_heads_every_block_and_is_dropped_with_its_label_when_read() -> None:
    fmt = build(HEADED)
    use = ToolUse("get_weather", {"location": "Paris"})
    call = '<|call|>{"name": "get_weather", "arguments": {"location": "Paris"}}<|stop|>'
    text = fmt.render(Turn("Rain?", ("Checking.", use)), None)
    head = "<|head|>"
    blocks = f"{head}<|think|>Rain?<|stop|>{head}<|say|>Checking.<|stop|>"
    assert text == f"{blocks}{head}get_weather{call}<|end|>"
    expected = {
        "reasoning_content": "Rain?",
        "content": "Checking.",
        "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}],
    }
    unheaded = f"<|think|>Rain?<|stop|><|say|>Checking.<|stop|>{call}<|end|>"
    for written in (text, unheaded):
        verify(fmt, written, head, tools=WEATHER, expected=expected)
    labelled = f"get_weather{call}<|end|>"  # after the prompt's header: the label at the start
    verify(fmt, labelled, head, tools=WEATHER, expected={**expected, "reasoning_content": None,
                                                          "content": None})  # fmt: skip
    assert fmt.render(Turn(None, ("Hi",)), None) == f"{head}<|say|>Hi<|stop|><|end|>"
    assert_format(fmt, max_examples=6, seed=0)
    lazy = json.loads(export(fmt, normalize_tools(WEATHER), "gbnf-lazy").text)
    assert lazy["grammar_triggers"] == [{"type": "word", "value": f"{head}get_weather<|call|>{{"}]


ROUTED = Spec(
    "routed",
    "messages headed by their recipient",
    turn=Channels(
        (
            Channel("reasoning", "<|head|>@me<|body|>", "<|done|>"),
            Channel("content", "<|head|>@you<|body|>", "<|done|>", also=("<|head|><|body|>",)),
        ),
        tokens=("<|",),
        interleaved=True,
        header="<|head|>",
        label="@{name}",
    ),
    call=Call("<|body|><call>{name}{arguments}</call>"),
    stops=("<|end|>",),
    prompt="<|head|>",
)


def test_a_header_whose_label_names_the_channel_routes_each_message() -> None:
    """A channel opener that begins with the header: the header's label (the recipient)
    decides whether a message is reasoning, content or, naming no channel, a call."""
    fmt = build(ROUTED)
    use = ToolUse("get_weather", {"location": "Paris"})
    text = fmt.render(Turn("Rain?", ("Checking.", use)), None)
    reason, say = "<|head|>@me<|body|>Rain?<|done|>", "<|head|>@you<|body|>Checking.<|done|>"
    call = '<|head|>@get_weather<|body|><call>get_weather{"location": "Paris"}</call>'
    assert text == f"{reason}{say}{call}<|end|>"
    expected = {
        "reasoning_content": "Rain?",
        "content": "Checking.",
        "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}],
    }
    verify(fmt, text, None, tools=WEATHER, expected=expected)
    after_prompt = text.removeprefix("<|head|>")  # the prompt wrote the first header
    verify(fmt, after_prompt, "<|head|>", tools=WEATHER, expected=expected)
    bare = "<|body|>Hi<|done|><|end|>"  # `also`: the recipient-less header is content too
    verify(
        fmt,
        bare,
        "<|head|>",
        expected={**expected, "reasoning_content": None, "content": "Hi", "tool_calls": []},
    )
    assert fmt.prompts["reasoning"] == "<|head|>@me<|body|>"  # the prompt's header once
    assert_format(fmt, max_examples=6, seed=0)
    gbnf = export(fmt, normalize_tools(WEATHER), "gbnf").text
    assert "<|head|>@me<|body|>" in gbnf and "<|head|><|head|>" not in gbnf


def test_a_call_header_label_names_the_call_once() -> None:
    with pytest.raises(UsageError, match="holds \\{name\\} once"):
        Channels((Channel("content", "<|a|>", "<|b|>"),), ("<|",), header="<|h|>", label="to")


def test_a_doubled_name_where_no_reader_reads_it_is_a_usage_error() -> None:
    """`Plain.doubled` is read in a template's head and a wrapped XML call; a `loose` or
    `bare` call, or an XML call in no outer tag, would ignore it: a `UsageError`."""
    layout = QWEN3_CODER
    unwrapped = Spec(
        "x", "x", Call("<function={name}>\n{arguments}</function>", XmlArguments(layout),
                       Plain(doubled=".")),
        ("<end>",),
    )  # fmt: skip
    with pytest.raises(UsageError, match="a `doubled` name is read"):
        build(unwrapped)
    read = replace(unwrapped, call=Call("<call>{name}{arguments}</call>", name=Plain(doubled=".")))
    fmt = build(read)
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    message = stream(fmt, ["<call>f.f{}</call>"], normalize_tools(tools)).message
    assert [c.name for c in message.tool_calls] == ["f"]


def test_a_channel_turn_without_its_tokens_or_a_close_is_a_usage_error() -> None:
    call = Call("<call>{name}{arguments}</call>")
    no_tokens = Spec(
        "x", "x", call, ("<|end|>",), turn=Channels((Channel("reasoning", "<|r|>", "<|/r|>"),))
    )
    with pytest.raises(UsageError, match="needs `tokens`"):
        build(no_tokens)
    no_close = replace(no_tokens, turn=Channels((Channel("reasoning", "<|r|>", ""),), ("<|",)))
    with pytest.raises(UsageError, match="'reasoning' has no close"):
        build(no_close)


# Acme's headed messages, as gpt-oss's Harmony messages are, over other tokens.
ACME_MESSAGES = Spec(
    name="acme-headed",
    summary="Acme: headed messages think, note and say, calls addressed @NAME",
    turn=Messages(
        bodies=(
            ("note", "content", "<|e|>"),
            ("think", "reasoning", "<|e|>"),
            ("say", "content", "<|done|>"),
        ),
        start="<|s|>",
        channel="<|c|>",
        message="<|m|>",
        end="<|e|>",
        to=" @",
        types=((" <|as|>", "json"),),
    ),
    call=Call("<|c|>note @{name} <|as|>json<|m|>{arguments}<|call|>"),
    stops=("<|done|>", "<|call|>"),
    prompt="<|s|>me",
    malformed_as_content=False,
)


def test_headed_messages_are_data_read_and_written_as_any_spec() -> None:
    fmt = build(ACME_MESSAGES)
    assert fmt.reserved == ("<|s|>", "<|c|>", "<|m|>", "<|e|>", "<|done|>", "<|call|>", "<|as|>")
    assert fmt.prompts == {
        None: "<|s|>me",
        "reasoning": "<|s|>me<|c|>think<|m|>",
        "content": "<|s|>me<|c|>say<|m|>",
    }
    call = {"name": "get_weather", "arguments": {"location": "Paris"}}
    arguments = '{"location": "Paris"}<|call|>'
    for header in ("<|c|>note @get_weather <|as|>json<|m|>", " @get_weather<|c|>note<|m|>"):
        text = f"<|c|>think<|m|>Rain?<|e|><|s|>me{header}{arguments}"
        expected = {"reasoning_content": "Rain?", "content": None, "tool_calls": [call]}
        verify(fmt, text, "<|s|>me", tools=WEATHER, expected=expected)
    answered = "<|c|>think<|m|>Hm.<|e|><|c|>note<|m|>Hi.<|e|><|s|>me<|c|>say<|m|>Bye.<|done|>"
    expected = {"reasoning_content": "Hm.", "content": "Hi.Bye.", "tool_calls": []}
    verify(fmt, answered, "<|s|>me", tools=WEATHER, expected=expected)
    turn = Turn("Rain?", ("Checking.", ToolUse("get_weather", {"location": "Paris"})))
    assert fmt.render(turn, None) == (
        "<|c|>think<|m|>Rain?<|e|><|s|>me<|c|>note<|m|>Checking.<|e|><|s|>me"
        '<|c|>note @get_weather <|as|>json<|m|>{"location": "Paris"}<|call|>'
    )
    grammar = export(fmt, normalize_tools(WEATHER), "lark").text
    assert '<|c|> "note @get_weather " <|as|> "json" <|m|> "{"' in grammar  # either placement
    assert '" @get_weather" <|c|> "note " <|as|> "json" <|m|> "{"' in grammar
    assert_format(fmt, max_examples=6, seed=0)


def test_headed_messages_need_a_reasoning_preamble_and_answer_channel() -> None:
    with pytest.raises(UsageError, match="a reasoning channel and a preamble"):
        replace(ACME_MESSAGES.turn, bodies=ACME_MESSAGES.turn.bodies[:2])


FAMILY_BUDGETS = {
    "kimi_k2": 17,
    "kimi_k3": 25,
    "qwen3_coder": 25,
    "ling3": 15,
    "glm": 30,
    "gpt_oss": 30,
}
"""Code lines per family module: the spec (issue #16: at most 15 a family) and, where the
family has one, its argument layout (glm.py holds two families; the design's bound is 30);
gpt-oss's headed messages (`Messages`) with their recipients and content types."""


def code_lines(source: str) -> int:
    """The physical lines of module-level code in `source`: every top-level statement but
    imports and docstrings (string statements), without its blank and comment lines."""
    lines = source.splitlines()
    count = 0
    for node in ast.parse(source).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        assert node.end_lineno is not None
        written = (line.strip() for line in lines[node.lineno - 1 : node.end_lineno])
        count += sum(1 for line in written if line and not line.startswith("#"))
    return count


def test_the_code_line_counter_skips_imports_docstrings_comments_and_blanks() -> None:
    source = '"""Doc."""\nimport x\n\nA = f(\n    1,  # one\n\n    # two\n)\n"""A."""\nB = 2\n'
    assert code_lines(source) == 4


@pytest.mark.parametrize(("module", "budget"), FAMILY_BUDGETS.items())
def test_a_family_is_a_spec_of_a_few_code_lines(module: str, budget: int) -> None:
    path = Path(formats.__file__).parent / f"{module}.py"
    assert code_lines(path.read_text(encoding="utf-8")) <= budget


def test_a_loose_section_names_its_tolerances_and_drops_its_calls_strays() -> None:
    section = Section(("<|s|>",), ("<|/s|>",), loose=True)
    assert (section.bare, section.noise, section.empty, section.stray_ends) == (True,) * 4
    assert from_data(to_data(section)) == section
    spec = Spec("x", "x", Call("<|c|>{name}<|a|>{arguments}<|/c|>"), ("<|end|>",), section=section)
    fmt = build(spec)
    assert build(replace(spec, section=replace(section, loose=False))).reserved == fmt.reserved
    text = "a<|/c|>b<|/s|>c<|s|>junk<|/s|>d<|c|>f<|a|>{}<|/c|>"
    message = verify(fmt, text + "<|end|>", tools=None)
    assert message.content == "abcd"
    assert [c.name for c in message.tool_calls] == ["f"]


def test_a_respelled_section_reads_every_spelling_and_writes_the_first() -> None:
    call = Call("<|c|>{name}<|a|>{arguments}<|/c|>")
    spec = Spec(
        "x",
        "x",
        call,
        ("<|end|>",),
        section=Section(("<|calls_begin|>",), ("<|calls_end|>",)),
        respelled=(("<|calls", "<|call"),),
    )
    fmt = build(spec)
    spellings = ("<|calls_begin|>", "<|call_begin|>", "<|calls_end|>", "<|call_end|>")
    assert set(spellings) <= set(fmt.reserved)
    for begin, end in (("<|calls_begin|>", "<|calls_end|>"), ("<|call_begin|>", "<|call_end|>")):
        text = f"{begin}<|c|>f<|a|>{{}}<|/c|>{end}<|end|>"
        assert [c.name for c in verify(fmt, text, tools=None).tool_calls] == ["f"]
    written = fmt.render(Turn(None, (ToolUse("f"),)), None)
    assert written == "<|calls_begin|><|c|>f<|a|>{}<|/c|><|calls_end|><|end|>"
    for respelled in ((("<|c|>", "<|k|>"),), (("<|nowhere", "<|x"),)):
        with pytest.raises(UsageError, match="a respelled token"):
            build(replace(spec, respelled=respelled))


def test_an_unclosed_value_derives_where_a_missing_value_close_is_tolerated() -> None:
    glm_47_spec = formats.get("glm-4.7").spec
    stated = replace(
        glm_47_spec.call,
        arguments=XmlArguments(replace(GLM, unclosed_at_end=("<tool_call>", "<|user|>"))),
    )
    with pytest.raises(UsageError, match="derives its layout's `unclosed_at_end`"):
        build(replace(glm_47_spec, call=replace(stated, unclosed_value=True)))
    by_hand = build(replace(glm_47_spec, call=replace(stated, unclosed_value=False)))
    fmt = formats.get("glm-4.7")
    weather = WEATHER[0]["function"]["name"]
    for after in ("<tool_call>", "<|user|>", ""):
        text = f"<tool_call>{weather}<arg_key>location</arg_key><arg_value>Paris</tool_call>"
        text += after + ("" if after else "<|user|>")
        for made in (fmt, by_hand):
            assert stream(made, [text], WEATHER, made.prompt_for(None)).message == (
                stream(by_hand, [text], WEATHER, by_hand.prompt_for(None)).message
            )
    # a template that writes a closer after the layout's end: that closer, then the stops
    qwen = formats.get("qwen3-coder").spec
    unstated = XmlArguments(replace(QWEN3_CODER, unclosed_at_end=None), newline=True)
    derived = build(replace(qwen, call=replace(qwen.call, arguments=unstated, unclosed_value=True)))
    text = "<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n</function>\n"
    for rest in ("</tool_call><|im_end|>", "<|im_end|>"):
        expected = verify(formats.get("qwen3-coder"), text + rest, tools=WEATHER)
        assert verify(derived, text + rest, tools=WEATHER) == expected
        assert expected.tool_calls[0].arguments == {"location": "Paris"}
    with pytest.raises(UsageError, match="`unclosed_value` needs a name right before XML"):
        build(replace(ACME, call=replace(ACME.call, unclosed_value=True)))
