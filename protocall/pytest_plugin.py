"""The pytest plugin: a `protocall_check` fixture and a `--protocall-examples` option.

Installed with protocall (the `pytest11` entry point), so a test suite can write

    def test_my_format(protocall_check):
        protocall_check(MY_FORMAT)
        protocall_check(MY_FORMAT, examples="tests/real_outputs.jsonl")  # real outputs too

The fixture calls `protocall.testing.assert_format` (the failure message is the readable
report) with `max_examples` taken from `--protocall-examples`, else the `PROTOCALL_EXAMPLES`
environment variable, else the current Hypothesis profile. With `examples=FILE` it first
judges the real outputs of a JSON-lines file one-shot and streamed
(`protocall.testing.judge_examples`, the file `protocall check NAME --examples FILE` reads).

pytest loads the plugin in every project of an environment where protocall is installed, so
this module imports neither the testing kit nor Hypothesis: they load when a test first asks
for the fixture (and the fixture says to `pip install 'protocall[testing]'` if Hypothesis is
missing).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from os import PathLike
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .testing import Report


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--protocall-examples",
        type=int,
        default=None,
        help="examples per run of protocall_check (default: PROTOCALL_EXAMPLES or the "
        "Hypothesis profile)",
    )


@pytest.fixture
def protocall_check(request: pytest.FixtureRequest) -> Callable[..., Report]:
    """`check(fmt, **options)`: `assert_format` with the configured number of examples."""
    from . import formats
    from .testing import assert_format, judge_examples, read_examples

    configured = request.config.getoption("protocall_examples", default=None)
    if configured is None and os.environ.get("PROTOCALL_EXAMPLES"):
        configured = int(os.environ["PROTOCALL_EXAMPLES"])

    def check(fmt: Any, examples: str | PathLike[str] | None = None, **options: Any) -> Report:
        if examples is not None:  # real outputs first: the plainest failures
            if isinstance(fmt, str):
                fmt = formats.get(fmt)
            judge_examples(fmt, read_examples(examples)).raise_if_failed()
        options.setdefault("max_examples", configured)
        return assert_format(fmt, **options)

    return check
