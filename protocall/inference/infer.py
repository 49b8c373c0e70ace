"""A spec inferred from a template's renders of the probes (`probes`), for templates no
built-in format reads.

From the differences between the renders:

- the end of turn: what follows the content (`roundtrip.Trailer`);
- reasoning: the markers around the probe reasoning, and whether the generation prompt
  pre-opens the block (it ends with the opener), what it ends with when thinking is off;
  a block only the prompt opens (the history drops reasoning) is the prompt's last tag and
  its closing tag. The block ends at a genuine call too (`Think.ends_at_call`): a
  pre-opened block the model leaves for a call without closing it (Ling 3.0) is read right;
- the call: where the probe call's arguments stand and how they are written — a JSON
  object (`JsonObject`, the name before it `Plain`, an `Attribute` or an `IdName`), a JSON
  object carrying the name (`NameAndArguments`, `NameKey` in an array), keyword arguments
  (`PythonKeywords`) or tag-delimited arguments (`XmlArguments`, its `Layout` read off the
  two arguments' text);
- the section and separators: the one-call and two-call renders share the text before the
  first call and after the last; what stands between the two calls splits into the end of a
  call, a separator and the start of the next, and what is left around them is the section.

What cannot be read this way is a `UsageError` naming it.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, replace
from typing import Any

from ..blocks.names import NAME_CHARS
from ..combinators import UsageError
from ..compile.factory import build
from ..compile.format import Format
from ..spec import Call, Section, Spec, Think
from ..spec.codecs import (
    Attribute,
    Codec,
    IdName,
    JsonObject,
    Name,
    NameAndArguments,
    NameKey,
    Plain,
    PythonKeywords,
    XmlArguments,
)
from ..values.xmlargs import Layout
from .probes import (
    CONTENT,
    CONTENT_ONLY,
    ONE_CALL,
    PROBES,
    REASONING,
    TAG,
    TIME,
    WEATHER,
    Probe,
    Renders,
    call_ids,
    common_prefix,
)
from .roundtrip import Trailer

TWO_CALLS = next(p for p in PROBES if len(p.calls) == 2)
_LAST_TAG = re.compile(r"<([A-Za-z][\w:-]{0,39})>\s*\Z")
_LAST_MARKER = re.compile(r"(<[^<>\s]{1,40}>|\[[^\[\]\s]{1,40}\])\s*\Z")
_FIRST_MARKER = re.compile(r"\s*(<[^<>\s]{1,40}>|\[[^\[\]\s]{1,40}\])")


@dataclass(frozen=True)
class _Core:
    """One call's own text in a render: from `start` (its name, id or object) to `end`
    (its arguments' end), the `template` of that text with placeholders, and its codecs."""

    start: int
    end: int
    template: str
    arguments: Codec
    name: Name
    array: bool = False


@dataclass(frozen=True)
class Inferred:
    """An inferred format, and what it assumes beyond what the renders show."""

    format: Format
    assumptions: tuple[str, ...] = ()


class NotPython(UsageError):
    """The template writes a pythonic call that is not valid Python (a string argument
    unquoted, arguments unseparated): no format reads its history as it writes it."""


def infer(renders: Renders, trailer: Trailer, proof: str = "") -> Inferred:
    """The format the renders of `PROBES` imply (a `UsageError` naming what was not
    understood, `NotPython` for calls that are not valid Python); call objects standing
    bare, with no marker around them, are proven calls by the registered proof hook
    `proof` (`Call.proof`: what proves one is code, not inferred)."""
    if renders.probes != PROBES:
        raise UsageError("a spec is inferred from the renders of the standard probes only")
    if not trailer.stop:
        raise UsageError(
            "no end-of-turn marker: the template writes nothing after an assistant turn "
            "(give its eos_token)"
        )
    lead = _lead(renders, trailer)
    one = _body(renders, ONE_CALL, lead, trailer)
    core = _core(one, WEATHER)
    before, after = one[: core.start], one[core.end :]
    two = _body(renders, TWO_CALLS, lead, trailer) if renders.turn(TWO_CALLS) else None
    call_before, call_after, between = before, after, ""
    if two is not None:
        call_before, call_after, between = _split_gap(two, core, before, after)
    section_begin = before[: len(before) - len(call_before)]
    section_end = after[len(call_after) :]
    template = call_before + core.template + call_after.rstrip()
    between = between or call_after[len(call_after.rstrip()) :]  # written between calls only
    section = None
    if core.array:
        begin, end = (
            section_begin.rstrip().removesuffix("["),
            section_end.lstrip().removeprefix("]"),
        )
        if not begin.strip():
            raise UsageError(f"a JSON array of calls with no marker before it: {one!r}")
        section = Section((begin,), (end,) if end.strip() else (), array=True)
        template = "{call}"
    elif section_begin.strip() and section_end.strip():
        section = Section((section_begin,), (section_end,))
    elif section_begin.strip():
        raise UsageError(f"calls after {section_begin.strip()!r} with no end in {one!r}")
    stops: tuple[str, ...] = (trailer.stop,)
    call_stop = None
    if section is None and section_end.strip():  # the turn ends otherwise after calls
        call_stop = section_end.strip()
        stops = (trailer.stop, call_stop)
    turn, prompt, start = _reasoning(renders, lead, trailer)
    empty_block = () if turn is None else (turn.open + turn.close, turn.close)
    opener = None
    if "".join(lead.split()) not in ("", *empty_block):
        opener = content_opener(renders, trailer)
    if opener is None and "".join(lead.split()) not in ("", *empty_block):
        raise UsageError(
            f"the template writes {lead.strip()!r} before an answer's content, which is no "
            "reasoning block (channels or headers no spec infers)"
        )
    _check_prompt_text(renders)
    dropped, content_lead = opener_fields(opener)
    spec = Spec(
        name="inferred",
        summary=f"inferred from a chat template: {template!r}",
        call=_with_id_pattern(
            Call(
                template,
                core.arguments,
                name=core.name,
                between=between,
                proof=proof if template == "{call}" and section is None else "",
            )
        ),
        section=section,
        stops=stops,
        call_stop=call_stop,
        turn=turn,
        prompt=prompt,
        default_start=start,
        dropped=dropped,
        content_lead=content_lead,
    )
    try:
        fmt = build(spec)
    except UsageError as error:
        raise UsageError(f"the inferred spec does not build: {error}") from None
    written = [*renders.prompts.values(), *(rendered.turn for rendered in renders.turns)]
    if turn is not None and not any(turn.close in text for text in written):
        assumed = f"the block {turn.open} opens ends at {turn.close} (the template never writes it)"
        return Inferred(fmt, (assumed,))
    return Inferred(fmt)


def _lead(renders: Renders, trailer: Trailer) -> str:
    """What the template writes before the content of a turn without reasoning."""
    content = renders.turn(CONTENT_ONLY)
    if content is None or CONTENT not in content.turn:
        raise UsageError("the template does not write an assistant message's content")
    return content.turn[: content.turn.index(CONTENT)]


_ROLE_PREFIX = re.compile(r"[^\s<>\[\]]{1,16}[:：]")
"""A role's name and a colon (Hunyuan A13B's `助手：` in vLLM's example template)."""


def opener_fields(opener: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What drops a content opener, as (`Spec.dropped`, `Spec.content_lead`): a marker
    where it stands, a role prefix where the content begins only."""
    if opener is None:
        return (), ()
    return ((opener,), ()) if TAG.fullmatch(opener) else ((), (opener,))


def content_opener(renders: Renders, trailer: Trailer) -> str | None:
    """The marker the template writes before an answer's content only, not before calls
    (Solar Open's `<|content|>`), or a role prefix written so (`助手：`), which a reader
    drops; None where it writes no such thing."""
    marker = _lead(renders, trailer).strip()
    if not (TAG.fullmatch(marker) or _ROLE_PREFIX.fullmatch(marker)):
        return None
    calls = _body(renders, ONE_CALL, "", trailer)
    return None if calls.lstrip().startswith(marker) else marker


def _check_prompt_text(renders: Renders) -> None:
    """A generation prompt that ends with text (not a marker) added to the header the
    history writes before an answer opens something the history drops (Apriel 1.6's
    `Here are my reasoning steps:`): where it ends cannot be read, so no spec is
    inferred."""
    content = renders.turn(CONTENT_ONLY)
    header = "" if content is None else content.prompt
    for prompt in renders.prompts.values():
        added = prompt[len(header) :] if prompt.startswith(header) else ""
        if header.strip() and prompt.endswith(header):
            continue  # what it adds stands before the header again (Solar Open's empty
            # reasoning message `<|think|><|end|>` before `<|begin|>assistant`)
        if TAG.split(added)[-1].strip():
            raise UsageError(
                f"the generation prompt adds {added.strip()!r}, which the template does not "
                "write before an answer: where what it opens ends cannot be read"
            )


def _body(renders: Renders, probe: Probe, lead: str, trailer: Trailer) -> str:
    """The calls' text of `probe`'s turn: without the lead and the trailer."""
    rendered = renders.turn(probe)
    assert rendered is not None
    text = trailer.cut(rendered.turn).removesuffix(trailer.stop)
    return text.removeprefix(lead) if text.startswith(lead) else text


def _core(body: str, call: tuple[str, dict[str, Any]]) -> _Core:
    """Where `call` stands in `body` and how it is written."""
    name, arguments = call
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", body):
        try:
            value, end = decoder.raw_decode(body, match.start())
        except ValueError:
            continue
        found = _json_core(body, match.start(), end, value, name, arguments)
        if found is not None:
            return found
    python = re.search(re.escape(name) + r"\(", body)
    if python and "location=" in body[python.end() :]:
        written = body[python.start() : body.find(")", python.end()) + 1]
        if not _python_call(written):
            raise NotPython(
                f"the template writes a pythonic call that is not valid Python: {written!r}"
            )
    if python and f"location={json.dumps(arguments['location'])}" in body:
        close = body.index(")", python.end())
        return _Core(python.start(), close + 1, "{name}({arguments})", PythonKeywords(), Plain())
    if "location" in body and "Paris" in body:
        return _xml_core(body, name, arguments)
    raise UsageError(f"cannot find the call's arguments {arguments} in {body!r}")


def _python_call(text: str) -> bool:
    """Whether `text` is a Python call with literal keyword arguments only."""
    try:
        tree = ast.parse(text, mode="eval").body
        if not isinstance(tree, ast.Call) or tree.args:
            return False
        for keyword in tree.keywords:
            ast.literal_eval(keyword.value)
    except (SyntaxError, ValueError, TypeError):
        return False
    return True


def _json_core(
    body: str, start: int, end: int, value: Any, name: str, arguments: dict[str, Any]
) -> _Core | None:
    """The call, if the JSON object at `start`…`end` is its arguments or the whole call."""
    array = body[:start].rstrip().endswith("[") and body[end:].lstrip().startswith("]")
    if value == arguments:
        return _named_core(body, start, end, name)
    if value == {name: arguments}:
        if not array:
            raise UsageError(f"a {{NAME: ARGS}} call outside a JSON array: {body!r}")
        return _Core(start, end, "{call}", NameKey(), Plain(), array)
    codec = _call_object(value, name, arguments, array)
    return None if codec is None else _Core(start, end, "{call}", codec, Plain(), array)


def _call_object(
    value: Any, name: str, arguments: dict[str, Any], array: bool
) -> NameAndArguments | None:
    """The codec of `value` if it is the whole call: its name and arguments as members,
    or as members of an object of their own (`within`: OpenAI's `function`) beside an id
    (the probe's) and constants; beside the name and arguments, one other member is the
    id where it is the probe's or, in an array, any string or number. Outside an array,
    the members come in the order the codec reads them (the id, the constants, the name)."""
    if not isinstance(value, dict):
        return None
    inner = [key for key, item in value.items() if _named(item, name, arguments)]
    call = value[inner[0]] if inner else value
    named = _named(call, name, arguments)
    if named is None:
        return None
    name_key, arguments_key = named
    outer = {key: item for key, item in value.items() if key not in (name_key, arguments_key)}
    ids = [
        key
        for key, item in outer.items()
        if item in call_ids(name, 0) or (array and not inner and isinstance(item, str | int))
    ]
    constants = tuple(
        (key, item) for key, item in outer.items() if key not in (*ids, *inner) and inner
    )
    if len(ids) > 1 or len(outer) != len(ids) + len(constants) + len(inner):
        return None
    codec = NameAndArguments(
        (arguments_key,), name_key, ids[0] if ids else None, inner[0] if inner else None, constants
    )
    order = [*ids, *(key for key, _ in constants), *inner] if inner else [*ids, name_key]
    if not array and list(value)[: len(order)] != order:
        return None
    return codec


def _named(value: Any, name: str, arguments: dict[str, Any]) -> tuple[str, str] | None:
    """(the name's key, the arguments' key) of an object holding both, or None."""
    if not isinstance(value, dict):
        return None
    names = [key for key, item in value.items() if item == name]
    given = [key for key, item in value.items() if item == arguments]
    return (names[0], given[0]) if names and given else None


def _named_core(body: str, start: int, end: int, name: str) -> _Core:
    """A JSON arguments object with the name written before it."""
    at = body.rfind(name, 0, start)
    if at < 0:
        raise UsageError(f"the call's name {name!r} is not before its arguments in {body!r}")
    id_match = re.compile(r"functions\." + re.escape(name) + r":0").search(body, max(0, at - 10))
    if id_match is not None and id_match.start() <= at < id_match.end():
        between = body[id_match.end() : start]
        return _Core(
            id_match.start(), end, "{id}" + between + "{arguments}", JsonObject(), IdName()
        )
    between = body[at + len(name) : start]
    id_at, call_id = max((body.rfind(call_id, 0, at), call_id) for call_id in call_ids(name, 0))
    if id_at >= 0:  # the call id before the name (Solar Open's)
        head = "{id}" + body[id_at + len(call_id) : at] + "{name}" + between + "{arguments}"
        return _Core(id_at, end, head, JsonObject(), _plain(between))
    if body[:at].endswith('"') and between.startswith('"'):
        head = body[:at]
        opened = head.rfind("<")
        return _Core(
            opened,
            end,
            head[opened:] + "{name}" + between + "{arguments}",
            JsonObject(),
            Attribute(),
        )
    return _Core(at, end, "{name}" + between + "{arguments}", JsonObject(), _plain(between))


def _with_id_pattern(call: Call) -> Call:
    """`call`, its id's pattern a token that ends where the text after `{id}` begins, where
    the template has a call id beside the name."""
    after = call.template.partition("{id}")[2][:1]
    if "{name}" not in call.template or not after or after == "{":
        return call
    return replace(call, id_pattern=r"[^\s\[{" + re.escape(after) + "]+")


def _plain(after: str) -> Plain:
    """A plain name ended by `after`: its first character is no name character then."""
    stop = after[:1]
    if not stop or re.fullmatch(NAME_CHARS, stop) is None:
        return Plain()
    return Plain(NAME_CHARS.replace("=]", "=" + re.escape(stop) + "]", 1))


def _xml_core(body: str, name: str, arguments: dict[str, Any]) -> _Core:
    """Tag-delimited arguments: the layout read off the two arguments' text."""
    at = body.find(name)
    key1, value1 = body.find("location", at), body.find("Paris")
    key2 = body.find("days", value1)
    value2 = body.find(str(arguments["days"]), key2 + len("days"))
    if not 0 <= at < key1 < value1 < key2 < value2:
        raise UsageError(f"cannot read the call's tagged arguments in {body!r}")
    key_part = body[key1 + len("location") : value1]
    closing = body[value1 + len("Paris") : key2]
    tail = body[value2 + len(str(arguments["days"])) :]
    framing = key_part.endswith("\n") and closing.startswith("\n")
    value_close, _, opener = closing.strip().partition(">")
    value_close, opener = value_close + ">", opener.strip()
    if not value_close.startswith("<") or not opener:
        raise UsageError(f"cannot split {closing!r} into a value's end and a key's opener")
    separator = closing[closing.index(value_close) + len(value_close) : closing.rindex(opener)]
    key_close, value_open = [*_tags(key_part), ""][:2]
    attribute = re.fullmatch(r'(.*?)\s+(\w+)="', opener)
    key_attribute = None
    if attribute is not None:  # the key is an attribute; other attributes may follow it
        opener, key_attribute = attribute.group(1), attribute.group(2)
        key_close, value_open = key_part.strip()[-1:], ""
    if not key_close:
        raise UsageError(f"no marker between an argument's key and its value in {body!r}")
    ends = _tags(tail.strip()[len(value_close) :] if tail.strip().startswith(value_close) else "")
    if not ends:
        raise UsageError(f"no end after the call's last argument in {body!r}")
    layout = Layout(
        opener,
        key_close,
        value_close,
        ends[0],
        key_attribute=key_attribute,
        value_open=value_open,
        framing_newlines=framing,
    )
    newline = separator == "\n"
    if separator.strip():
        raise UsageError(f"arguments separated by {separator!r} in {body!r}")
    codec = XmlArguments(layout, separator="" if newline else separator, newline=newline)
    first = body.index(opener, at + len(name))
    between = body[at + len(name) : first]
    end = tail.index(ends[0]) + value2 + len(str(arguments["days"]))
    args_end = body.rindex(value_close, 0, end) + len(value_close) + (1 if newline else 0)
    template = "{name}" + between + "{arguments}" + body[args_end:end]
    return _Core(at, end, template, codec, Plain())


def _tags(text: str) -> list[str]:
    """`text`'s markers: split at whitespace and between adjacent tags (`></`, `><`)."""
    return [piece for part in text.split() for piece in re.split(r"(?<=>)(?=<)", part) if piece]


def _split_gap(two: str, core: _Core, before: str, after: str) -> tuple[str, str, str]:
    """(the call's own text before its core, after it, the separator between calls), from
    what stands between the two calls of `two`."""
    first = core.start + (core.end - core.start)
    if not two.startswith(before) or len(two) < first:
        raise UsageError(f"the two-call render does not start as the one-call render: {two!r}")
    gap = two[first : first + _start(two[first:], core, TIME[0])]
    call_after = next(after[:n] for n in _cuts(after, True) if gap.startswith(after[:n]))
    rest = gap[len(call_after) :]
    call_before = next(before[n:] for n in _cuts(before, False) if rest.endswith(before[n:]))
    between = rest[: len(rest) - len(call_before)]
    return call_before, call_after, between


def _cuts(text: str, longest_first: bool) -> list[int]:
    """The places `text` may be cut between markers (never inside a tag or a bracketed
    token), from the end backwards if `longest_first`, else from the start."""
    cuts = [0, len(text)]
    cuts += [i for i in range(1, len(text)) if text[i - 1] in ">]" or text[i] in "<[\n "]
    return sorted(set(cuts), reverse=longest_first)


def _start(text: str, core: _Core, name: str) -> int:
    """Where the call to `name` starts in `text`, written as `core` is."""
    if isinstance(core.name, IdName):
        at = text.find(f"functions.{name}:1")
    elif core.template.startswith("{id}"):
        at = max(text.find(call_id) for call_id in call_ids(name, 1))
    elif isinstance(core.arguments, NameAndArguments | NameKey):
        within = getattr(core.arguments, "within", None)  # the outer object's `{`
        key = f'"{name}"' if within is None else json.dumps(within)
        at = text.rfind("{", 0, max(0, text.find(key)))
    elif isinstance(core.name, Attribute):
        at = text.rfind("<", 0, max(0, text.find(name)))
    else:
        at = text.find(name)
    if at < 0:
        raise UsageError(f"cannot find the second call, to {name}, in {text!r}")
    return at


def _reasoning(
    renders: Renders, lead: str, trailer: Trailer
) -> tuple[Think | None, str, str | None]:
    """(the reasoning block, the generation prompt that opens nothing, the start state).

    The prompts of every mode share a base; a prompt that ends inside the block (its last
    opener unclosed) pre-opens it with what it adds to the base (`Think.opened_by`), one
    that adds anything else writes thinking off (`Think.off`)."""
    prompts = renders.prompts
    markers = _reasoning_markers(renders, lead, trailer)
    if markers is None:
        return None, prompts["default"], None
    open, close = markers

    def opens(prompt: str) -> bool:
        return open in prompt and close not in prompt[prompt.rfind(open) :]

    base = common_prefix(*prompts.values())
    if open in base:
        base = base[: base.index(open)]
    opening = [p for p in prompts.values() if opens(p)]
    closing = [p for p in (prompts["no thinking"], *prompts.values()) if not opens(p) and p != base]
    think = Think(
        open,
        close,
        opened_by=opening[0][len(base) :] if opening else None,
        off=closing[0][len(base) :] if closing else "",
    )
    return think, base, "reasoning" if opens(prompts["default"]) else None


def _reasoning_markers(renders: Renders, lead: str, trailer: Trailer) -> tuple[str, str] | None:
    """The reasoning block's (open, close): around the probe reasoning where the template
    writes it (the end of turn and the prompt after it, where the turn goes on with another
    message: `Trailer.resumed`), else the tag (`<think>`, not a special token) a generation
    prompt ends with and its closing tag, where that closing tag is written or only the
    generation prompt opens the tag (an assumption `infer` reports: the template never
    writes the close)."""
    for rendered in renders.turns:
        turn = rendered.turn
        if rendered.probe.reasoning and REASONING in turn:
            at = turn.index(REASONING)
            before = _LAST_MARKER.search(turn[:at]) or _LAST_MARKER.search(rendered.prompt)
            after = _FIRST_MARKER.match(turn, at + len(REASONING))
            if before is None or after is None:
                raise UsageError(f"cannot read the reasoning block's markers in {turn!r}")
            close = after.group(1)
            if close == trailer.stop and turn.startswith(trailer.resumed or "\0", after.end()):
                close += trailer.resumed
            return before.group(1), close
    written = [*renders.prompts.values(), *(rendered.turn for rendered in renders.turns)]
    headers = [rendered.prompt for rendered in renders.turns]
    for prompt in renders.prompts.values():
        tag = _prompt_tag(prompt)
        close = "</" + tag[1:]
        if not tag:
            continue
        if any(close in text for text in written):
            return tag, close
        if not any(header.rstrip().endswith(tag) for header in headers):
            return tag, close  # only the generation prompt opens it
        raise UsageError(
            f"the generation prompt ends with {tag}, which the template also writes before "
            f"an answer's content and never closes: where its block ends cannot be read"
        )
    return None


def _prompt_tag(prompt: str) -> str:
    match = _LAST_TAG.search(prompt)
    return f"<{match.group(1)}>" if match else ""
