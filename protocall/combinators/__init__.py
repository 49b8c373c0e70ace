"""Resumable parser combinators: the core of protocall. Knows nothing about models.

Every parser answers, over the input seen so far: done (value, end), need more, fail
(backtrackable) or error (committed after a `cut`). End of input is explicit (`Run.finish`),
after which nothing needs more.
"""

from .choice import cut, not_followed_by, peek, quiet, separated_runs
from .members import judged
from .parser import (
    Alt,
    Many,
    Parser,
    Run,
    Step,
    alt,
    end_of_input,
    forward,
    generate,
    many,
    optional,
    seq,
    skip_many,
    success,
)
from .parsy_leaf import from_parsy
from .primitives import fail, literal, markers, regex, whitespace
from .quoted import string_token
from .recovery import ERROR, Recover, Recovered, recover, recurring, unfinished
from .result import (
    DONE,
    FAILED,
    NEED_MORE,
    Backtrack,
    Committed,
    ParseError,
    ParseFailure,
    Status,
    UsageError,
)
from .stream import Close, Input, Item, Open, Text
from .tags import Synthesised, as_text, dispatch, emit, json_escaped, tag
from .text import rest, until

__all__ = [
    "DONE",
    "ERROR",
    "FAILED",
    "NEED_MORE",
    "Alt",
    "Backtrack",
    "Close",
    "Committed",
    "Input",
    "Item",
    "Many",
    "Open",
    "ParseError",
    "ParseFailure",
    "Parser",
    "Recover",
    "Recovered",
    "Run",
    "Status",
    "Step",
    "Synthesised",
    "Text",
    "UsageError",
    "alt",
    "as_text",
    "cut",
    "dispatch",
    "emit",
    "end_of_input",
    "fail",
    "forward",
    "from_parsy",
    "generate",
    "json_escaped",
    "judged",
    "literal",
    "many",
    "markers",
    "not_followed_by",
    "optional",
    "peek",
    "quiet",
    "recover",
    "recurring",
    "regex",
    "rest",
    "separated_runs",
    "seq",
    "skip_many",
    "string_token",
    "success",
    "tag",
    "unfinished",
    "until",
    "whitespace",
]
