"""Real outputs, judged: a file of examples (JSON lines), each an output a model wrote with
what it must read as, run through a format one-shot and streamed (`verify`).

Each line is a JSON object: `output` (the text after the generation prompt, required),
`generation_prompt` (default: the format's), `tools` (a list of tools, OpenAI-shaped or
bare; default: none declared) and `expected`, the message the output must read as, without
errors: `content`, `reasoning_content` (or `reasoning`) and `tool_calls` (`[{"name",
"arguments"}]`), a missing key meaning none. Without `expected` an example is judged by the
kit's properties only (every way the stream may arrive reads the same). Blank lines and
lines starting with `//` are skipped.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any

from ..combinators import UsageError
from ..formats import Format
from ..tools import normalize_tools
from .verify import verify


@dataclass(frozen=True)
class Example:
    """One real output and what it must read as (see the module docstring); `where` says
    which file and line it came from."""

    output: str
    generation_prompt: str | None
    tools: list[Any] | None
    expected: dict[str, Any] | None
    where: str


def read_examples(path: str | PathLike[str]) -> list[Example]:
    """The examples of the JSON-lines file at `path`; a line that is no example is a
    `UsageError` naming the line and what is wrong with it."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read examples from {path}: {error}") from None
    return list(parse_examples(lines, str(path)))


def parse_examples(lines: Iterable[str], source: str = "examples") -> Iterable[Example]:
    """The examples of JSON `lines` (see the module docstring)."""
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        where = f"{source}:{number}"
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as error:
            raise UsageError(f"{where}: invalid JSON: {error}") from None
        yield _example(entry, where)


def _example(entry: Any, where: str) -> Example:
    if not isinstance(entry, dict) or not isinstance(entry.get("output"), str):
        raise UsageError(f'{where}: an object with an "output" string')
    unknown = set(entry) - {"output", "generation_prompt", "tools", "expected"}
    if unknown:
        raise UsageError(f"{where}: unknown keys {sorted(unknown)}")
    prompt, tools = entry.get("generation_prompt"), entry.get("tools")
    if prompt is not None and not isinstance(prompt, str):
        raise UsageError(f'{where}: "generation_prompt" is a string or null')
    if tools is not None and not isinstance(tools, list):
        raise UsageError(f'{where}: "tools" is a list of tools or null')
    try:
        normalize_tools(tools)
    except UsageError as error:
        raise UsageError(f'{where}: "tools": {error}') from None
    expected = entry.get("expected")
    return Example(entry["output"], prompt, tools, _expected(expected, where), where)


def _expected(expected: Any, where: str) -> dict[str, Any] | None:
    """`expected` as `Message.to_dict()` writes a message (missing keys: none)."""
    if expected is None:
        return None
    known = {"content", "reasoning_content", "reasoning", "tool_calls"}
    if not isinstance(expected, dict) or set(expected) - known:
        raise UsageError(f'{where}: "expected" is an object with keys of {sorted(known)}')
    calls = expected.get("tool_calls") or []
    if not isinstance(calls, list) or not all(
        isinstance(call, dict) and set(call) <= {"name", "arguments"} and "name" in call
        for call in calls
    ):
        raise UsageError(f'{where}: "tool_calls" is a list of {{"name", "arguments"}} objects')
    return {
        "reasoning_content": expected.get("reasoning_content", expected.get("reasoning")),
        "content": expected.get("content"),
        "tool_calls": [{"name": c["name"], "arguments": c.get("arguments", {})} for c in calls],
    }


@dataclass(frozen=True)
class ExamplesReport:
    """How `fmt` read each example: `failures` holds (where, what differed)."""

    format: str
    count: int
    failures: tuple[tuple[str, str], ...]

    @property
    def ok(self) -> bool:
        return not self.failures

    def __str__(self) -> str:
        read = self.count - len(self.failures)
        lines = [
            f"format `{self.format}`: {read} of {self.count} examples read as expected "
            "(one-shot and streamed)"
        ]
        lines += [f"\n✗ {where}: {problem}" for where, problem in self.failures]
        return "\n".join(lines)

    def raise_if_failed(self) -> None:
        """Raise `AssertionError` with the report when an example was read otherwise."""
        if self.failures:
            raise AssertionError(str(self))


def judge_examples(fmt: Format, examples: Iterable[Example]) -> ExamplesReport:
    """Each example `verify`-ed: one-shot and streamed in every chunking `verify` makes,
    each way reading the same and, where `expected` is given, reading as it says."""
    failures, count = [], 0
    for example in examples:
        count += 1
        try:
            verify(
                fmt,
                example.output,
                example.generation_prompt,
                tools=example.tools,
                expected=example.expected,
            )
        except AssertionError as failure:
            failures.append((example.where, str(failure)))
    return ExamplesReport(fmt.name, count, tuple(failures))
