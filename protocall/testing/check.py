"""`check_format`: run the properties over generated turns and their mutations, and report
each failure as a minimal counterexample (Hypothesis shrinks it).

Three Hypothesis runs of `max_examples` each: valid turns; truncations of valid turns (also
of calls inside an unclosed reasoning block), cut at drawn marker boundaries and at a drawn
point; and mutations. Every input is parsed in one chunk, one character (or byte) per chunk
and in a drawn chunking. Within a run every property that fails is shrunk on its own, so
the report has one minimal counterexample per failing property and run.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as seeded
from hypothesis import strategies as st

from .. import ast, formats
from ..combinators import UsageError
from ..formats import Format
from ..tools import Tool, Tools, normalize_tools
from .chunks import byte_chunkings, chunkings, describe_chunks
from .draws import integers
from .mutations import marker_truncations, mutations, truncations, unclosed_reasoning
from .properties import PROPERTIES, Problem, Trial, first_problem
from .run import Outcome, stream
from .strategies import Case, RenderError, cases

CRASH = "no crash"
RENDER = "render"
PROMPTS = "start state from the prompt"
KIT_PROPERTIES = {
    CRASH: "the session never raises on any input (bad output is a ProtocolError)",
    RENDER: "the format's render writes every generated turn",
    PROMPTS: "each generation prompt in fmt.prompts leaves its start state open",
}
RUNS = ("valid turns", "truncations", "mutations")


@dataclass(frozen=True)
class Counterexample:
    """A minimal input violating `property`, and how: what was expected and what happened."""

    property: str
    statement: str
    run: str
    label: str
    text: str
    chunks: tuple[str | bytes, ...]
    generation_prompt: str | None
    tools: tuple[Tool, ...]
    expected: str
    got: str
    data: bytes | None = None

    def __str__(self) -> str:
        lines = [
            f"✗ {self.property}: {self.statement}",
            f"  case:     {self.label} ({self.run})",
            f"  input:    {_clip(repr(self.data if self.data is not None else self.text))}"
            f" ({len(self.text)} characters)",
            f"  prompt:   {self.generation_prompt!r}",
            f"  tools:    {_show_tools(self.tools)}",
            f"  chunks:   {describe_chunks(self.chunks)}",
            f"  expected: {_indent(self.expected)}",
            f"  got:      {_indent(self.got)}",
        ]
        return "\n".join(lines)


def _clip(text: str, width: int = 2000) -> str:
    return text if len(text) <= width else text[:width] + "…"


def _indent(text: str) -> str:
    return _clip(text, 4000).replace("\n", "\n" + " " * 12)


def _show_tools(tools: Sequence[Tool]) -> str:
    if not tools:
        return "none declared"
    shown = []
    for tool in tools:
        properties = tool.parameters.get("properties") or {}
        params = ", ".join(f"{k}: {_type_name(s)}" for k, s in properties.items())
        shown.append(f"{tool.name}({params})")
    return "; ".join(shown)


def _type_name(schema: Any) -> str:
    if not isinstance(schema, Mapping):
        return "any"
    kind = schema.get("type", "any")
    return "|".join(kind) if isinstance(kind, list) else str(kind)


@dataclass
class Report:
    """The outcome of `check_format`: `failures` holds one minimal counterexample per
    failing property and run (empty when the format passed)."""

    format: str
    max_examples: int
    seed: int | None
    runs: tuple[str, ...] = RUNS
    failures: list[Counterexample] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def failed_properties(self) -> list[str]:
        return sorted({f.property for f in self.failures})

    def __str__(self) -> str:
        checked = len(PROPERTIES) + len(KIT_PROPERTIES)
        runs = f"{', '.join(self.runs)}: {self.max_examples} examples each"
        seed = f", seed {self.seed}" if self.seed is not None else ""
        if self.ok:
            return f"format `{self.format}`: all {checked} properties hold ({runs}{seed})"
        head = (
            f"format `{self.format}`: {len(self.failed_properties)} of {checked} properties "
            f"failed ({runs}{seed})"
        )
        return "\n\n".join([head, *map(str, self.failures)])

    def raise_if_failed(self) -> None:
        """Raise `AssertionError` with the readable report when a property failed."""
        if not self.ok:
            raise AssertionError(str(self))


class Violation(AssertionError):
    """A property failed for one example (one subclass per property, so that Hypothesis
    shrinks each failing property separately)."""

    def __init__(self, counterexample: Counterexample) -> None:
        super().__init__(str(counterexample))
        self.counterexample = counterexample


_VIOLATIONS: dict[str, type[Violation]] = {}


def _violation_type(name: str) -> type[Violation]:
    if name not in _VIOLATIONS:
        _VIOLATIONS[name] = type(f"Violation[{name}]", (Violation,), {})
    return _VIOLATIONS[name]


@dataclass
class _Context:
    fmt: Format
    run: str

    def fail(
        self, name: str, statement: str, case: Case, chunks: Sequence[str | bytes], problem: Problem
    ) -> NoReturn:
        example = Counterexample(
            name,
            statement,
            self.run,
            case.label,
            case.text,
            tuple(chunks),
            case.generation_prompt,
            tuple(case.tools.values()) if case.tools is not None else (),
            problem.expected,
            problem.got,
            case.data,
        )
        raise _violation_type(name)(example)

    def parse(self, case: Case, chunks: Sequence[str | bytes]) -> Outcome:
        crash = None
        try:
            return stream(self.fmt, chunks, case.tools, case.generation_prompt)
        except Exception as error:
            crash = _describe(error)
        self.fail(CRASH, KIT_PROPERTIES[CRASH], case, chunks, Problem("no exception", crash))

    def whole(self, case: Case) -> Outcome:
        return self.parse(case, [case.data if case.data is not None else case.text])

    def draw(self, data: st.DataObject, strategy: st.SearchStrategy[Case]) -> Case:
        failure = None
        try:
            return data.draw(strategy)
        except RenderError as error:
            failure = error.args
        turn, start, message = failure
        case = Case("", None, None, start, turn, label=f"rendering {turn!r} from start {start!r}")
        self.fail(RENDER, KIT_PROPERTIES[RENDER], case, [""], Problem("a text", message))

    def verify(self, trial: Trial) -> None:
        found = first_problem(trial)
        if found is not None:
            prop, problem = found
            case = trial.case
            one = [case.data if case.data is not None else case.text]
            chunks = one if problem.in_one_chunk else trial.chunks
            self.fail(prop.name, prop.statement, case, chunks, problem)


def _describe(error: Exception) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    where = (
        f" (at {frames[-1].filename}:{frames[-1].lineno} in {frames[-1].name})" if frames else ""
    )
    return f"{type(error).__name__}: {error}{where}"


def _call_spans(outcome: Outcome) -> list[tuple[int, int]]:
    return [
        (node.start, node.end)
        for node in outcome.tree.find_all(ast.TOOL_CALL)
        if node.end is not None
    ]


def _chunks_for(
    data: st.DataObject, fmt: Format, case: Case, spans: Sequence[tuple[int, int]] = ()
) -> list[str | bytes]:
    if case.data is not None:
        return list(data.draw(byte_chunkings(case.data)))
    if data.draw(integers(0, 3)) == 3:  # one chunking in four is of bytes
        return list(data.draw(byte_chunkings(case.text)))
    return list(data.draw(chunkings(case.text, fmt.reserved, spans)))


def _per_unit(case: Case) -> list[str | bytes]:
    feed = case.data if case.data is not None else case.text
    return [feed[i : i + 1] for i in range(len(feed))] or [feed]


def _streamed(
    ctx: _Context, data: st.DataObject, case: Case, reference: Outcome | None = None
) -> None:
    """Check `case` fed one character (or byte) at a time, then in a drawn chunking."""
    whole = ctx.whole(case)
    per_unit = _per_unit(case)
    ctx.verify(Trial(ctx.fmt, case, per_unit, whole, ctx.parse(case, per_unit), reference))
    chunks = _chunks_for(data, ctx.fmt, case, _call_spans(whole))
    ctx.verify(Trial(ctx.fmt, case, chunks, whole, ctx.parse(case, chunks), reference))


def _valid_turns(ctx: _Context, tools: Tools | None) -> Callable[[st.DataObject], None]:
    def run(data: st.DataObject) -> None:
        _streamed(ctx, data, ctx.draw(data, cases(ctx.fmt, tools, spellings=True)))

    return run


def _truncations(ctx: _Context, tools: Tools | None) -> Callable[[st.DataObject], None]:
    def run(data: st.DataObject) -> None:
        case = ctx.draw(data, cases(ctx.fmt, tools, spellings=True))
        inside = unclosed_reasoning(ctx.fmt, case)
        if inside is not None and data.draw(st.booleans()):
            case = inside
        reference = ctx.whole(case)
        for at_marker in data.draw(marker_truncations(case, ctx.fmt.reserved)):
            whole = ctx.whole(at_marker)
            ctx.verify(Trial(ctx.fmt, at_marker, [at_marker.text], whole, whole, reference))
        _streamed(ctx, data, ctx.draw(data, truncations(case)), reference)

    return run


def _mutations(ctx: _Context, tools: Tools | None) -> Callable[[st.DataObject], None]:
    def run(data: st.DataObject) -> None:
        case = ctx.draw(data, cases(ctx.fmt, tools, spellings=True))
        _streamed(ctx, data, ctx.draw(data, mutations(ctx.fmt, case)))

    return run


def _violations(error: BaseException) -> Iterator[Violation]:
    if isinstance(error, Violation):
        yield error
    for inner in getattr(error, "exceptions", ()):
        yield from _violations(inner)


def _prompt_failures(fmt: Format) -> Iterator[Counterexample]:
    for start, prompt in fmt.prompts.items():
        got = fmt.start_state(prompt)
        if got != start:
            yield Counterexample(
                property=PROMPTS,
                statement=KIT_PROPERTIES[PROMPTS],
                run="format definition",
                label="fmt.prompts entry",
                text="",
                chunks=(),
                generation_prompt=prompt,
                tools=(),
                expected=f"start state {start!r}",
                got=f"{got!r}",
            )


def check_format(
    fmt: Format | str,
    *,
    tools: Sequence[Mapping[str, Any] | Tool] | Tools | None = None,
    max_examples: int | None = None,
    seed: int | None = None,
    runs: Sequence[str] = RUNS,
) -> Report:
    """Check `fmt` (a `Format` or a registered name) against every property in
    `PROPERTIES` and `KIT_PROPERTIES`; return the `Report` (never raises for a failing
    property). `tools` fixes the tool set (default: drawn per example, with confusable
    names); `max_examples` is per run (default: the current Hypothesis profile's); `seed`
    makes the runs reproducible; `runs` chooses among `RUNS` (valid turns, truncations,
    mutations)."""
    if isinstance(fmt, str):
        fmt = formats.get(fmt)
    declared = normalize_tools(tools)
    base = settings()
    config = settings(
        base,
        max_examples=max_examples or base.max_examples,
        deadline=None,
        database=None,
        verbosity=Verbosity.quiet,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
        report_multiple_bugs=True,
    )
    unknown = set(runs) - set(RUNS)
    if unknown:
        raise UsageError(f"unknown runs {sorted(unknown)}; the runs are {list(RUNS)}")
    report = Report(fmt.name, config.max_examples, seed, tuple(runs), list(_prompt_failures(fmt)))
    makers = {RUNS[0]: _valid_turns, RUNS[1]: _truncations, RUNS[2]: _mutations}
    for name in runs:
        make = makers[name]
        test = config(given(st.data())(make(_Context(fmt, name), declared)))
        if seed is not None:
            test = seeded(seed)(test)
        try:
            test()
        except BaseException as error:
            found = list(_violations(error))
            if not found:
                raise
            report.failures += [v.counterexample for v in found]
    return report


def assert_format(
    fmt: Format | str,
    *,
    tools: Sequence[Mapping[str, Any] | Tool] | Tools | None = None,
    max_examples: int | None = None,
    seed: int | None = None,
    runs: Sequence[str] = RUNS,
) -> Report:
    """`check_format`, raising `AssertionError` with the readable report on any failure
    (for pytest); returns the report when every property holds."""
    report = check_format(fmt, tools=tools, max_examples=max_examples, seed=seed, runs=runs)
    report.raise_if_failed()
    return report
