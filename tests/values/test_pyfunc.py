"""Pseudo-function calls: values as Python evaluates the literals, streamed JSON argument text,
need-more on every prefix and errors at the same position under every chunking."""

from __future__ import annotations

import ast
import json
import keyword
import operator
import tokenize
import unicodedata
import warnings
from dataclasses import dataclass
from io import StringIO
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from protocall.combinators import (
    DONE,
    FAILED,
    NEED_MORE,
    Close,
    Item,
    Open,
    Parser,
    Run,
    Text,
    alt,
    end_of_input,
    until,
)
from protocall.combinators.result import describe_expected
from protocall.testing import chunkings
from protocall.values import (
    python_call,
    python_calls,
    python_name,
)

# -- running ---------------------------------------------------------------------------------


@dataclass
class Outcome:
    status: Any
    value: Any
    position: int | None
    expected: str | None
    items: list[Item]


def feed(parser: Parser[Any], chunks: list[str], finish: bool = True) -> Outcome:
    run: Run[Any] = parser.run()
    items: list[Item] = []
    for chunk in chunks:
        if run.status is FAILED:
            break
        run.feed(chunk)
        items += run.take()
    if finish and run.status is not FAILED:
        run.finish()
        items += run.take()
    error = run.error
    return Outcome(
        run.status,
        run.value,
        None if error is None else error.position,
        None if error is None else error.expected,
        items,
    )


def whole(text: str, chunks: list[str] | None = None) -> Outcome:
    """`python_calls()` over the whole text (nothing may follow the list)."""
    return feed(python_calls() << end_of_input, chunks or [text])


def argument_texts(items: list[Item]) -> list[str]:
    """The concatenated `Text` of each `tool_arguments` node."""
    texts: list[str] = []
    inside = False
    for item in items:
        if isinstance(item, Open) and item.tag == "tool_arguments":
            inside = True
            texts.append("")
        elif isinstance(item, Close) and item.tag == "tool_arguments":
            inside = False
        elif isinstance(item, Text) and inside:
            texts[-1] += item.text
    return texts


def shape(items: list[Item]) -> list[Any]:
    """Items with adjacent text merged and text offsets dropped: the chunking-invariant view."""
    merged: list[Any] = []
    for item in items:
        if isinstance(item, Text):
            if merged and merged[-1][0] == "text":
                merged[-1] = ("text", merged[-1][1] + item.text)
            else:
                merged.append(("text", item.text))
        else:
            merged.append(tuple(item))
    return merged


def canonical(value: Any) -> str:
    """Distinguishes 1, 1.0 and True, -0.0 and 0.0, and key order."""
    return json.dumps(value, ensure_ascii=False)


# -- the reference: Python's own parser and `ast.literal_eval` ---------------------------------


class Unsupported(Exception):
    """Python accepts the text, but it is outside the documented subset."""


class _JsonNames(ast.NodeTransformer):
    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in ("true", "false", "null"):
            return ast.Constant({"true": True, "false": False, "null": None}[node.id])
        return node


class _SetsAsLists(ast.NodeTransformer):
    """A set display as the list of its distinct elements in the order written."""

    def visit_Set(self, node: ast.Set) -> ast.AST:
        kept, seen = [], set()
        for element in node.elts:
            key = ast.literal_eval(element)
            if key not in seen:
                seen.add(key)
                kept.append(self.visit(element))
        return ast.List(kept, ast.Load())


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise ValueError("non-string key")
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, complex | bytes | set | frozenset):
        raise ValueError("not JSON")
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        raise ValueError("infinite")
    if isinstance(value, str):
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return value


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return _dotted(node.value) + "." + node.attr
    raise Unsupported("callee is not a dotted name")


def reference(src: str) -> list[tuple[str, dict[str, Any]]]:
    """The calls Python reads in `src`; SyntaxError/ValueError when Python (or JSON) rejects
    them, `Unsupported` for the documented exceptions."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ast.parse(src, mode="eval")
        tokens = list(tokenize.generate_tokens(StringIO(src).readline))
    lines = StringIO(src).readlines()  # the lines tokenize counts
    starts = [sum(map(len, lines[:row])) for row in range(len(lines) + 1)]
    outside_strings = src
    for t in tokens:
        if t.type == tokenize.STRING:
            start, end = starts[t.start[0] - 1] + t.start[1], starts[t.end[0] - 1] + t.end[1]
            outside_strings = outside_strings[:start] + " " * (end - start) + outside_strings[end:]
    if "#" in outside_strings or "\\" in outside_strings:
        raise Unsupported("comment or line continuation")
    if not isinstance(tree.body, ast.List):
        raise ValueError("not a list")
    calls = []
    for call in tree.body.elts:
        if not isinstance(call, ast.Call) or call.args:
            raise ValueError("not a keyword-only call")
        name = _dotted(call.func)
        if unicodedata.normalize("NFKC", ast.get_source_segment(src, call.func) or "") != name:
            raise Unsupported("whitespace or parentheses inside the name")
        arguments = {}
        for argument in call.keywords:
            if argument.arg is None:
                raise ValueError("** argument")
            for node in ast.walk(argument.value):
                if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
                    segment = ast.get_source_segment(src, node) or ""
                    if segment.lstrip("+- \t\n\r\f").startswith("("):
                        raise Unsupported("sign before a parenthesis")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = _JsonNames().visit(argument.value)
                ast.literal_eval(value)  # Python's verdict, sets' elements hashable included
                literal = ast.literal_eval(_SetsAsLists().visit(value))
            arguments[argument.arg] = _jsonable(literal)
        calls.append((name, arguments))
    return calls


# -- generated calls -------------------------------------------------------------------------

WHITESPACE = st.sampled_from(["", " ", "  ", "\n", "\t", "\r\n", "\f", "\n    "])
SOME_WHITESPACE = st.sampled_from([" ", "\n", "\t ", "\r\n"])
ESCAPES = {
    "\\": "\\\\",
    "'": "\\'",
    '"': '\\"',
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
}
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=10)


def escape_forms(char: str) -> list[str]:
    code = ord(char)
    forms = [ESCAPES[char]] if char in ESCAPES else []
    if code < 0x100:
        forms += [f"\\x{code:02x}", f"\\x{code:02X}"]
    if code < 0x200:
        forms.append(f"\\{code:03o}")
    if code < 0x10000:
        forms.append(f"\\u{code:04x}")
    forms.append(f"\\U{code:08x}")
    name = unicodedata.name(char, None)
    if name is not None:
        forms.append(f"\\N{{{name}}}")
    return forms


@st.composite
def string_literal(draw: st.DrawFn) -> str:
    quote = draw(st.sampled_from(["'", '"', "'''", '"""']))
    q, triple = quote[0], len(quote) == 3
    raw = draw(st.booleans())
    choose = draw(st.randoms(use_true_random=True))  # cheap choices of escape spellings
    tokens = []  # each a source character or a whole escape
    for char in draw(TEXT):
        awkward = char in (q, "\\", "\r", "\x00") or (char == "\n" and not triple)
        if raw:
            if not awkward:
                tokens.append(char)
            elif char in (q, "\\"):
                tokens.append("\\" + char)  # kept with its backslash in a raw string
        elif awkward or choose.random() < 0.25:
            tokens.append(choose.choice(escape_forms(char)))
        else:
            tokens.append(char)
        if not raw and choose.random() < 0.125:
            tokens.append(choose.choice(["\\\n", "\\d", "\\8", "\\ ", "\\%"]))
    if triple and draw(st.booleans()):
        # A lone unescaped quote inside a triple-quoted body (never next to another quote).
        tokens.append("x")
        at = draw(st.integers(0, len(tokens) - 1))
        if not (at and tokens[at - 1].endswith(q)) and not tokens[at].startswith(q):
            tokens.insert(at, q)
    prefix = draw(st.sampled_from(["r", "R"] if raw else ["", "u", "U"]))
    return prefix + quote + "".join(tokens) + quote


@st.composite
def strings(draw: st.DrawFn) -> str:
    parts = draw(st.lists(string_literal(), min_size=1, max_size=3))
    return "".join(part + draw(SOME_WHITESPACE) for part in parts[:-1]) + parts[-1]


@st.composite
def integer(draw: st.DrawFn) -> str:
    n = draw(st.integers(0, 10**25))
    form = draw(st.sampled_from(["decimal", "grouped", "hex", "octal", "binary", "zeros"]))
    if form == "grouped":
        return f"{n:_}"
    if form == "zeros":
        return draw(st.sampled_from(["0", "00", "0_0", "000"]))
    if form == "decimal":
        return str(n)
    mark, spec = {"hex": ("xX", "x"), "octal": ("oO", "o"), "binary": ("bB", "b")}[form]
    underscore = draw(st.sampled_from(["", "_"]))
    return "0" + draw(st.sampled_from(mark)) + underscore + format(n, spec)


@st.composite
def floating(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        return repr(draw(st.floats(min_value=0, allow_nan=False, allow_infinity=False)))
    whole_part = draw(st.sampled_from(["", "0", "00", "7", "12", "0_7", "007", "1_000", "98765"]))
    fraction = draw(st.sampled_from(["", "0", "5", "25", "1_5", "000001"]))
    exponent = draw(st.sampled_from(["", "e5", "E-3", "e+10", "e0_1", "E300", "e-300"]))
    assume(whole_part or fraction)
    if exponent and not fraction and draw(st.booleans()):
        assume(whole_part)
        return whole_part + exponent  # `7e5`: a float without a point
    return f"{whole_part}.{fraction}{exponent}"


@st.composite
def number(draw: st.DrawFn) -> str:
    sign = draw(st.sampled_from(["", "-", "+", "- "]))
    return sign + draw(st.one_of(integer(), floating()))


CONSTANTS = st.sampled_from(["True", "False", "None", "true", "false", "null"])
SCALARS = st.one_of(strings(), number(), CONSTANTS)


@st.composite
def sequence(draw: st.DrawFn, inner: st.SearchStrategy[str], brackets: str) -> str:
    items = draw(st.lists(inner, max_size=3))
    if brackets == "{}":
        items = [draw(strings()) + draw(WHITESPACE) + ":" + draw(WHITESPACE) + v for v in items]
    separators = [draw(WHITESPACE) + "," + draw(WHITESPACE) for _ in items]
    body = "".join(item + sep for item, sep in zip(items, separators, strict=True))
    if items and draw(st.booleans()):
        body = body[: -len(separators[-1])]  # no trailing comma
    return brackets[0] + draw(WHITESPACE) + body + draw(WHITESPACE) + brackets[1]


@st.composite
def set_display(draw: st.DrawFn, elements: st.SearchStrategy[str]) -> str:
    """A set of hashable `elements`, duplicates likely (`{}` is a dict: never empty)."""
    items = draw(st.lists(elements, min_size=1, max_size=4))
    items += draw(st.lists(st.sampled_from(items), max_size=2))
    separators = [draw(WHITESPACE) + "," + draw(WHITESPACE) for _ in items]
    body = "".join(item + sep for item, sep in zip(items, separators, strict=True))
    if draw(st.booleans()):
        body = body[: -len(separators[-1])]  # no trailing comma
    return "{" + draw(WHITESPACE) + body + draw(WHITESPACE) + "}"


LITERALS = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        set_display(SCALARS),
        sequence(inner, "[]"),
        sequence(inner, "()"),
        sequence(inner, "{}"),
        inner.map("({})".format),
    ),
    max_leaves=5,
)
LETTERS = "abcxyzABCXYZ_"
IDENTIFIER = st.one_of(
    st.builds(operator.add, st.sampled_from(LETTERS), st.text(LETTERS + "0129", max_size=5)),
    st.sampled_from(["é", "λx", "ﬁle", "Ωmega", "straße", "_0"]),
).filter(lambda name: not keyword.iskeyword(name))


@st.composite
def call(draw: st.DrawFn) -> str:
    name = ".".join(draw(st.lists(IDENTIFIER, min_size=1, max_size=3)))
    keys = draw(
        st.lists(IDENTIFIER, max_size=3, unique_by=lambda k: unicodedata.normalize("NFKC", k))
    )
    arguments = [
        k + draw(WHITESPACE) + "=" + draw(WHITESPACE) + draw(LITERALS) + draw(WHITESPACE)
        for k in keys
    ]
    trailing = "," if arguments and draw(st.booleans()) else ""
    space = draw(st.sampled_from(["", " "]))
    return f"{name}{space}({draw(WHITESPACE)}{','.join(arguments)}{trailing}{draw(WHITESPACE)})"


@st.composite
def call_list(draw: st.DrawFn) -> str:
    calls = draw(st.lists(call(), max_size=3))
    separator = draw(WHITESPACE) + "," + draw(WHITESPACE)
    trailing = "," if calls and draw(st.booleans()) else ""
    return f"[{draw(WHITESPACE)}{separator.join(calls)}{trailing}{draw(WHITESPACE)}]"


# -- properties ------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_values_are_what_python_reads_under_every_chunking(data: st.DataObject) -> None:
    src = data.draw(call_list())
    expected = reference(src)
    one_shot = whole(src)
    chunked = whole(src, data.draw(chunkings(src)))
    for outcome in (one_shot, chunked):
        assert outcome.status is DONE, outcome.expected
        assert canonical(outcome.value) == canonical(expected)
    assert shape(chunked.items) == shape(one_shot.items)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_argument_text_is_the_arguments_json(data: st.DataObject) -> None:
    src = data.draw(call_list())
    outcome = whole(src, data.draw(chunkings(src)))
    texts = argument_texts(outcome.items)
    arguments = [args for _, args in outcome.value]
    assert texts == [json.dumps(args, ensure_ascii=False) for args in arguments]
    assert [json.loads(text) for text in texts] == arguments


@settings(max_examples=60, deadline=None)
@given(src=call_list())
def test_every_proper_prefix_needs_more(src: str) -> None:
    run = python_calls().run()
    for char in src:
        assert run.status is NEED_MORE
        run.feed(char)
    assert run.status is DONE
    assert run.end == len(src)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_truncated_call_list_fails_at_the_end(data: st.DataObject) -> None:
    src = data.draw(call_list())
    cut = data.draw(st.integers(0, len(src) - 1))
    outcome = feed(python_calls(), [src[:cut]])
    assert outcome.status is FAILED
    assert outcome.position == cut


MUTATION_CHARS = st.sampled_from(list("\"'()[]{},=:.\\ \n\t0123456789abexyzTFNtrunfl_+-jN%"))


@st.composite
def mutated(draw: st.DrawFn) -> str:
    src = draw(call_list())
    at = draw(st.integers(0, len(src)))
    kind = draw(st.sampled_from(["insert", "replace", "delete"]))
    if kind == "insert":
        return src[:at] + draw(MUTATION_CHARS) + src[at:]
    after = at + 1 if kind == "replace" or at < len(src) else at
    return src[:at] + (draw(MUTATION_CHARS) if kind == "replace" else "") + src[after:]


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_mutations_are_judged_as_python_judges_them(data: st.DataObject) -> None:
    src = data.draw(mutated())
    assume(src.strip(" \t\n\r\f") == src)  # the parser consumes no surrounding whitespace
    one_shot = whole(src)
    chunked = whole(src, data.draw(chunkings(src)))
    outcome = (one_shot.status, one_shot.position, one_shot.expected)
    assert (chunked.status, chunked.position, chunked.expected) == outcome
    try:
        expected = reference(src)
    except Unsupported:
        assert one_shot.status is FAILED
        return
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        if one_shot.status is DONE:  # Python keywords are accepted as names
            names = [part for name, args in one_shot.value for part in [*name.split("."), *args]]
            assert any(keyword.iskeyword(name) for name in names), src
        return
    assert one_shot.status is DONE, (src, one_shot.position, one_shot.expected)
    assert canonical(one_shot.value) == canonical(expected)
    assert canonical(chunked.value) == canonical(expected)


# -- streaming -------------------------------------------------------------------------------


def test_formats_example() -> None:
    src = '[get_weather(location="Paris", days=3), get_time(zone="Europe/Paris")]'
    outcome = whole(src)
    assert outcome.value == [
        ("get_weather", {"location": "Paris", "days": 3}),
        ("get_time", {"zone": "Europe/Paris"}),
    ]
    assert argument_texts(outcome.items) == [
        '{"location": "Paris", "days": 3}',
        '{"zone": "Europe/Paris"}',
    ]


def test_the_name_is_announced_only_once_its_paren_arrives() -> None:
    run = python_calls().run()
    run.feed("[get_weather")
    assert run.take() == []
    run.feed("_forecast ")
    assert run.take() == []
    run.feed("(")
    assert run.take() == [
        Open("tool_call", 1),
        Open("tool_name", 1),
        Close("tool_name", 21, "get_weather_forecast"),
        Open("tool_arguments", 22),
        Text("{", 22),
    ]


def streamed(deltas: list[str]) -> list[str]:
    """The argument text each delta released."""
    run = python_calls().run()
    released = []
    for delta in deltas:
        run.feed(delta)
        released.append("".join(i.text for i in run.take() if isinstance(i, Text)))
    return released


def test_a_string_value_streams_as_it_arrives() -> None:
    assert streamed(['[f(a="hel', "lo wor", "ld\\", 'n"', " ", ")]"]) == [
        '{"a": "hel',
        "lo wor",
        "ld",
        "\\n",
        "",
        '"}',
    ]


def test_implicit_concatenation_streams_as_one_json_string() -> None:
    assert streamed(['[f(a="ab"', " 'cd'", ")]"]) == ['{"a": "ab', "cd", '"}']


def test_numbers_and_constants_appear_once_complete() -> None:
    assert streamed(["[f(a=12", "3", ", b=Tr", "ue", ")]"]) == [
        "{",
        "",
        '"a": 123',
        "",
        ', "b": true}',
    ]


def test_escapes_appear_once_complete() -> None:
    assert streamed(['[f(a="x\\u00', "e9\\N{BUL", 'LET}"', ")]"]) == ['{"a": "x', "é", "•", '"}']


def test_a_long_string_is_one_piece_per_delta() -> None:
    body = "abc xyz " * 25_000
    src = f'[f(content="{body}")]'
    deltas = [src[i : i + 4] for i in range(0, len(src), 4)]
    outcome = whole(src, deltas)
    pieces = [i for i in outcome.items if isinstance(i, Text)]
    assert len(pieces) <= len(deltas) + 2
    assert outcome.value == [("f", {"content": body})]
    one_shot = [i.text for i in whole(src).items if isinstance(i, Text)]
    assert one_shot == ["{", '"content": "', body, '"', "}"]


def test_a_string_prefix_split_from_its_quote_survives_a_buffer_release() -> None:
    src = f'[f(a="{"x" * 600}" r' + "'y')]"
    at = src.index(" r") + 2
    assert whole(src, [src[:at], src[at:]]).value == [("f", {"a": "x" * 600 + "y"})]


def test_tag_names_are_parameters() -> None:
    outcome = feed(python_call(call_tag="c", name_tag="n", arguments_tag="a"), ["f(x=1)"])
    assert [i.tag for i in outcome.items if not isinstance(i, Text)] == [
        "c",
        "n",
        "n",
        "a",
        "a",
        "c",
    ]
    assert outcome.items[-1] == Close("c", 6, ("f", {"x": 1}))


def test_a_failed_branch_leaves_no_items() -> None:
    outcome = feed(alt(python_calls(), until("\0")), ["[f(a=1) and more"])
    assert outcome.value == "[f(a=1) and more"
    assert [i for i in outcome.items if not isinstance(i, Text)] == []


# -- the grammar -----------------------------------------------------------------------------


def value(literal: str) -> Any:
    outcome = whole(f"[f(v={literal})]")
    assert outcome.status is DONE, outcome.expected
    return outcome.value[0][1]["v"]


def failure(src: str) -> tuple[int | None, str | None]:
    outcome = whole(src)
    assert outcome.status is FAILED
    return outcome.position, outcome.expected


@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        ('"a" "b"', "ab"),
        ('"a""b"', "ab"),
        ("'''it's'''", "it's"),
        ('"""a "" b"""', 'a "" b'),
        ('"""a\r\nb\rc"""', "a\nb\nc"),
        ('"a\\\nb"', "ab"),
        ('r"\\d\\""', '\\d\\"'),
        ('"\\d\\8"', "\\d\\8"),
        ('"\\0\\101\\1012"', "\x00AA2"),
        ('"\\N{latin small letter e with acute}"', "é"),
        ('"\\ud83d\\ude00"', "😀"),
        ('"\\ud800"', "\ud800"),
        ("0x_ff", 255),
        ("0o17", 15),
        ("0b1_0", 2),
        ("1_000", 1000),
        ("007.5", 7.5),
        ("0e5", 0.0),
        ("- 3", -3),
        ("+.5", 0.5),
        ("5.", 5.0),
        ("123456789012345678901234567890", 123456789012345678901234567890),
        ("(1)", 1),
        ("(1,)", [1]),
        ("()", []),
        ('{"a": (1, 2), "b": None, "a": 3}', {"a": 3, "b": None}),
        ("[true, false, null, True]", [True, False, None, True]),
        ('{"b", "a", "b"}', ["b", "a"]),
        ("{1, True, 1.0, 2, (3, 'x'), (3, 'x')}", [1, 2, [3, "x"]]),
        ("{'x',}", ["x"]),
        ('"""a\n"b" \'c\' ""\\x00"""', 'a\n"b" \'c\' ""\x00'),
    ],
)
def test_literals(literal: str, expected: Any) -> None:
    assert canonical(value(literal)) == canonical(expected)


def test_lone_surrogates_are_escaped_in_the_json_text() -> None:
    outcome = whole('[f(a="\\ud800x", b=["\\udfff"])]')
    (text,) = argument_texts(outcome.items)
    assert text == '{"a": "\\ud800x", "b": ["\\udfff"]}'
    assert json.loads(text) == outcome.value[0][1]


def test_names_are_dotted_and_normalised_as_python_does() -> None:
    assert whole("[brave_search.call(ﬁle=1)]").value == [("brave_search.call", {"file": 1})]


def test_python_keywords_are_accepted_as_argument_names() -> None:
    assert whole('[search(from="a", class=1)]').value == [("search", {"from": "a", "class": 1})]


def test_the_empty_list_and_trailing_commas() -> None:
    assert whole("[]").value == []
    assert whole("[ f( a=1, ), g(), ]").value == [("f", {"a": 1}), ("g", {})]


def test_a_single_call_takes_no_surrounding_whitespace() -> None:
    run = python_call().run()
    run.feed('get(a="x") tail')
    assert (run.status, run.value, run.rest) == (DONE, ("get", {"a": "x"}), " tail")
    assert feed(python_call(), [" f()"]).position == 0


@pytest.mark.parametrize(
    ("src", "position", "expected"),
    [
        ('[f("x")]', 3, "`name=value` (positional arguments are not accepted) or `)`"),
        ("[f(x)]", 4, "`=` (positional arguments are not accepted; write `name=value`)"),
        ("[f(a=1, b=2, a=3)]", 13, "a keyword other than `a` (repeated keyword)"),
        ("[f(a=Tru)]", 8, "`True`"),
        ("[f(a=1 b=2)]", 7, "`,` or `)`"),
        ("[f(a=007)]", 8, "a digit, `.` or an exponent (a decimal integer has no leading zeros)"),
        ("[f(a=1_)]", 7, "a digit"),
        ("[f(a={1: 2})]", 7, "`,` (a set; a dict's keys are strings) or `}`"),
        ("[f(a={'k': 1, 2})]", 14, "a string key (JSON object keys are strings) or `}`"),
        ("[f(a={'k', 'v': 2})]", 14, "`,` or `}`"),
        ("[f(a={1, [2]})]", 9, "a hashable literal (a set holds no list, dict or set)"),
        ('[f(a=b"x")]', 5, "a Python literal"),
        ("[f(a=1j)]", 6, "`,` or `)`"),
        ("[f(a=1e999)]", 5, "a finite number (this one overflows a float)"),
        ("[f(a=-(1))]", 6, "a number"),
        ('[f(a="x\ny")]', 7, '`"` (escape newlines in a one-line string)'),
        ('[f(a="""x""""))]', 16, '`"`'),  # a new string opens after the closing quotes
        ('[f(a="\\x4g")]', 9, "a hex digit"),
        ('[f(a="\\U00110000")]', 11, "a code point at most U+10FFFF"),
        ('[f(a="\\N{NO SUCH NAME}")]', 9, "a known Unicode character name"),
        ('[f(a="x" u)]', 10, "`'` or `\"`"),
        ("[f(a=1)", 7, "`,` or `]`"),
        ("[a.(x=1)]", 3, "an identifier"),
        ("[f (x=1) g()]", 9, "`,` or `]`"),
    ],
)
def test_errors(src: str, position: int, expected: str) -> None:
    assert failure(src) == (position, expected)


def test_a_failure_inside_a_call_names_the_open_nodes() -> None:
    run = (python_calls() << end_of_input).run()
    run.feed('[f(a="x')
    run.finish()
    assert run.error is not None
    assert run.error.context == ("tool_call", "tool_arguments")
    assert run.error.at_end_of_input


def test_nesting_is_bounded() -> None:
    deep = "[" * 100 + "]" * 100
    assert whole(f"[f(a={deep})]").status is DONE
    position, expected = failure(f"[f(a=[{deep}])]")
    assert (position, expected) == (105, "a literal nested at most 100 deep")
    outcome = feed(python_calls(max_depth=2), ["[f(a=[[[1]]])]"])
    assert outcome.position == 7


# -- callee names ----------------------------------------------------------------------------

NAMES = ("get_weather", "get", "read-file", "brave_search.call")


@pytest.mark.parametrize(
    ("names", "src", "outcome"),
    [
        (NAMES, "get_weather(", (DONE, "get_weather")),
        (NAMES, "read-file(", (DONE, "read-file")),
        (None, "any-name.x (", (DONE, "any-name.x")),
        (NAMES, "get_weathe[", (10, "a declared tool name (4 declared)")),
        (None, "a-(", (2, "a tool name")),
        (None, "a.(", (2, "a tool name")),
        (None, "1a(", (0, "a tool name")),
        (None, "a" * 256 + "(", (DONE, "a" * 256)),
        (None, "a" * 300, (256, "a tool name of at most 256 characters")),
    ],
)
def test_a_callee_name_is_declared_and_pythonic(
    names: tuple[str, ...] | None, src: str, outcome: tuple[Any, str]
) -> None:
    result = feed(python_name(names), [src])
    if outcome[0] is DONE:
        assert (result.status, result.value) == outcome
    else:
        assert (result.position, result.expected) == outcome


@settings(max_examples=300, deadline=None)
@given(st.text("get_wahr.-1[( ", max_size=14), st.sampled_from([NAMES, None]))
def test_a_callee_name_glance_is_what_the_name_does(text: str, names: Any) -> None:
    """Where the first characters decide the name (matched, or failed where and expecting
    what), running it on any input that starts with them does the same; where the glance
    waits, the name needs more."""
    parser = python_name(names)
    for size in range(1, len(text) + 1):
        window = text[:size]
        glance = parser.glance(window)
        assert glance is not None
        if glance.waits:
            assert feed(parser, [window], finish=False).status is NEED_MORE
            continue
        for rest in ("", "(", " x"):
            result = feed(parser, [window + rest])
            if glance.fails:
                assert glance.expected is not None
                assert (result.position, result.expected) == (
                    glance.at,
                    describe_expected(glance.expected),
                )
            else:
                assert (result.status, len(result.value)) == (DONE, glance.at)
