"""XML-style arguments (`protocall.values.xmlargs`): every layout, one-shot and streamed."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocall.blocks.schema_typing import schema_typing
from protocall.combinators import DONE, FAILED, NEED_MORE, Close, Item, Open, Run, Text
from protocall.formats.deepseek import DSML, DSML_V41
from protocall.formats.deepseek import dsml_layout as dsml
from protocall.formats.glm import LAYOUT as GLM
from protocall.formats.kimi_k3 import LAYOUT as KIMI_K3
from protocall.formats.minicpm5 import LAYOUT as MINICPM5
from protocall.formats.minimax import LAYOUT as MINIMAX
from protocall.formats.qwen3_coder import LAYOUT as QWEN3_CODER
from protocall.formats.seed_oss import LAYOUT as SEED_OSS
from protocall.testing import chunkings, fed_and_resumed
from protocall.values.xmlargs import (
    ARGUMENT,
    ARGUMENT_NAME,
    ARGUMENT_VALUE,
    Arguments,
    Layout,
    xml_arguments,
)

# -- rendering arguments the way each model family writes them --------------------------------

SCHEMA_TYPES = {
    "string": {"type": "string"},
    "integer": {"type": "integer"},
    "number": {"type": "number"},
    "boolean": {"type": "boolean"},
    "null": {"type": ["string", "null"]},
    "array": {"type": "array"},
    "object": {"type": "object"},
}
K3_TYPES = {"integer": "number", "null": "null"}


@dataclass(frozen=True)
class Arg:
    key: str
    kind: str  # a key of SCHEMA_TYPES
    value: Any

    @property
    def raw(self) -> str:
        return self.value if self.kind == "string" else json.dumps(self.value, ensure_ascii=False)


def render(layout: Layout, args: list[Arg], gap: str = "\n") -> str:
    """The arguments as the family's template renders them, then the end marker."""
    parts = []
    for arg in args:
        if layout is QWEN3_CODER:
            parts.append(f"<parameter={arg.key}>\n{arg.raw}\n</parameter>")
        elif layout is SEED_OSS:  # no framing newlines, but where the value needs them
            framed = "\n" * arg.raw.startswith("\n") + arg.raw + "\n" * arg.raw.endswith("\n")
            parts.append(f"<parameter={arg.key}>{framed}</parameter>")
        elif layout is GLM:
            parts.append(f"<arg_key>{arg.key}</arg_key>{gap}<arg_value>{arg.raw}</arg_value>")
        elif layout is MINIMAX:
            parts.append(f'<parameter name="{arg.key}">{arg.raw}</parameter>')
        elif layout is MINICPM5:  # CDATA where the template writes it
            quoted = arg.kind == "string" and any(c in arg.raw for c in "<&\n")
            raw = f"<![CDATA[{arg.raw}]]>" if quoted else arg.raw
            parts.append(f'<param name="{arg.key}">{raw}</param>')
        elif layout in (DSML, DSML_V41):
            string = "true" if arg.kind == "string" else "false"
            parts.append(
                f'{layout.opener} name="{arg.key}" string="{string}">{arg.raw}{layout.value_close}'
            )
        else:
            assert layout is KIMI_K3
            key = arg.key.replace("&", "&amp;").replace('"', "&quot;")
            kind = K3_TYPES.get(arg.kind, arg.kind)
            parts.append(f'<|open|>argument key="{key}" type="{kind}"<|sep|>{arg.raw}')
            parts.append("<|close|>argument<|sep|>")
    body = "".join(parts) if layout is KIMI_K3 else gap + gap.join(parts) + gap
    return body + layout.end


def schema_of(args: list[Arg]) -> dict[str, Any]:
    return {"type": "object", "properties": {a.key: SCHEMA_TYPES[a.kind] for a in args}}


LAYOUTS = [QWEN3_CODER, SEED_OSS, GLM, MINIMAX, DSML, DSML_V41, KIMI_K3, MINICPM5]
LAYOUT_IDS = ["qwen3_coder", "seed_oss", "glm", "minimax", "dsml", "dsml_v41", "kimi_k3"]
LAYOUT_IDS += ["minicpm5"]
WEATHER = {
    "type": "object",
    "properties": {
        "location": {"type": "string"},
        "days": {"type": "integer"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "hourly": {"type": "boolean"},
        "content": {"type": "string"},
        "path": {"type": "string"},
    },
}

# -- running ------------------------------------------------------------------------------------


@dataclass
class Outcome:
    run: Run[Any]
    items: list[Item]

    @property
    def value(self) -> Any:
        assert self.run.status is DONE, self.run.error
        return self.run.value

    @property
    def json(self) -> str:
        return "".join(item.text for item in self.items if isinstance(item, Text))


def parse(
    layout: Layout, chunks: list[str] | str, parameters: dict[str, Any] | None = WEATHER
) -> Outcome:
    run = Run(xml_arguments(layout, schema_typing(parameters)))
    items: list[Item] = []
    for chunk in [chunks] if isinstance(chunks, str) else chunks:
        if run.status is NEED_MORE:
            run.feed(chunk)
            items += run.take()
    if run.status is NEED_MORE:
        run.finish()
        items += run.take()
    return Outcome(run, items)


def check(outcome: Outcome, expected: dict[str, Any], end: int) -> None:
    """The value, where it ended, and the streamed JSON text that adds up to it."""
    assert outcome.value == expected
    assert outcome.run.end == end
    assert outcome.json == json.dumps(expected, ensure_ascii=False)
    assert json.loads(outcome.json) == expected
    check_nodes(outcome.items, expected)


def check_nodes(items: list[Item], expected: dict[str, Any]) -> None:
    stack: list[str] = []
    closed: dict[str, list[Any]] = {ARGUMENT: [], ARGUMENT_NAME: [], ARGUMENT_VALUE: []}
    for item in items:
        if isinstance(item, Open):
            stack.append(item.tag)
        elif isinstance(item, Close):
            assert stack.pop() == item.tag
            closed[item.tag].append(item.value)
        elif stack:
            assert stack[-1] in (ARGUMENT, ARGUMENT_NAME, ARGUMENT_VALUE)
    assert not stack
    assert closed[ARGUMENT] == list(expected.items())
    assert closed[ARGUMENT_NAME] == list(expected)
    assert closed[ARGUMENT_VALUE] == list(expected.values())


def streamed_text(items: list[Item]) -> str:
    return "".join(item.text for item in items if isinstance(item, Text))


# -- every layout, one-shot and streamed --------------------------------------------------------

PARIS = [Arg("location", "string", "Paris"), Arg("days", "integer", 3)]


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
def test_every_layout_one_shot_and_per_character(layout: Layout) -> None:
    text = render(layout, PARIS)
    expected = {"location": "Paris", "days": 3}
    end = text.rindex(layout.end)
    check(parse(layout, text), expected, end)
    check(parse(layout, list(text)), expected, end)


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
def test_no_arguments(layout: Layout) -> None:
    check(parse(layout, layout.end), {}, 0)
    check(parse(layout, list(" \n" + layout.end)), {}, 2)


def test_the_end_marker_is_not_consumed() -> None:
    outcome = parse(QWEN3_CODER, "<parameter=path>\n/a\n</parameter>\n</function>\n</tool_call>")
    assert outcome.run.rest == "</function>\n</tool_call>"


def test_formats_md_examples() -> None:
    qwen = "\n<parameter=path>\n/tmp/a.py\n</parameter>\n<parameter=content>\ndef f():\n    return 1\n\n</parameter>\n</function>"  # noqa: E501
    assert parse(QWEN3_CODER, qwen).value == {
        "path": "/tmp/a.py",
        "content": "def f():\n    return 1\n",
    }
    glm = "<arg_key>location</arg_key><arg_value>Paris</arg_value></tool_call>"
    assert parse(GLM, glm).value == {"location": "Paris"}
    k3 = '<|open|>argument key="options" type="object"<|sep|>{"unit":"celsius"}<|close|>argument<|sep|><|close|>call<|sep|>'  # noqa: E501
    assert parse(KIMI_K3, k3).value == {"options": {"unit": "celsius"}}
    v4 = '\n<｜DSML｜parameter name="content" string="true">line1\nline2</｜DSML｜parameter>\n</｜DSML｜invoke>'  # noqa: E501
    assert parse(DSML, v4).value == {"content": "line1\nline2"}


# -- properties over generated arguments --------------------------------------------------------

PIECES = ["a", "Z", "7", " ", "\n", "\t", "<", ">", "/", "=", '"', "\\", "&", "&quot;", "|", "｜"]
PIECES += ["中文", "😀", "é", "</", "<parameter", "argument", "<|sep|>", "invoke", "-", "."]
strings = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)
json_data = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**20), 10**20) | strings
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(strings, inner, max_size=3),
    max_leaves=8,
)  # fmt: skip
values_by_kind = {
    "string": strings,
    "integer": st.integers(),
    "number": st.integers() | st.floats(allow_nan=False, allow_infinity=False),
    "boolean": st.booleans(),
    "null": st.none(),
    "array": st.lists(json_data, max_size=3),
    "object": st.dictionaries(strings, json_data, max_size=3),
}
KEYS = ["location", "days", "x", "path_2", "a.b", "中"]


@st.composite
def argument_lists(draw: st.DrawFn) -> list[Arg]:
    keys = draw(st.lists(st.sampled_from(KEYS), unique=True, max_size=4))
    args = []
    for key in keys:
        kind = draw(st.sampled_from(sorted(SCHEMA_TYPES)))
        args.append(Arg(key, kind, draw(values_by_kind[kind])))
    return args


def expected_of(args: list[Arg]) -> dict[str, Any]:
    return {arg.key: arg.value for arg in args}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(LAYOUTS), argument_lists(), st.data())
def test_generated_arguments_under_every_chunking(
    layout: Layout, args: list[Arg], data: st.DataObject
) -> None:
    gap = data.draw(st.sampled_from(["\n", "", " \n "])) if layout is GLM else "\n"
    text = render(layout, args, gap)
    expected = expected_of(args)
    end = text.rindex(layout.end)
    one_shot = parse(layout, text, schema_of(args))
    check(one_shot, expected, end)
    check(parse(layout, list(text), schema_of(args)), expected, end)
    markers = (layout.opener, layout.value_close, layout.end, "\n")
    chunks = data.draw(chunkings(text, markers))
    check(parse(layout, chunks, schema_of(args)), expected, end)


@st.composite
def marker_laden(draw: st.DrawFn, layout: Layout) -> str:
    """Value text made of the layout's terminators, their prefixes, newlines and letters."""
    marks = [layout.value_close, layout.end, layout.opener, "\n" + layout.opener]
    marks += layout.quote or ()
    pieces = [*marks, *(m[:cut] for m in marks for cut in (1, 2, len(m) - 1)), "\n", "a"]
    return "".join(draw(st.lists(st.sampled_from(pieces), max_size=6)))


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(LAYOUTS), st.data())
def test_waits_absorb_what_a_resume_would(layout: Layout, data: st.DataObject) -> None:
    """A key or attribute still arriving, and a value scan holding back a terminator prefix
    (after a framing newline too), buffer input that keeps them waiting without resuming
    the tree: after every chunk, the status and the output are a resume's, and so are the
    value or the error at the end."""
    key = data.draw(st.sampled_from(["content", "path", "a b", "x>y"]))
    text = render(layout, [Arg(key, "string", data.draw(marker_laden(layout)))])
    chunks = data.draw(chunkings(text, (layout.value_close, layout.end, "\n")))
    fed, resumed = fed_and_resumed(xml_arguments(layout, schema_typing(WEATHER)), chunks)
    assert fed == resumed


def test_a_framing_newline_before_a_held_close_is_held_by_the_absorber_too() -> None:
    chunks = ["<parameter=content>\nab", "c\n</para", "meter>\n", "</function>"]
    fed, resumed = fed_and_resumed(xml_arguments(QWEN3_CODER, schema_typing(WEATHER)), chunks)
    assert fed == resumed
    assert [items for _, items in fed[0]][1] == [Text("c", 22)]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(LAYOUTS), argument_lists())
def test_every_proper_prefix_needs_more_and_fails_as_a_truncation(
    layout: Layout, args: list[Arg]
) -> None:
    text = render(layout, args)
    run = Run(xml_arguments(layout, schema_typing(schema_of(args))))
    for size, char in enumerate(text[:-1], start=1):
        run.feed(char)
        assert run.status is NEED_MORE, text[:size]
        truncated = parse(layout, text[:size], schema_of(args)).run
        assert truncated.status is FAILED
        assert truncated.error is not None and truncated.error.at_end_of_input
        assert truncated.error.position == size
    run.feed(text[-1])
    assert run.status is DONE


# -- streaming and hold-back --------------------------------------------------------------------


def test_string_values_stream_as_they_arrive() -> None:
    run = Run(xml_arguments(QWEN3_CODER, schema_typing(WEATHER)))
    run.feed("<parameter=content>\ndef f():\n    ret")
    assert streamed_text(run.take()) == '{"content": "def f():\\n    ret'
    run.feed("urn 1\n</param")
    assert streamed_text(run.take()) == "urn 1"  # the framing newline and the tag are held
    run.feed("eter>\n</function>")
    assert streamed_text(run.take()) == '"}'
    assert run.status is DONE


def test_a_closing_tag_is_held_until_its_continuation_is_known() -> None:
    run = Run(xml_arguments(GLM, schema_typing(WEATHER)))
    run.feed("<arg_key>content</arg_key><arg_value>a</arg_value>\n")
    assert streamed_text(run.take()) == '{"content": "a'
    run.feed("b</arg_value>")
    assert streamed_text(run.take()) == "</arg_value>\\nb"
    run.feed("</tool_call>")
    assert streamed_text(run.take()) == '"}'


def test_keys_are_emitted_only_when_complete() -> None:
    run = Run(xml_arguments(QWEN3_CODER, schema_typing(WEATHER)))
    run.feed("<parameter=loc")
    assert streamed_text(run.take()) == "{"
    run.feed("ation")
    assert streamed_text(run.take()) == ""
    run.feed(">")
    assert streamed_text(run.take()) == '"location": '


def test_non_string_values_appear_when_complete() -> None:
    run = Run(xml_arguments(QWEN3_CODER, schema_typing(WEATHER)))
    run.feed("<parameter=days>\n1")
    assert streamed_text(run.take()) == '{"days": '
    run.feed("2\n</parameter>")
    assert streamed_text(run.take()) == ""
    run.feed("\n</function>")
    assert streamed_text(run.take()) == "12}"


def test_text_items_carry_positions_inside_the_value() -> None:
    outcome = parse(MINIMAX, list('<parameter name="path">/tmp</parameter></invoke>'))
    value_texts = [i for i in outcome.items if isinstance(i, Text) and i.text in list("/tmp")]
    assert [i.start for i in value_texts] == [23, 24, 25, 26]


# -- marker-like text inside values ------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize(
    "template",
    [
        "x{close}y",
        "x{close}\n  y",
        "x{close}{close}",
        "{end}",
        "a{end}b",
        "{opener}",
        "x\n{opener}y",
    ],
)
def test_marker_text_inside_a_string_value_is_kept(layout: Layout, template: str) -> None:
    value = template.format(close=layout.value_close, end=layout.end, opener=layout.opener)
    kept(layout, value)


def kept(layout: Layout, value: str, parameters: dict[str, Any] = WEATHER) -> None:
    """`value` as the `content` argument, then another argument, reads back exactly,
    one-shot and per character."""
    args = [Arg("content", "string", value), Arg("days", "integer", 2)]
    text = render(layout, args)
    expected = {"content": value, "days": 2}
    check(parse(layout, text, parameters), expected, text.rindex(layout.end))
    check(parse(layout, list(text), parameters), expected, text.rindex(layout.end))


UNCOMMITTED = [layout for layout in LAYOUTS if not layout.committed_opener]
UNCOMMITTED_IDS = [
    name for name, layout in zip(LAYOUT_IDS, LAYOUTS, strict=True) if not layout.committed_opener
]


@pytest.mark.parametrize("layout", UNCOMMITTED, ids=UNCOMMITTED_IDS)
def test_a_closing_tag_then_an_unfinished_opener_is_value_text(layout: Layout) -> None:
    kept(layout, f"x{layout.value_close}{layout.opener}")


def test_qwen_markup_in_code_is_kept() -> None:
    code = 'xml = "<parameter=location>Paris</parameter>\\n</function>"\nprint(xml)'
    text = render(QWEN3_CODER, [Arg("content", "string", code), Arg("path", "string", "a.py")])
    assert parse(QWEN3_CODER, list(text)).value == {"content": code, "path": "a.py"}


UNQUOTED = [layout for layout in LAYOUTS if layout.quote is None]
UNQUOTED_IDS = [name for name, layout in zip(LAYOUT_IDS, LAYOUTS, strict=True) if not layout.quote]


@pytest.mark.parametrize("layout", UNQUOTED, ids=UNQUOTED_IDS)
def test_a_closing_tag_then_the_end_marker_always_ends_the_value(layout: Layout) -> None:
    value = f"x{layout.value_close}{layout.end}y"
    text = render(layout, [Arg("content", "string", value)])
    outcome = parse(layout, text)
    assert outcome.value == {"content": "x"}
    assert outcome.run.end == text.index(layout.end)


# -- a quoted value (MiniCPM5's CDATA) ------------------------------------------------------------


def test_a_quoted_value_holds_closing_tags_and_the_end_marker() -> None:
    kept(MINICPM5, "x</param></function>y")


@pytest.mark.parametrize("value", ["a]]>b", "]]>", "a]]>\n</param>b", "]]]]>"])
def test_a_quote_close_that_no_value_close_follows_is_value_text(value: str) -> None:
    text = f'<param name="content"><![CDATA[{value}]]></param></function>'
    check(parse(MINICPM5, text), {"content": value}, text.rindex("</function>"))
    check(parse(MINICPM5, list(text)), {"content": value}, text.rindex("</function>"))


def test_a_quote_close_then_space_then_the_value_close_ends_the_value() -> None:
    text = '<param name="content"><![CDATA[a]]> \n</param></function>'
    check(parse(MINICPM5, text), {"content": "a"}, text.rindex("</function>"))


def test_quoted_text_streams_as_it_arrives_holding_back_a_possible_close() -> None:
    run = Run(xml_arguments(MINICPM5, schema_typing(WEATHER)))
    run.feed('<param name="content"><![CDATA[a<b]')
    assert streamed_text(run.take()) == '{"content": "a<b'
    run.feed("]")
    assert streamed_text(run.take()) == ""
    run.feed("x]]></param>")
    assert streamed_text(run.take()) == "]]x"
    run.feed("</function>")
    assert streamed_text(run.take()) == '"}'
    assert run.status is DONE


@pytest.mark.parametrize("cut", ["]]>", "]]> \n", "]]></par"])
def test_a_quote_closed_at_the_end_of_input_expects_the_value_close(cut: str) -> None:
    text = f'<param name="content"><![CDATA[x{cut}'
    run = parse(MINICPM5, text).run
    assert run.status is FAILED and run.error is not None
    assert run.error.position == len(text) and "`</param>`" in str(run.error)


@pytest.mark.parametrize("value", ["<![CDATA", "<!x", "<![CDATA[x"])
def test_text_that_only_begins_like_the_quote_is_read_as_it_can_be(value: str) -> None:
    """A proper prefix of the open is raw text; an open never closed fails at the end."""
    text = f'<param name="content">{value}</param></function>'
    outcome = parse(MINICPM5, text)
    if value.startswith("<![CDATA["):
        assert outcome.run.status is FAILED and outcome.run.error is not None
        assert "`]]>`" in str(outcome.run.error)
    else:
        assert outcome.value == {"content": value}


def test_a_closing_tag_then_a_genuine_opener_is_the_end_of_the_value() -> None:
    text = "<parameter=content>\na\n</parameter>\n<parameter=path>\nb\n</parameter>\n</function>"
    assert parse(QWEN3_CODER, text).value == {"content": "a", "path": "b"}


# -- a literal closing tag inside a value (issue #15) -------------------------------------------

NOT_A_CONTINUATION = ["", "x", " y", ")", "'", "\nprint(1)", "\n<parameter=undeclared>\nz",
                      "\n<parameter=", "<function=f>", "\n<tool_call>", "</para",
                      "\n\n"]  # fmt: skip
LITERAL_PIECES = [*NOT_A_CONTINUATION[1:], "</parameter>", "a", "\n", "<", "<parameter=days"]


def continues(tail: str) -> bool:
    """Whether `tail`, after a `</parameter>`, could continue Qwen3-Coder arguments."""
    rest = tail.lstrip()
    declared = tuple(f"<parameter={key}>" for key in WEATHER["properties"])
    return rest.startswith(("</function>", *declared)) or (
        rest.startswith("<parameter=") and ">" not in rest
    )


def literal_values() -> st.SearchStrategy[str]:
    """Value text holding `</parameter>` where what follows cannot continue the call."""
    text = st.lists(st.sampled_from(LITERAL_PIECES), max_size=5).map("".join)
    return st.builds(lambda a, b: f"{a}</parameter>{b}", text, text).filter(
        lambda value: (
            all(not continues(part) for part in value.split("</parameter>")[1:])
            and not value.endswith("\n")
        )
    )


@settings(max_examples=80, deadline=None)
@given(literal_values(), st.data())
def test_qwen_a_closing_tag_that_cannot_continue_the_call_is_value_text(
    value: str, data: st.DataObject
) -> None:
    text = render(QWEN3_CODER, [Arg("content", "string", value), Arg("path", "string", "a.py")])
    expected = {"content": value, "path": "a.py"}
    end = text.rindex("</function>")
    for chunks in (text, list(text), data.draw(chunkings(text, ("</parameter>", "\n")))):
        check(parse(QWEN3_CODER, chunks), expected, end)


@pytest.mark.parametrize("tail", NOT_A_CONTINUATION, ids=lambda tail: repr(tail)[1:-1] or "nothing")
def test_qwen_a_closing_tag_then_no_continuation_is_held_then_kept(tail: str) -> None:
    value = f"print('</parameter>'){tail}" if tail else "a\n</parameter>'"
    kept(QWEN3_CODER, value)


@pytest.mark.parametrize(
    ("parameters", "closes"),
    [(WEATHER, True), (None, True), ({"type": "object"}, True),
     ({"type": "object", "properties": {"content": {"type": "string"}}}, False)],
    ids=["declared", "no-schema", "no-properties", "undeclared"],
)  # fmt: skip
def test_qwen_the_schema_tells_a_literal_closing_tag_from_a_real_one(
    parameters: Any, closes: bool
) -> None:
    text = "<parameter=content>\na\n</parameter>\n<parameter=path>\nb\n</parameter>\n</function>"
    split = {"content": "a", "path": "b"}
    expected = split if closes else {"content": "a\n</parameter>\n<parameter=path>\nb"}
    for chunks in (text, list(text)):
        check(parse(QWEN3_CODER, chunks, parameters), expected, text.rindex("</function>"))


def test_qwen_the_held_closing_tag_is_not_emitted_until_decided() -> None:
    text = (
        "<parameter=content>\nx\n</parameter>\n<parameter=undeclared>\ny\n</parameter>\n</function>"
    )
    run = Run(xml_arguments(QWEN3_CODER, schema_typing(WEATHER)))
    emitted = ""
    for at, char in enumerate(text, start=1):
        run.feed(char)
        emitted += "".join(item.text for item in run.take() if isinstance(item, Text))
        if text.index("</parameter>") <= at < text.index("\ny\n"):  # undecided
            assert emitted == '{"content": "x', text[:at]
    run.finish()
    emitted += "".join(item.text for item in run.take() if isinstance(item, Text))
    assert json.loads(emitted) == {"content": "x\n</parameter>\n<parameter=undeclared>\ny"}


@pytest.mark.parametrize(
    "text",
    [
        "<parameter=content>\nx\n</parameter>\n<parameter=undeclared>\ny",
        "<parameter=content>\nx</parameter>'\n",
        "<parameter=content>\nx\n</parameter>",
        "<parameter=content>\nx\n</parameter>\n<parameter=path",
    ],
)
def test_qwen_a_value_cut_off_by_the_end_of_input_never_completes(text: str) -> None:
    for chunks in (text, list(text)):
        run = parse(QWEN3_CODER, chunks).run
        assert run.status is FAILED and run.error is not None and run.error.at_end_of_input


@pytest.mark.parametrize(
    "inner", ["<tool_call>\n<function=get_time>\n", "<function=f>", "<tool_call>"]
)
def test_qwen_call_markup_inside_a_value_is_value_text(inner: str) -> None:
    kept(QWEN3_CODER, f"a\n{inner}\nb")


# -- GLM: an opener after a closing tag commits (issue #15) --------------------------------------


@pytest.mark.parametrize(
    ("text", "position", "expected"),
    [
        ("<arg_key>location</arg_key><arg_value>Seattle</arg_value><arg_key>unit<arg_value>c"
         "</arg_value></tool_call>", 71, "`</arg_key>`"),
        ("<arg_key>location</arg_key><arg_value>Seattle</arg_value>\n<arg_key></arg_key>"
         "<arg_value>c</arg_value></tool_call>", 67, "an argument name"),
        ("<arg_key>location</arg_key><arg_value>a</arg_value><arg_key>location</arg_key>"
         "<arg_value>b</arg_value></tool_call>", 68,
         "a new argument (duplicate argument `location`)"),
    ],
    ids=["unclosed-key", "empty-key", "repeated-key"],
)  # fmt: skip
def test_glm_a_malformed_key_after_a_value_fails_never_swallowed(
    text: str, position: int, expected: str
) -> None:
    error = failure(GLM, text)
    assert (error.position, error.expected) == (position, expected)


def test_glm_a_closing_tag_then_an_opener_always_ends_the_value() -> None:
    text = "<arg_key>x</arg_key><arg_value>a</arg_value><arg_key>location</arg_key><arg_value>b</arg_value></tool_call>"  # noqa: E501
    for chunks in (text, list(text)):
        check(parse(GLM, chunks, None), {"x": "a", "location": "b"}, text.rindex("</tool_call>"))


GLM_47 = replace(GLM, unclosed_at_end=("<tool_call>", "<|observation|>", "<|user|>"))


@pytest.mark.parametrize("after", ["", "<|observation|>", "\n<tool_call>get_time", "<|user|>"])
def test_glm_47_tolerates_a_missing_last_closing_tag(after: str) -> None:
    text = (
        "<arg_key>days</arg_key><arg_value>2</arg_value><arg_key>location</arg_key><arg_value>Paris</tool_call>"
        + after
    )
    for chunks in (text, list(text)):
        check(parse(GLM_47, chunks), {"days": 2, "location": "Paris"}, text.index("</tool_call>"))
    assert parse(GLM, text).run.status is FAILED  # GLM-4.5 needs it


def test_glm_47_end_marker_followed_by_other_text_is_value_text() -> None:
    text = "<arg_key>content</arg_key><arg_value>a</tool_call>b</arg_value></tool_call>"
    for chunks in (text, list(text)):
        check(parse(GLM_47, chunks), {"content": "a</tool_call>b"}, text.rindex("</tool_call>"))


# -- tolerated missing closing tags -------------------------------------------------------------


def test_qwen_a_declared_unseen_opener_ends_an_unclosed_value() -> None:
    text = "<parameter=location>\nParis\n<parameter=days>\n3\n</parameter>\n</function>"
    check(parse(QWEN3_CODER, list(text)), {"location": "Paris", "days": 3}, text.rindex("</f"))


def test_qwen_end_marker_then_call_end_ends_an_unclosed_value() -> None:
    for tail in ("\n</tool_call>", "</tool_call>", "<|im_end|>", ""):
        text = "<parameter=location>\nParis\n</function>" + tail
        outcome = parse(QWEN3_CODER, list(text))
        assert outcome.value == {"location": "Paris"}
        assert outcome.run.end == text.index("</function>")


def test_qwen_end_marker_followed_by_other_text_is_value_text() -> None:
    text = "<parameter=content>\na</function>b\n</parameter>\n</function>"
    assert parse(QWEN3_CODER, text).value == {"content": "a</function>b"}


@pytest.mark.parametrize(
    ("parameters", "inner"),
    [
        (None, "days"),  # nothing is declared without a schema
        (WEATHER, "undeclared"),
        (WEATHER, "content"),  # the current key
    ],
)
def test_qwen_other_openers_inside_a_value_are_text(parameters: Any, inner: str) -> None:
    value = f"a\n<parameter={inner}>\nb"
    text = f"<parameter=content>\n{value}\n</parameter>\n</function>"
    assert parse(QWEN3_CODER, list(text), parameters).value == {"content": value}


def test_qwen_an_already_given_key_does_not_end_a_value() -> None:
    value = "a\n<parameter=path>\nb"
    text = f"<parameter=path>\np\n</parameter><parameter=content>\n{value}\n</parameter></function>"
    assert parse(QWEN3_CODER, text).value == {"path": "p", "content": value}


def test_dsml_v41_tolerates_a_missing_close_before_a_declared_parameter() -> None:
    text = '<｜DSML｜ parameter name="location" string="true">Paris\n<｜DSML｜ parameter name="days" string="false">3</｜DSML｜ parameter>\n</｜DSML｜ invoke>'  # noqa: E501
    assert parse(DSML_V41, list(text)).value == {"location": "Paris", "days": 3}
    strict = text.replace("｜ ", "｜")
    start = strict.index("Paris")
    assert parse(DSML, strict).value == {"location": strict[start : strict.index("</")]}


@pytest.mark.parametrize(
    "layout", [GLM, MINIMAX, DSML, KIMI_K3, SEED_OSS], ids=["glm", "minimax", "dsml", "k3", "seed"]
)
def test_layouts_without_tolerance_need_the_closing_tag(layout: Layout) -> None:
    text = render(layout, [Arg("location", "string", "Paris")])
    broken = text.replace(layout.value_close, "")
    outcome = parse(layout, broken)
    assert outcome.run.status is FAILED
    assert outcome.run.error is not None and outcome.run.error.at_end_of_input


# -- typing -------------------------------------------------------------------------------------

TYPED = {
    "type": "object",
    "properties": {
        "n": {"type": "integer"},
        "f": {"type": "number"},
        "b": {"type": "boolean"},
        "z": {"type": ["integer", "null"]},
        "s": {"type": "string"},
        "a": {"type": "array"},
        "o": {"type": "object"},
        "u": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    },
}


@pytest.mark.parametrize(
    ("key", "raw", "value"),
    [
        ("n", "42", 42),
        ("f", "2.5", 2.5),
        ("f", "2", 2),
        ("b", "True", True),
        ("z", "null", None),
        ("z", "7", 7),
        ("s", "3", "3"),
        ("s", "null", "null"),
        ("s", "  padded\t", "  padded\t"),
        ("a", '[1, "two", null]', [1, "two", None]),
        ("o", "{'unit': 'celsius', 'ok': True}", {"unit": "celsius", "ok": True}),
        ("u", "12", 12),
        ("u", "twelve", "twelve"),
        ("undeclared", "12", "12"),
    ],
)
def test_values_are_typed_by_the_schema(key: str, raw: str, value: Any) -> None:
    for layout in (QWEN3_CODER, GLM, MINIMAX):
        text = render(layout, [Arg(key, "string", raw)])
        outcome = parse(layout, list(text), TYPED)
        check(outcome, {key: value}, text.rindex(layout.end))
        assert outcome.value.problems == []


def test_a_value_that_does_not_convert_stays_a_string_and_is_reported() -> None:
    text = "<parameter=n>\n2026-01-15\n</parameter>\n<parameter=b>\nyes\n</parameter>\n</function>"
    outcome = parse(QWEN3_CODER, list(text), TYPED)
    check(outcome, {"n": "2026-01-15", "b": "yes"}, text.rindex("</f"))
    arguments = outcome.value
    assert isinstance(arguments, Arguments)
    assert arguments.problems == [
        'argument `n`: expected integer, got "2026-01-15"; kept as a string',
        'argument `b`: expected boolean, got "yes"; kept as a string',
    ]


def test_kimi_k3_types_from_the_type_attribute_and_decodes_entities() -> None:
    text = (
        '<|open|>argument key="a&quot;b&amp;quot;" type="number"<|sep|>3.5<|close|>argument<|sep|>'
        '<|open|>argument key="s" type="string"<|sep|>&quot;raw&amp; <|close|>argument<|sep|>'
        '<|open|>argument key="z" type="null"<|sep|>null<|close|>argument<|sep|>'
        '<|open|>argument key="bad" type="number"<|sep|>many<|close|>argument<|sep|>'
        "<|close|>call<|sep|>"
    )
    outcome = parse(KIMI_K3, list(text), None)
    expected = {'a"b&quot;': 3.5, "s": "&quot;raw&amp; ", "z": None, "bad": "many"}
    check(outcome, expected, text.rindex("<|close|>call"))
    assert outcome.value.problems == [
        'argument `bad`: expected number, got "many"; kept as a string'
    ]


def test_dsml_string_attribute_overrides_the_schema() -> None:
    text = (
        '<｜DSML｜parameter name="s" string="false">{"k": [1]}</｜DSML｜parameter>\n'
        '<｜DSML｜parameter name="n" string="true">42</｜DSML｜parameter>\n'
        '<｜DSML｜parameter name="u">13</｜DSML｜parameter>\n'
        "</｜DSML｜invoke>"
    )
    outcome = parse(DSML, list(text), TYPED)
    check(outcome, {"s": {"k": [1]}, "n": "42", "u": 13}, text.rindex("</｜DSML｜invoke>"))


def test_big_and_nested_json_values_are_exact() -> None:
    text = '<parameter=a>\n[123456789012345678901234567890, {"x": [[]]}]\n</parameter>\n</function>'
    check(
        parse(QWEN3_CODER, text, TYPED),
        {"a": [123456789012345678901234567890, {"x": [[]]}]},
        text.rindex("</f"),
    )


# -- verbatim text ------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
def test_code_cjk_and_emoji_are_kept_verbatim(layout: Layout) -> None:
    code = "\n  def 函数():\n\treturn \"😀\\n\" + 'é'  \n\n"
    text = render(layout, [Arg("content", "string", code)])
    check(parse(layout, list(text)), {"content": code}, text.rindex(layout.end))


@pytest.mark.parametrize("layout", [QWEN3_CODER, SEED_OSS], ids=["qwen3_coder", "seed_oss"])
def test_qwen_and_seed_strip_exactly_one_framing_newline_each_side(layout: Layout) -> None:
    cases = {"\n\n\n": "\n", "\n\n": "", "\n": "", "": "", "x": "x", "\nx": "x", "x\n": "x"}
    for body, value in cases.items():
        text = f"<parameter=content>{body}</parameter></function>"
        assert parse(layout, list(text)).value == {"content": value}, body


def test_glm_accepts_any_whitespace_between_tags() -> None:
    text = " <arg_key>path</arg_key> \n\t<arg_value> a </arg_value><arg_key>x</arg_key><arg_value></arg_value>\n</tool_call>"  # noqa: E501
    assert parse(GLM, list(text)).value == {"path": " a ", "x": ""}


def test_bare_keys_are_stripped() -> None:
    assert parse(GLM, "<arg_key> path </arg_key><arg_value>p</arg_value></tool_call>").value == {
        "path": "p"
    }


def test_dsml_spelling_is_configurable() -> None:
    leaked = dsml(" | DSML | ")
    text = '< | DSML | parameter name="a" string="true">1</ | DSML | parameter></ | DSML | invoke>'
    assert parse(leaked, text).value == {"a": "1"}


def test_a_long_value_arrives_in_small_deltas() -> None:
    code = "".join(f"    line_{i} = '<tag>' + \"</parameter\" + str({i})\n" for i in range(3000))
    text = f"<parameter=content>\n{code}\n</parameter>\n</function>"
    chunks = [text[i : i + 4] for i in range(0, len(text), 4)]
    check(parse(QWEN3_CODER, chunks), {"content": code}, text.rindex("</f"))


# -- failures -----------------------------------------------------------------------------------


def failure(layout: Layout, text: str, parameters: Any = WEATHER) -> Any:
    outcomes = [parse(layout, text, parameters), parse(layout, list(text), parameters)]
    errors = [outcome.run.error for outcome in outcomes]
    assert errors[0] is not None and errors[1] is not None
    first, second = ((e.position, e.expected, e.context, e.at_end_of_input) for e in errors)
    assert first == second
    return errors[0]


def test_duplicate_keys_fail() -> None:
    text = "<parameter=path>\n1\n</parameter>\n<parameter=path>\n2\n</parameter>\n</function>"
    error = failure(QWEN3_CODER, text)
    assert "duplicate argument `path`" in error.expected
    assert error.position == text.rindex("path>") + 4
    assert error.context == (ARGUMENT, ARGUMENT_NAME)


def test_truncation_inside_a_value_names_the_argument_and_the_closing_tag() -> None:
    error = failure(MINIMAX, '<parameter name="location">Par')
    assert error.at_end_of_input
    assert error.expected == "`</parameter>`"
    assert error.context == (ARGUMENT, ARGUMENT_VALUE)


def test_truncation_after_a_closed_value_expects_the_next_argument_or_the_end() -> None:
    error = failure(QWEN3_CODER, "<parameter=location>\nParis\n</parameter>\n")
    assert error.at_end_of_input
    assert error.expected == "`<parameter=` or `</function>`"
    assert error.context == ()


def test_unexpected_text_fails_where_it_starts() -> None:
    error = failure(QWEN3_CODER, "\n  bye</function>")
    assert (error.position, error.expected) == (3, "`<parameter=` or `</function>`")
    assert not error.at_end_of_input


def test_text_after_a_closing_tag_makes_the_tag_value_text() -> None:
    text = "<parameter=days>\n3\n</parameter>\nbye\n</function>"
    outcome = parse(QWEN3_CODER, text)
    assert outcome.value == {"days": "3\n</parameter>\nbye"}
    assert outcome.value.problems == [
        'argument `days`: expected integer, got "3\\n</parameter>\\nbye"; kept as a string'
    ]


@pytest.mark.parametrize(
    ("layout", "text", "position", "expected"),
    [
        (QWEN3_CODER, "<parameter=a\nb>", 12, "`>`"),
        (QWEN3_CODER, "<parameter=  >x</parameter></function>", 13, "an argument name"),
        (GLM, "<arg_key>a</arg_key>\n<arg_vaule>", 28, "`<arg_value>`"),
        (MINIMAX, '<parameter name=x">', 16, "an attribute or `>`"),
        (MINIMAX, '<parameter nam="x">v</parameter></invoke>', 18, "attribute `name`"),
        (KIMI_K3, '<|open|>argument key="a" type="string"|sep|>', 38, "an attribute or `<|sep|>`"),
    ],
)
def test_malformed_tags_fail_at_the_first_impossible_character(
    layout: Layout, text: str, position: int, expected: str
) -> None:
    error = failure(layout, text)
    assert (error.position, error.expected) == (position, expected)
