"""Testing kit: Hypothesis strategies, boundary mutations and property checks for formats
(ours or yours).

    from protocall.testing import check_format
    report = check_format(my_format, max_examples=50)
    assert report.ok, report

`judge_examples(fmt, read_examples(path))` judges real outputs from a JSON-lines file
(see `examples`). `check_format` runs the properties of DESIGN.md §4 and §7 (`PROPERTIES`)
over valid turns generated for the format (`cases`, every spelling of its markers written),
their truncations and their `mutations`, and reports each failure as a minimal
counterexample. `stream(fmt, chunks, ...)` runs a turn through a
fresh session; `chunkings`/`byte_chunkings` draw ways to split it; `fed_and_resumed`
checks a parser's absorbers against resuming it.
"""

try:
    import hypothesis  # noqa: F401  (the kit is built on it; an extra since it is heavy)
except ModuleNotFoundError as missing:
    raise ModuleNotFoundError(
        "the protocall testing kit needs Hypothesis: pip install 'protocall[testing]'",
        name="hypothesis",
    ) from missing

from .absorbers import fed_and_resumed
from .check import RUNS, Counterexample, Report, assert_format, check_format
from .chunks import byte_chunkings, chunkings, describe_chunks, split_at
from .degenerate import degenerate_inputs
from .examples import Example, ExamplesReport, judge_examples, read_examples
from .mutations import mutations, truncations, unclosed_reasoning
from .properties import PROPERTIES, Property, Trial, completion_offsets
from .run import Outcome, is_event_prefix, merge_deltas, stream
from .strategies import (
    Case,
    arguments,
    cases,
    json_values,
    prose,
    strings,
    tool_names,
    tool_sets,
    turns,
    values,
)
from .verify import example_tests, verify

__all__ = [
    "PROPERTIES",
    "RUNS",
    "Case",
    "Counterexample",
    "Example",
    "ExamplesReport",
    "Outcome",
    "Property",
    "Report",
    "Trial",
    "arguments",
    "assert_format",
    "byte_chunkings",
    "cases",
    "check_format",
    "chunkings",
    "completion_offsets",
    "degenerate_inputs",
    "describe_chunks",
    "example_tests",
    "fed_and_resumed",
    "is_event_prefix",
    "json_values",
    "judge_examples",
    "merge_deltas",
    "mutations",
    "prose",
    "read_examples",
    "split_at",
    "stream",
    "strings",
    "tool_names",
    "tool_sets",
    "truncations",
    "turns",
    "unclosed_reasoning",
    "values",
    "verify",
]
