"""Formats compiled once per tool set and shared by sessions (`compile.compiled`): the cache,
and that sharing changes no session's result, one after another or on several threads."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
import threading
import weakref
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocall import formats
from protocall.blocks.calls import closer
from protocall.blocks.names import loose
from protocall.blocks.turns import ToolUse, Turn
from protocall.combinators import UsageError, literal
from protocall.compile.compiled import cache_info, clear_cache, compiled, set_cache_size
from protocall.formats import Format
from protocall.session import Session
from protocall.shortcuts.cache import built_once
from protocall.testing.chunks import chunkings
from protocall.testing.degenerate import TOOLS, call_opener, degenerate_inputs
from protocall.testing.strategies import cases
from protocall.tools import Tool, Tools

NAMES = formats.names()


def weather(name: str = "get_weather") -> dict[str, Any]:
    properties = {"city": {"type": "string"}, "days": {"type": "integer"}}
    parameters = {"type": "object", "properties": properties}
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


@pytest.fixture
def fresh_cache() -> Iterator[None]:
    """An empty cache of the default size, and the same after the test."""
    clear_cache()
    yield
    set_cache_size(256)
    clear_cache()


# -- the cache -----------------------------------------------------------------------------


@pytest.mark.usefixtures("fresh_cache")
def test_sessions_for_the_same_tools_share_one_compiled_grammar() -> None:
    hermes = formats.get("hermes")
    first = compiled(hermes, [weather()], None)
    again = compiled(hermes, [weather()], None)  # equal content, other objects
    assert again is first
    assert hermes.parser([weather()])._run is not hermes.parser([weather()])._run
    assert cache_info().entries == 1 and cache_info().hits >= 1


@pytest.mark.usefixtures("fresh_cache")
def test_the_format_the_start_and_every_part_of_the_tools_tell_compiled_grammars_apart() -> None:
    hermes, qwen = formats.get("hermes"), formats.get("qwen3-coder")
    described = weather()
    described["function"]["description"] = "The weather."
    keys = [
        (hermes, [weather()], None),
        (qwen, [weather()], None),
        (hermes, [weather()], "reasoning"),
        (hermes, [weather("get_forecast")], None),
        (hermes, [described], None),
        (hermes, [weather(), weather("b")], None),
        (hermes, [weather("b"), weather()], None),
        (hermes, None, None),
        (hermes, [], None),
    ]
    grammars = {id(compiled(*key).grammar) for key in keys}
    assert len(grammars) == len(keys)


@pytest.mark.usefixtures("fresh_cache")
def test_tool_sets_whose_json_differs_only_past_the_hashed_sample_stay_apart() -> None:
    hermes = formats.get("hermes")
    many = [weather(f"tool_{i:03}") for i in range(200)]  # some 20 KB of JSON
    other = [*many[:100], weather("tool_ZZZ"), *many[101:]]  # same length, the middle differs
    assert compiled(hermes, many, None) is not compiled(hermes, other, None)
    assert compiled(hermes, [*many], None) is compiled(hermes, many, None)
    assert cache_info().entries == 2


def test_a_bound_parser_is_built_once_per_value_and_anew_for_an_unhashable_one() -> None:
    built: list[Any] = []

    def build(value: Any) -> Any:
        built.append(value)
        return literal(str(value))

    once = built_once(build)
    assert once("a") is once("a") and built == ["a"]
    assert once(["a"]) is not once(["a"]) and len(built) == 3
    for value in range(200):  # more values than it keeps: still one parser per value asked
        assert once(value) is once(value)


@pytest.mark.usefixtures("fresh_cache")
def test_tool_objects_are_keyed_by_content_and_a_tools_mapping_by_identity() -> None:
    hermes = formats.get("hermes")
    tool = Tool("get_weather", {"type": "object"})
    assert compiled(hermes, [tool], None) is compiled(hermes, [Tool(*vars(tool).values())], None)
    assert compiled(hermes, (t for t in [tool]), None).tools == Tools([tool])
    assert compiled(hermes, (tool,), None) is compiled(hermes, [tool], None)  # the same JSON
    declared = Tools([tool])
    assert compiled(hermes, declared, None).tools is declared
    assert compiled(hermes, declared, None) is compiled(hermes, declared, None)
    assert compiled(hermes, Tools([tool]), None) is not compiled(hermes, declared, None)


@pytest.mark.usefixtures("fresh_cache")
def test_the_cache_keeps_the_most_recently_used_up_to_its_size() -> None:
    hermes = formats.get("hermes")
    set_cache_size(2)
    first = compiled(hermes, [weather("a")], None)
    compiled(hermes, [weather("b")], None)
    assert compiled(hermes, [weather("a")], None) is first  # now the most recent
    compiled(hermes, [weather("c")], None)  # evicts `b`
    assert cache_info().entries == 2
    assert compiled(hermes, [weather("a")], None) is first
    misses = cache_info().misses
    compiled(hermes, [weather("b")], None)
    assert cache_info().misses == misses + 1
    set_cache_size(0)
    assert cache_info().entries == 0
    assert compiled(hermes, [weather("a")], None) is not first
    with pytest.raises(UsageError):
        set_cache_size(-1)


@pytest.mark.usefixtures("fresh_cache")
def test_a_format_dropped_never_lends_its_grammar_to_a_later_one() -> None:
    """Formats made and dropped in turn (as detection does), each with its own grammar:
    each session parses its own format (an entry keyed by an object's id would be found
    again by a later object given the same id)."""
    sources = [formats.get("hermes"), formats.get("qwen3-coder")]
    for _ in range(20):
        for source in sources:
            own = dataclasses.replace(source, grammar=lambda t, s, g=source.grammar: g(t, s))
            text = source.render(Turn(None, (ToolUse("get_weather", {"city": "Paris"}),)), None)
            session = own.parser([weather()])
            session.feed(text)
            session.finish()
            assert [call.name for call in session.message.tool_calls] == ["get_weather"]
            grammar = weakref.ref(own.grammar)
            del own, session
            assert grammar() is not None  # held by its entry: no later object gets its id
    clear_cache()
    assert grammar() is None


@pytest.mark.usefixtures("fresh_cache")
def test_formats_that_differ_but_in_grammar_share_the_compiled_one() -> None:
    hermes = formats.get("hermes")
    prompted = dataclasses.replace(hermes, prompts={None: "<|im_start|>assistant\n"})
    assert compiled(prompted, [weather()], None) is compiled(hermes, [weather()], None)


@pytest.mark.usefixtures("fresh_cache")
def test_a_bad_schema_is_a_usage_error_every_time_and_nothing_is_kept() -> None:
    bad = {"name": "f", "parameters": {"type": "intger"}}
    for _ in range(2):
        with pytest.raises(UsageError, match="intger"):
            formats.get("hermes").parser([bad])
    assert cache_info().entries == 0


@pytest.mark.usefixtures("fresh_cache")
def test_tools_that_are_not_json_data_are_compiled_for_the_one_session() -> None:
    odd = {"name": "f", "parameters": {"type": "object"}, "extra": object()}
    session = formats.get("hermes").parser([odd])
    session.feed('<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>')
    session.finish()
    assert [call.name for call in session.message.tool_calls] == ["f"]
    assert cache_info().entries == 0


# -- sharing changes no result ---------------------------------------------------------------


def result(session: Session, chunks: list[str]) -> str:
    """Every event a session gives for `chunks`, in order, each `feed`'s apart, its
    message and its tree, as text (call ids are random unless seeded)."""
    batches = [session.feed(chunk) for chunk in chunks]
    batches.append(session.finish())
    return re.sub(r"call_\w{24}", "call_…", repr((batches, session.message, session.ast)))


def fresh(fmt: Format, tools: Any, prompt: str | None) -> Session:
    """A session on a grammar compiled for it alone (nothing cached, nothing shared: not
    even the pieces built once per marker text)."""
    loose.cache_clear()
    closer.cache_clear()
    declared = compiled(fmt, tools, fmt.start_state(prompt)).tools
    grammar = fmt.grammar(declared, fmt.start_state(prompt))
    return Session(grammar, declared, seed=0, passthrough_malformed=fmt.malformed_as_content)


def busy_inputs(fmt: Format) -> list[str]:
    """Outputs that make a grammar learn and cache: degenerate loops (failing heads
    repeated), a call cut off, markers, a whole call."""
    opener, head = call_opener(fmt)
    texts = [generate(300) for generate in degenerate_inputs(fmt).values()]
    whole = fmt.render(Turn("Hm.", ("Sure.", ToolUse("get_weather", {"location": "x"}))), None)
    return [*texts, head * 6, opener, whole, whole[: len(whole) // 2], "".join(fmt.reserved)]


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(NAMES), st.data())
def test_a_session_gives_the_same_result_on_a_fresh_or_a_used_grammar(
    name: str, data: st.DataObject
) -> None:
    """A rendered turn, in random chunks: the events of every feed, the message and the
    tree are the same on a grammar compiled for it alone and on the shared one after other
    sessions ran degenerate outputs on it (they learned failing heads and filled caches)."""
    fmt = formats.get(name)
    case = data.draw(cases(fmt))
    chunks = data.draw(chunkings(case.text))
    expected = result(fresh(fmt, case.tools, case.generation_prompt), chunks)
    for text in busy_inputs(fmt):
        used = fmt.parser(case.tools, case.generation_prompt)
        for start in range(0, len(text), 7):
            used.feed(text[start : start + 7])
        used.finish()
    shared = fmt.parser(case.tools, case.generation_prompt, seed=0)
    assert result(shared, chunks) == expected


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_a_degenerate_output_gives_the_same_result_after_others_on_the_shared_grammar(
    name: str,
) -> None:
    """What a run learns stays in the run: each degenerate output (which makes the turn
    learn a failing head) gives the same result on a fresh grammar as on the shared one
    after every other degenerate output ran on it."""
    fmt = formats.get(name)
    inputs = busy_inputs(fmt)
    chunked = [[text[i : i + 3] for i in range(0, len(text), 3)] for text in inputs]
    expected = [result(fresh(fmt, TOOLS, None), chunks) for chunks in chunked]
    for _ in range(2):
        got = [result(fmt.parser(TOOLS, seed=0), chunks) for chunks in chunked]
        assert got == expected


CONCURRENT = ["hermes", "qwen3-coder", "kimi-k2", "deepseek-v3.2", "glm-4.7", "gpt-oss", "llama-3"]


def described(tools: list[dict[str, Any]], description: str) -> list[dict[str, Any]]:
    """`tools` with `description` in each: another tool set, read alike."""
    return [{**t, "function": {**t["function"], "description": description}} for t in tools]


@pytest.mark.parametrize("tool_sets", [1, 2])
def test_sessions_on_several_threads_give_what_they_give_one_at_a_time(tool_sets: int) -> None:
    """Many sessions over the same compiled formats, on four threads switching as often as
    the interpreter allows, fed per character: each result equals the result of the same
    session run alone (`threads_agree`). With two tool sets (alike but for their
    descriptions), the sessions alternate between two compiled grammars of each format,
    which share the pieces built once per marker text.

    The check runs in a process of its own, with faulthandler on: the native thread pools
    of what the rest of the suite imports (torch, the servers) stay out of it, and a crash
    fails this test with every thread's stack instead of ending the whole run unexplained."""
    code = f"import test_compiled; test_compiled.threads_agree({tool_sets})"
    child = [sys.executable, "-X", "faulthandler", "-c", code]
    done = subprocess.run(child, cwd=Path(__file__).parent, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-6000:]


def threads_agree(tool_sets: int) -> None:
    """The check of the test above, in the process that runs it."""
    work = []
    for name in CONCURRENT:
        fmt = formats.get(name)
        for text in busy_inputs(fmt):
            work.append((fmt, list(text)))
    sets = [TOOLS, described(TOOLS, "another tool set")][:tool_sets]
    alone = [result(fmt.parser(TOOLS, seed=0), chunks) for fmt, chunks in work]
    clear_cache()  # the threads compile and fill the caches themselves, racing
    loose.cache_clear()
    closer.cache_clear()
    barrier = threading.Barrier(4)

    def run(share: int) -> list[tuple[int, str]]:
        barrier.wait()
        return [
            (index, result(fmt.parser(sets[index % tool_sets], seed=0), chunks))
            for index, (fmt, chunks) in enumerate(work)
            if index % 4 == share
        ]

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with ThreadPoolExecutor(4) as pool:
            together = dict(pair for part in pool.map(run, range(4)) for pair in part)
    finally:
        sys.setswitchinterval(interval)
    assert [together[index] for index in range(len(work))] == alone


# -- validators: a quick check for the usual schema shapes --------------------------------------

LEAVES = st.one_of(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["string", "integer", "number", "boolean", "null", "array"])},
        optional={
            "minimum": st.integers(-3, 3) | st.floats(-3, 3),
            "maxLength": st.integers(0, 3),
            "description": st.just("d"),
        },
    ),
    st.fixed_dictionaries(
        {"enum": st.lists(st.sampled_from(["a", "b", "1", ""]), min_size=1, unique=True)}
    ),
    st.fixed_dictionaries(
        {"type": st.lists(st.sampled_from(["string", "integer", "null"]), min_size=1, unique=True)}
    ),
    st.just({}),
)
SCHEMAS = st.recursive(
    LEAVES,
    lambda inner: (
        st.fixed_dictionaries(
            {
                "type": st.just("object"),
                "properties": st.dictionaries(st.sampled_from("abc"), inner),
            },
            optional={
                "required": st.lists(st.sampled_from("abcd"), unique=True),
                "additionalProperties": st.booleans() | inner,
            },
        )
        | st.fixed_dictionaries({"type": st.just("array"), "items": inner})
    ),
    max_leaves=6,
)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-5, 5) | st.sampled_from("ab1"),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abcd"), inner),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(SCHEMAS, st.dictionaries(st.sampled_from("abcd"), VALUES))
def test_the_quick_check_passes_only_arguments_the_validator_finds_valid(
    properties: dict[str, Any], arguments: dict[str, Any]
) -> None:
    """Where `_quick` says valid, jsonschema finds nothing (where it says nothing, the
    validator decides): the tool's validator gives jsonschema's verdict."""
    import jsonschema

    from protocall.tools import _quick

    schema = {"type": "object", "properties": {"x": properties}, "required": ["x"]}
    quick = _quick(schema)
    assert quick is not None
    valid = not list(jsonschema.Draft202012Validator(schema).iter_errors({"x": arguments}))
    if quick({"x": arguments}):
        assert valid
    noted = Tools([Tool("f", schema)]).validator("f")({"x": arguments})
    assert (noted == ()) == valid


def broken(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """`schema` with one keyword given a value of any JSON kind (valid or not)."""
    keyword = st.sampled_from(
        ["type", "enum", "minimum", "minLength", "required", "items", "description", "default"]
    )
    return st.builds(lambda key, value: {**schema, key: value}, keyword, VALUES)


@settings(max_examples=300, deadline=None)
@given(SCHEMAS.flatmap(lambda schema: st.just(schema) | broken(schema)))
def test_a_schema_skips_the_metaschema_check_only_where_it_would_pass(schema: Any) -> None:
    import jsonschema

    from protocall.tools import _well_formed

    if _well_formed(schema):
        jsonschema.Draft202012Validator.check_schema(schema)


# -- the turn's loop at the end of the input -------------------------------------------------


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(NAMES), st.data())
def test_a_loop_skipping_what_fails_at_the_end_gives_what_running_it_gives(
    name: str, data: st.DataObject
) -> None:
    """A rendered turn, whole or cut anywhere (so the loop ends inside anything), and the
    format's degenerate outputs: the same events, message and tree whether the loops take
    the failure at the end of the input from their scratch run or run the repetition."""
    from protocall.shortcuts import choice

    fmt = formats.get(name)
    case = data.draw(cases(fmt))
    text = case.text[: data.draw(st.integers(0, len(case.text)))]
    texts = [case.text, text, *(generate(40) for generate in degenerate_inputs(fmt).values())]
    chunked = [[text[i : i + 3] for i in range(0, len(text), 3)] for text in texts]

    def results() -> list[str]:
        clear_cache()
        prompt = case.generation_prompt
        return [result(fmt.parser(case.tools, prompt, seed=0), chunks) for chunks in chunked]

    expected = results()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(choice, "_failure_at_end", lambda parser: None)
        assert results() == expected
    clear_cache()


def test_names_a_model_invents_are_not_kept_by_the_shared_grammar() -> None:
    """A compiled format serves every session for its tool set: the argument parsers it
    builds per declared name stay, while each undeclared name a model writes shares one
    parser, so a server's long run of invented names does not grow it."""
    from protocall.blocks.names import per_tool
    from protocall.tools import normalize_tools

    built: list[Any] = []

    def build(schema: Any) -> Any:
        built.append(schema)
        return literal("x")

    for_name = per_tool(normalize_tools([weather()]), build)
    parsers = {for_name(f"invented_{i}") for i in range(1000)}
    assert len(parsers) == 1 and built == [None]
    assert for_name("get_weather") is for_name("get_weather") and len(built) == 2
    assert for_name("get_weather") is not for_name("invented_0")


@pytest.mark.parametrize("name", ["hermes", "qwen3-coder", "kimi-k2"])
def test_sessions_with_invented_names_report_each_call_on_its_own(name: str) -> None:
    """Calls to different undeclared tools, one session after another over one compiled
    format: each is an `unknown_tool` error naming its own tool, its raw text whole."""
    fmt = formats.get(name)
    for index in range(3):
        text = fmt.render(Turn(None, (ToolUse(f"invented_{index}", {"n": index}),)), None)
        session = fmt.parser([weather()])
        session.feed(text)
        session.finish()
        (error,) = session.message.errors
        assert error.code == "unknown_tool" and f"`invented_{index}`" in error.message
        assert f"invented_{index}" in error.raw and str(index) in error.raw
