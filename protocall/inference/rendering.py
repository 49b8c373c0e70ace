"""Rendering a chat template as the Hugging Face stack does (`transformers`'
`apply_chat_template`), so a template renders here exactly as it does for a model's users.

The environment is jinja2's immutable sandbox with `trim_blocks` and `lstrip_blocks`, the
`loopcontrols` extension (`{% break %}`, `{% continue %}`) and a `{% generation %}` …
`{% endgeneration %}` tag that renders its body unchanged (transformers uses it to mark
assistant tokens; here it marks nothing). Globals: `raise_exception(message)` (a template
error) and `strftime_now(format)` (the local time); the `tojson` filter is `json.dumps` with
`ensure_ascii=False` by default and the `indent`, `separators` and `sort_keys` arguments.
A template renders with `messages`, `tools`, `documents`, `add_generation_prompt`, the
special tokens it was given (`bos_token`, `eos_token`, and others such as `pad_token`, as
transformers passes the tokenizer's), and any other keyword (`enable_thinking`…).

Some templates only render under llama.cpp's Jinja engine, which has more built-ins than
transformers' sandbox: lists and dicts changed in place (`list.append`, `dict.update`…) and
`tojson` of any iterable (a `map` filter's generator). `ChatTemplate.with_extra_builtins()`
renders with those (`EXTRA_BUILTINS` names them). Some read inputs the chat inputs lack:
`with_extra_inputs()` gives them `functions` (the tools as JSON text, as firefunction-v2
reads them) and `datetime` (`EXTRA_INPUTS`); `with_flat_tools()` and `with_cohere_tools()`
give the tools in the shapes some templates read instead of OpenAI's.

jinja2 is the optional extra `protocall[templates]`; without it a `UsageError` says so.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, ClassVar

from ..combinators import UsageError

EXTRA_BUILTINS = (
    "llama.cpp's extra Jinja built-ins (lists and dicts changed in place, such as "
    "list.append; tojson of any iterable)"
)


EXTRA_INPUTS = (
    "inputs the chat inputs lack: `functions`, the tools as JSON text, and `datetime`, "
    "a date as text"
)
PROBE_DATE = "2026-01-01"
"""The `datetime` an `extra_inputs` template is given."""

_REASONING = re.compile(r"think|reason", re.IGNORECASE)


class TemplateError(UsageError):
    """The template failed to compile or to render (its own `raise_exception` included)."""


def _jinja() -> Any:
    try:
        import jinja2
        import jinja2.ext
        import jinja2.meta
        import jinja2.sandbox
    except ImportError:
        raise UsageError(
            "rendering chat templates needs jinja2: pip install 'protocall[templates]'"
        ) from None
    return jinja2


def _environment(extra_builtins: bool) -> Any:
    jinja2 = _jinja()

    class Generation(jinja2.ext.Extension):  # type: ignore[misc,name-defined]
        """`{% generation %}…{% endgeneration %}`: the body, unchanged."""

        tags: ClassVar[set[str]] = {"generation"}

        def parse(self, parser: Any) -> Any:
            line = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            call = self.call_method("_body")
            return jinja2.nodes.CallBlock(call, [], [], body).set_lineno(line)

        def _body(self, caller: Any) -> str:
            return str(caller())

    def raise_exception(message: str) -> None:
        raise jinja2.exceptions.TemplateError(message)

    def tojson(
        value: Any,
        ensure_ascii: bool = False,
        indent: int | str | None = None,
        separators: tuple[str, str] | None = None,
        sort_keys: bool = False,
    ) -> str:
        return json.dumps(
            value,
            ensure_ascii=ensure_ascii,
            indent=indent,
            separators=separators,
            sort_keys=sort_keys,
            default=_as_list if extra_builtins else None,
        )

    def strftime_now(format: str) -> str:
        return datetime.now().strftime(format)

    sandbox = jinja2.sandbox
    kind = sandbox.SandboxedEnvironment if extra_builtins else sandbox.ImmutableSandboxedEnvironment
    env = kind(
        trim_blocks=True, lstrip_blocks=True, extensions=[Generation, jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def _as_list(value: Any) -> list[Any]:
    """`tojson`'s fallback with the extra built-ins: an iterable other than a list, as one."""
    if isinstance(value, str | bytes | Mapping) or not hasattr(value, "__iter__"):
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
    return list(value)


class ChatTemplate:
    """A compiled chat template; `render` writes a conversation as the model sees it, in
    transformers' environment (`LlamaCppTemplate`: with llama.cpp's `EXTRA_BUILTINS`)."""

    extra_builtins: ClassVar[bool] = False
    flat_tools = False
    """Whether tools are given as `{name, description, parameters}`, not in OpenAI's
    `{type: function, function: {…}}` (templates written for callers that flatten them)."""
    cohere_tools = False
    """Whether tools are given in Cohere's shape, `{name, description,
    parameter_definitions: {NAME: {description, type, required}}}` with Python type names
    (Command R+'s templates read it; their OpenAI branch fails on common schemas)."""
    extra_inputs = False
    """Whether the template is also given `EXTRA_INPUTS` (firefunction-v2 reads the tools
    as `functions`)."""

    def __init__(
        self, source: str, *, bos_token: str = "", eos_token: str = "", **tokens: str
    ) -> None:
        jinja2 = _jinja()
        self.source = source
        self.bos_token = bos_token
        self.eos_token = eos_token
        self.tokens = tokens
        try:
            self._template = _environment(self.extra_builtins).from_string(source)
        except jinja2.exceptions.TemplateError as error:
            raise TemplateError(f"the chat template does not compile: {error}") from None

    def switches(self) -> dict[str, tuple[str | int, ...]]:
        """The template's own reasoning switches, read off its Jinja syntax tree: each
        variable named for thinking or reasoning that the caller may give (not one `render`
        always passes, nor one set inside a loop or macro) and that the template compares
        with constants (`reasoning_effort == 'none'`, `thinking_mode in ['enabled', …]`,
        `thinking_budget == 0`), with those constants in the order written."""
        jinja2 = _jinja()
        nodes = jinja2.nodes
        tree = _environment(self.extra_builtins).parse(self.source)
        given = {"messages", "tools", "documents", "add_generation_prompt", *self.tokens}
        loops = tree.find_all(nodes.For | nodes.Macro)  # a name set there is the loop's own
        local = {n.name for loop in loops for n in loop.find_all(nodes.Name) if n.ctx != "load"}
        free = jinja2.meta.find_undeclared_variables(tree) - given - local
        found: dict[str, dict[str | int, None]] = {}

        def named(node: Any) -> str | None:
            while isinstance(node, nodes.Filter | nodes.Test) and node.node is not None:
                node = node.node  # `reasoning_effort | lower == 'none'`
            name = str(node.name) if isinstance(node, nodes.Name) else ""
            return name if name in free and _REASONING.search(name) else None

        def constants(node: Any) -> list[Any]:  # a list of constants is folded into one
            items = node.items if isinstance(node, nodes.List | nodes.Tuple) else [node]
            values = [item.value for item in items if isinstance(item, nodes.Const)]
            values = [
                v
                for value in values
                for v in (value if isinstance(value, list | tuple) else [value])
            ]
            return [v for v in values if isinstance(v, str | int) and not isinstance(v, bool)]

        for compare in tree.find_all(nodes.Compare):
            operands = [compare.expr, *(operand.expr for operand in compare.ops)]
            for left, right in itertools.pairwise(operands):
                for variable, other in ((left, right), (right, left)):
                    name = named(variable)
                    if name is not None:
                        values = found.setdefault(name, {})
                        values.update(dict.fromkeys(constants(other)))
        return {name: tuple(values) for name, values in found.items() if values}

    def with_extra_builtins(self) -> ChatTemplate:
        """The same template and tokens, rendered with llama.cpp's `EXTRA_BUILTINS`."""
        extended = LlamaCppTemplate(
            self.source, bos_token=self.bos_token, eos_token=self.eos_token, **self.tokens
        )
        extended.flat_tools = self.flat_tools
        extended.cohere_tools = self.cohere_tools
        return extended

    def with_extra_inputs(self) -> ChatTemplate:
        """The same template, also given `EXTRA_INPUTS`."""
        given = copy.copy(self)
        given.extra_inputs = True
        return given

    def with_flat_tools(self) -> ChatTemplate:
        """The same template, given its tools as `{name, description, parameters}`."""
        flat = copy.copy(self)
        flat.flat_tools = True
        return flat

    def with_cohere_tools(self) -> ChatTemplate:
        """The same template, given its tools in Cohere's shape (see `cohere_tools`)."""
        cohere = copy.copy(self)
        cohere.cohere_tools = True
        return cohere

    def render(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        *,
        add_generation_prompt: bool = False,
        **options: Any,
    ) -> str:
        """`messages` rendered with `tools` (a `TemplateError` if the template refuses)."""
        jinja2 = _jinja()
        tokens = {"bos_token": self.bos_token, "eos_token": self.eos_token, **self.tokens}
        if tools is not None and self.flat_tools:
            tools = [tool.get("function", tool) for tool in tools]
        if tools is not None and self.cohere_tools:
            tools = [_cohere_tool(tool.get("function", tool)) for tool in tools]
        values = {**tokens, **options}
        if self.extra_inputs:
            functions = json.dumps(list(tools or ()), ensure_ascii=False, indent=2)
            values = {"functions": functions, "datetime": PROBE_DATE, **values}
        try:
            return str(
                self._template.render(
                    messages=list(messages),
                    tools=None if tools is None else list(tools),
                    documents=None,
                    add_generation_prompt=add_generation_prompt,
                    **values,
                )
            )
        except jinja2.exceptions.TemplateError as error:
            raise TemplateError(f"the chat template failed to render: {error}") from None
        except Exception as error:  # a template reaches into Python values freely
            kind = type(error).__name__
            raise TemplateError(f"the chat template failed to render: {kind}: {error}") from None


_PYTHON_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool",
                 "object": "Dict", "array": "List"}  # fmt: skip
"""The Python type names Cohere's tool shape gives for JSON Schema types."""


def _cohere_tool(function: Mapping[str, Any]) -> dict[str, Any]:
    """A tool in Cohere's shape (see `ChatTemplate.cohere_tools`)."""
    schema = function.get("parameters") or {}
    required = set(schema.get("required") or ())
    definitions = {
        name: {
            "description": parameter.get("description", ""),
            "type": _PYTHON_TYPES.get(parameter.get("type"), "str"),
            "required": name in required,
        }
        for name, parameter in (schema.get("properties") or {}).items()
    }
    return {
        "name": function["name"],
        "description": function.get("description", ""),
        "parameter_definitions": definitions,
    }


class LlamaCppTemplate(ChatTemplate):
    """A chat template rendered with llama.cpp's `EXTRA_BUILTINS` (Kimi K2's templates
    `append` to a list, which transformers' sandbox refuses)."""

    extra_builtins = True
