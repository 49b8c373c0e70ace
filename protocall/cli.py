"""The `protocall` command: parse, list formats, demo, record/replay streams, check a format,
export a format's grammar.

Exit codes: 0 success; 1 the parsed output has protocol errors (`--allow-errors` keeps 0);
2 bad usage (unknown format, unreadable file, invalid tools JSON, bad arguments), with a
one-line message on stderr; 3 `replay` found the streamed result different from the
one-shot one (a parser bug: the transcript is the bug report).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pprint
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, BinaryIO, NoReturn

from . import __version__, demo, formats
from .combinators import UsageError
from .events import (
    Event,
    ProtocolError,
    ReasoningDelta,
    ToolCallArgumentsDelta,
    ToolCallEnd,
    ToolCallStart,
)
from .formats import Format
from .formats.detect import detect, load
from .formats.models import MODELS
from .message import REASONING_FIELDS, Message, ToolCall
from .openai import DeltaStream, finish_reason
from .session import Session
from .spec import to_json
from .tools import normalize_tools
from .transcript import Chunk, Recorder, Transcript, drive, event_json, message_json, replay

if TYPE_CHECKING:
    from .testing import Report

USAGE, ERRORS, MISMATCH = 2, 1, 3


class _ArgumentParser(argparse.ArgumentParser):
    """Bad arguments: one line on stderr, exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        for reference in args.format_module:
            formats.import_formats(reference)
        status: int = args.run(args)
    except UsageError as error:
        print(f"protocall: {error}", file=sys.stderr)
        return USAGE
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130
    return status


# -- the subcommands ----------------------------------------------------------------------------


def _parse(args: argparse.Namespace) -> int:
    if args.tentative_calls and not args.openai:
        raise UsageError("--tentative-calls applies to --openai output only")
    streamed = args.events or args.openai
    session = _session(args, record=not streamed)  # streamed: the events say it all
    field = args.reasoning_field
    with _input(args.input) as stream:
        if not streamed:
            list(drive(session, [stream.read()]))
            _print_json(message_json(session.message, field), indent=2)
            return _status(session.message, args)
        deltas = None
        if args.openai:
            deltas = DeltaStream(tentative_calls=args.tentative_calls, reasoning_field=field)
        # What the final line and the exit status need: a call, and an error of each code.
        calls: list[ToolCall] = []
        errors: dict[str, ProtocolError] = {}
        for events in drive(session, _chunks(stream, args.chunk_size)):
            for event in events:
                if isinstance(event, ToolCallEnd):
                    calls[:] = (event.call,)
                elif isinstance(event, ProtocolError):
                    errors.setdefault(event.code, event)
            if deltas is None:
                for event in events:
                    _print_json(event_json(event))
            else:
                for delta in deltas.deltas(events):
                    _print_json({"index": 0, "delta": delta, "finish_reason": None})
            sys.stdout.flush()
    # The events add up to the message: its text is not joined, nor printed, once more.
    outline = Message(tool_calls=tuple(calls), errors=tuple(errors.values()))
    if deltas is None:
        _print_json({"type": "End", "finish_reason": finish_reason(outline)})
    else:
        _print_json({"index": 0, "delta": {}, "finish_reason": deltas.finish_reason()})
    return _status(outline, args)


def _formats(args: argparse.Namespace) -> int:
    if args.spec is not None:
        return _spec(args.spec, args.python)
    if args.python:
        raise UsageError("--python applies to --spec output only")
    if args.models:
        return _models(args.json)
    names = formats.names() if args.model is None else [args.model]
    described = [_describe_format(_format(name)) for name in names]
    if args.model is not None:
        described[0] = {"model": args.model, **described[0]}
    if args.json:
        _print_json(described if args.model is None else described[0], indent=2)
        return 0
    for entry in described:
        if "model" in entry:
            print(f"{entry['model']} writes format {entry['name']}")
        print(f"{entry['name']}\n    {entry['summary']}")
        for role, marker in entry["markers"].items():
            print(f"    {role:<24}{_visible(marker)}")
        print(f"    {'default start':<24}{entry['default_start'] or 'content'}")
        for prompt in entry["prompts"]:
            label = f"prompt ({prompt['start'] or 'nothing open'})"
            print(f"    {label:<24}{prompt['generation_prompt']!r}")
    return 0


def _models(as_json: bool) -> int:
    """The model names `-f` accepts beside the format names, and the format of each."""
    table = {model: formats.get(model) for model in MODELS}
    if as_json:
        _print_json({model: _model_entry(fmt) for model, fmt in table.items()}, indent=2)
        return 0
    for model, fmt in table.items():
        start = fmt.default_start
        print(f"{model:<24}{fmt.name}" + (f" (starts in {start})" if start else ""))
    return 0


def _model_entry(fmt: Format) -> dict[str, Any]:
    return {"format": fmt.name, "default_start": fmt.default_start}


def _spec(name: str, python: bool) -> int:
    """Print the declarative spec of format `name`, as JSON or as its Python repr."""
    spec = _format(name).spec
    if spec is None:
        raise UsageError(f"format {name!r} is not written as a spec yet")
    print(pprint.pformat(spec, width=100) if python else to_json(spec))
    return 0


def _demo(args: argparse.Namespace) -> int:
    tty = sys.stdout.isatty()
    if args.list:
        demo.list_examples(sys.stdout)
        return 0
    examples = demo.select(args.examples)
    delay = 0.0 if args.no_delay or not tty else args.delay
    color = tty and not args.no_color and "NO_COLOR" not in os.environ
    demo.play_all(examples, sys.stdout, delay=delay, color=color)
    return 0


def _record(args: argparse.Namespace) -> int:
    name = _format(args.format).name  # before the output file is created
    tools = _tools(args.tools)
    options = _options(args)
    with _output(args.output) as sink, _input(args.input) as stream:
        recorder = Recorder(name, tools, args.generation_prompt, sink=sink, **options)
        size = 0
        for chunk in recorder.wrap(_chunks(stream, args.chunk_size)):
            size += len(chunk)
    where = "stdout" if args.output == "-" else args.output
    chunks = len(recorder.transcript.chunks)
    print(f"protocall: recorded {chunks} chunks ({size} bytes) to {where}", file=sys.stderr)
    return 0


def _replay(args: argparse.Namespace) -> int:
    with _input(args.transcript) as stream:
        raw = stream.read()
    try:
        transcript = Transcript.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise UsageError(f"{args.transcript}: not UTF-8 text ({error})") from None
    started = time.monotonic()

    def pace(t: float) -> None:
        time.sleep(max(0.0, t - (time.monotonic() - started)))

    if not args.json:
        _print_replay_header(transcript)
    show = _print_step_json if args.json else _print_step
    result = replay(
        transcript,
        pace=pace if args.realtime else None,
        on_step=lambda number, events: show(transcript.chunks, number, events),
    )
    diff = result.diff()
    if args.json:
        _print_json({"type": "Result", "message": message_json(result.streamed), "diff": diff})
    else:
        print("message:")
        _print_json(message_json(result.streamed), indent=2)
        print(
            "\n".join(["one-shot vs streamed:", *diff])
            if diff
            else "one-shot and streamed results are identical"
        )
    if diff:
        print(
            "protocall: the streamed result differs from the one-shot result "
            "(a parser bug: please report it with this transcript)",
            file=sys.stderr,
        )
        return MISMATCH
    return _status(result.streamed, args)


def _print_replay_header(transcript: Transcript) -> None:
    chunks = transcript.chunks
    duration = chunks[-1].t if chunks else 0.0
    prompt = transcript.generation_prompt
    print(f"{transcript.format}: {len(chunks)} chunks over {duration:.3f} s")
    print(f"generation prompt: {'the template default' if prompt is None else repr(prompt)}")


def _print_step(chunks: Sequence[Chunk], number: int, events: list[Event]) -> None:
    if number < len(chunks):
        print(f"{number:>5}  +{chunks[number].t:.3f}s  {_show_chunk(chunks[number].data)}")
    else:
        print("  end  finish()")
    for event in events:
        print(f"{'':>15}{_describe_event(event)}")
    sys.stdout.flush()


def _print_step_json(chunks: Sequence[Chunk], number: int, events: list[Event]) -> None:
    step = number if number < len(chunks) else "finish"
    for event in events:
        _print_json({"chunk": step, **event_json(event)})
    sys.stdout.flush()


def _check(args: argparse.Namespace) -> int:
    if isinstance(args.examples, str):
        return _judge(args)
    tools = _tools(args.tools)
    check_format = _check_format()
    status = 0
    for fmt in _formats_named(args.format):
        with _Progress(f"checking {fmt.name}", sys.stderr):
            report = check_format(fmt, tools=tools, max_examples=args.examples, seed=args.seed)
        print(report)
        status = status if report.ok else ERRORS
    return status


def _judge(args: argparse.Namespace) -> int:
    """`check NAME --examples FILE`: the file's real outputs, judged one-shot and streamed."""
    if args.tools is not None or args.seed is not None:
        raise UsageError("--tools and --seed apply to the property checks, not --examples FILE")
    _check_format()  # the kit needs Hypothesis: say so in one line
    from .testing import judge_examples, read_examples

    examples = read_examples(args.examples)
    status = 0
    for fmt in _formats_named(args.format):
        report = judge_examples(fmt, examples)
        print(report)
        status = status if report.ok else ERRORS
    return status


def _detect(args: argparse.Namespace) -> int:
    detection = detect(load(args.path))
    print(detection.describe())
    if not args.check:
        return 0
    check_format = _check_format()
    with _Progress(f"checking {detection.format.name}", sys.stderr):
        report = check_format(detection.format, max_examples=args.examples, seed=args.seed)
    print(report)
    return 0 if report.ok else ERRORS


def _check_format() -> Callable[..., Report]:
    """The testing kit's `check_format`, imported only when it is needed: without
    Hypothesis (the `testing` extra) a `UsageError` names the extra."""
    try:
        from .testing import check_format
    except ModuleNotFoundError as missing:
        if missing.name != "hypothesis":
            raise
        raise UsageError(
            "checking a format needs Hypothesis: pip install 'protocall[testing]'"
        ) from None
    return check_format


class _Progress:
    """While a long run works, a line on a terminal saying so, with the time elapsed
    (nothing when the stream is not a terminal); erased when the run ends."""

    def __init__(self, label: str, stream: IO[str], interval: float = 0.5) -> None:
        self.label, self.stream, self.interval = label, stream, interval
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._show, daemon=True)

    def __enter__(self) -> None:
        if self.stream.isatty():
            self._thread.start()

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        if self._thread.is_alive():
            self._thread.join()
            self.stream.write("\r\x1b[K")
            self.stream.flush()

    def _show(self) -> None:
        started = time.monotonic()
        spinner = "|/-\\"
        tick = 0
        while not self._done.wait(self.interval if tick else 0):
            elapsed = time.monotonic() - started
            self.stream.write(f"\r{spinner[tick % 4]} {self.label} ({elapsed:.0f} s)")
            self.stream.flush()
            tick += 1


# -- shared pieces ------------------------------------------------------------------------------


def _grammar(args: argparse.Namespace) -> int:
    special = None if args.special_tokens is None else args.special_tokens.split()
    exported = _format(args.format).decoding_export(
        _tools(args.tools),
        args.dialect,
        tool_choice=args.tool_choice,
        parallel=args.parallel,
        reasoning=args.reasoning,
        generation_prompt=args.generation_prompt,
        special_tokens=special,
        stop=args.stop,
    )
    text = exported.text
    print(text if args.dialect in ("lark", "gbnf") else json.dumps(json.loads(text), indent=2))
    for line in exported.dropped:  # looser there: the parser's validation still checks it
        print(f"dropped: {line}", file=sys.stderr)
    return 0


def _format(name: str) -> Format:
    """The format `name` names: a registered format, a model name, or the one format of a
    Python file (`path/to/my_format.py`, see `_formats_named`)."""
    found = _formats_named(name)
    if len(found) != 1:
        listed = ", ".join(fmt.name for fmt in found)
        raise UsageError(
            f"{name} defines {len(found)} formats ({listed}): name one, as "
            f"`--format-module {name} -f NAME`"
        )
    return found[0]


def _formats_named(name: str) -> list[Format]:
    """The formats `name` names: those a Python file defines where `name` is a path
    (`….py`, or with a `/`: imported and registered, see `formats.import_formats`), else
    the registered format or model name."""
    if name.partition(":")[0].endswith(".py") or "/" in name:
        return formats.import_formats(name)
    return [formats.get(name)]


def _session(args: argparse.Namespace, record: bool = True) -> Session:
    fmt = _format(args.format)
    options = _options(args)
    return fmt.parser(_tools(args.tools), args.generation_prompt, **options, record=record)


def _tools(path: str | None) -> list[Any] | None:
    """The tools of `--tools FILE`: a JSON list of OpenAI tools or bare function objects,
    or a request body with a `tools` list."""
    if path is None:
        return None
    with _input(path) as stream:
        raw = stream.read()
    try:
        document = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise UsageError(f"--tools {path}: invalid JSON: {error}") from None
    if isinstance(document, dict) and "tools" in document:
        document = document["tools"]
    if not isinstance(document, list):
        raise UsageError(f'--tools {path}: expected a JSON list of tools (or {{"tools": [...]}})')
    try:
        normalize_tools(document)
    except UsageError as error:
        raise UsageError(f"--tools {path}: {error}") from None
    return document


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The session options the flags set (defaults left out, so transcripts stay short)."""
    options: dict[str, Any] = {}
    if args.seed is not None:
        options["seed"] = args.seed
    if args.validate is not None:
        options["validate"] = args.validate
    if not args.passthrough_malformed:
        options["passthrough_malformed"] = False
    if args.truncated_as_content:
        options["truncated_as_content"] = True
    if args.reject_invalid:
        options["reject_invalid"] = True
    return options


def _status(message: Message, args: argparse.Namespace) -> int:
    if message.errors and not args.allow_errors:
        codes = ", ".join(dict.fromkeys(error.code for error in message.errors))
        print(f"protocall: the output has protocol errors ({codes})", file=sys.stderr)
        return ERRORS
    return 0


def _input(path: str) -> contextlib.AbstractContextManager[BinaryIO]:
    """`path` opened for reading bytes (`-`: stdin, left open)."""
    if path == "-":
        return contextlib.nullcontext(sys.stdin.buffer)
    try:
        return Path(path).open("rb")
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror or error}") from None


def _output(path: str) -> contextlib.AbstractContextManager[IO[str]]:
    """`path` opened for writing text (`-`: stdout, left open)."""
    if path == "-":
        return contextlib.nullcontext(sys.stdout)
    try:
        return Path(path).open("w", encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror or error}") from None


def _chunks(stream: BinaryIO, size: int) -> Iterator[bytes]:
    """At most `size` bytes at a time, as they become available (a pipe from a running
    model yields chunks live)."""
    read = getattr(stream, "read1", stream.read)
    while chunk := read(size):
        yield chunk


def _print_json(value: Any, indent: int | None = None) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=indent))


def _visible(marker: str) -> str:
    return marker.replace("\n", "\\n")


def _describe_format(fmt: Format) -> dict[str, Any]:
    return {
        "name": fmt.name,
        "summary": fmt.summary,
        "markers": dict(fmt.markers),
        "channels": {name: list(pair) for name, pair in fmt.channels.items()},
        "default_start": fmt.default_start,
        "prompts": [
            {"start": start, "generation_prompt": prompt} for start, prompt in fmt.prompts.items()
        ],
    }


def _show_chunk(data: str | bytes) -> str:
    """A text chunk, or bytes that decode on their own, as a string literal; other
    bytes as a bytes literal."""
    if isinstance(data, bytes):
        try:
            return repr(data.decode("utf-8"))
        except UnicodeDecodeError:
            return repr(data)
    return repr(data)


def _describe_event(event: Event) -> str:
    if isinstance(event, ToolCallStart):
        return f"call {event.index} start  {event.name} (id {event.id})"
    if isinstance(event, ToolCallArgumentsDelta):
        return f"call {event.index} args   {event.text!r}"
    if isinstance(event, ToolCallEnd):
        call = event.call
        problems = f"  validation errors: {'; '.join(call.validation_errors)}"
        return f"call {event.index} end    {call.name} {call.arguments_json}" + (
            problems if call.validation_errors else ""
        )
    if isinstance(event, ProtocolError):
        return f"error {event.code}: {event.message} (raw {event.raw!r})"
    kind = "reasoning" if isinstance(event, ReasoningDelta) else "content"
    return f"{kind:<14}{event.text!r}"


# -- the argument parser ------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog="protocall",
        description="Parse the streaming output of language models as a protocol.",
        epilog="Exit status: 0 ok, 1 protocol errors in the output, 2 bad usage, "
        "3 replay: streamed differs from one-shot.",
    )
    parser.add_argument("--version", action="version", version=f"protocall {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    plugins = _ArgumentParser(add_help=False)
    plugins.add_argument(
        "--format-module",
        action="append",
        default=[],
        metavar="MODULE[:ATTR]",
        help="import the formats a module or a .py file defines first (repeatable; "
        "installed packages' `protocall.formats` entry points are found without it)",
    )

    def command(name: str, run: Any, help: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=help, parents=[plugins])
        sub.set_defaults(run=run)
        return sub

    parse = command("parse", _parse, "parse one model output (a file or stdin)")
    _add_stream_arguments(parse)
    parse.add_argument("input", nargs="?", default="-", metavar="FILE", help="default: stdin")
    shape = parse.add_mutually_exclusive_group()
    shape.add_argument(
        "--events", action="store_true", help="stream events as JSON lines, reading in chunks"
    )
    shape.add_argument(
        "--openai", action="store_true", help="stream OpenAI chat.completion.chunk choices"
    )
    parse.add_argument(
        "--tentative-calls",
        action="store_true",
        help="with --openai: stream calls before they complete (for UIs: may never complete)",
    )
    parse.add_argument(
        "--reasoning-field",
        choices=REASONING_FIELDS,
        default=REASONING_FIELDS[0],
        help="the name of the reasoning field in OpenAI output (default: %(default)s)",
    )
    _add_chunk_size(parse)
    _add_allow_errors(parse)

    listing = command("formats", _formats, "list the registered formats")
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    listing.add_argument("--model", metavar="NAME", help="the format model NAME writes")
    listing.add_argument(
        "--models", action="store_true", help="the model names -f accepts, and their formats"
    )
    listing.add_argument("--spec", metavar="NAME", help="print format NAME's spec as JSON")
    listing.add_argument("--python", action="store_true", help="print the spec as Python")

    show = command("demo", _demo, "stream bundled example outputs and show what each side sees")
    show.add_argument(
        "examples", nargs="*", metavar="NAME", help="example or format names (default: all)"
    )
    show.add_argument("--list", action="store_true", help="list the bundled examples")
    show.add_argument("--delay", type=float, default=0.025, help="seconds per chunk on a tty")
    show.add_argument("--no-delay", action="store_true", help="do not pause between chunks")
    show.add_argument("--no-color", action="store_true", help="plain text, even on a tty")

    record = command("record", _record, "record a raw stream (file or stdin) as a transcript")
    _add_stream_arguments(record)
    record.add_argument("input", nargs="?", default="-", metavar="FILE", help="default: stdin")
    record.add_argument(
        "-o", "--output", default="-", metavar="FILE", help="transcript file (default: stdout)"
    )
    _add_chunk_size(record)

    again = command("replay", _replay, "replay a transcript: events, and one-shot vs streamed")
    again.add_argument("transcript", metavar="TRANSCRIPT", help="a transcript file, or -")
    again.add_argument("--json", action="store_true", help="events as JSON lines")
    again.add_argument(
        "--realtime", action="store_true", help="feed chunks at their recorded times"
    )
    _add_allow_errors(again)

    check = command("check", _check, "run the testing kit's property checks on a format")
    check.add_argument("format", metavar="FORMAT", help="a format, model name or .py file")
    check.add_argument(
        "--examples",
        type=_count_or_file,
        metavar="N|FILE",
        help="a number: examples per run (default: the profile's); a file: real outputs as "
        "JSON lines (output, generation_prompt, tools, expected), judged instead",
    )
    check.add_argument("--seed", type=int, help="make the runs reproducible")
    check.add_argument("--tools", metavar="FILE", help="a fixed tool set (default: drawn)")

    grammar = command("grammar", _grammar, "a format and its tools as a grammar for decoding")
    grammar.add_argument("format", metavar="FORMAT")
    _add_tools_and_prompt(grammar)
    grammar.add_argument(
        "--dialect",
        choices=("lark", "gbnf", "gbnf-lazy", "structural-tag"),
        default="lark",
        help="lark (llguidance), gbnf (llama.cpp), gbnf-lazy (llama.cpp request fields), "
        "structural-tag (vLLM, SGLang); default: %(default)s",
    )
    grammar.add_argument(
        "--tool-choice",
        default="auto",
        metavar="CHOICE",
        help="auto, required, or a tool name (default: %(default)s)",
    )
    allowed_by = (
        ("--parallel", "more than one call"),
        ("--reasoning", "reasoning"),
        ("--stop", "the turn's stop at its end (--no-stop: the engine's stop token ends it)"),
    )
    for flag, allowed in allowed_by:
        on_off = argparse.BooleanOptionalAction
        grammar.add_argument(flag, action=on_off, default=True, help=f"allow {allowed} (on)")
    grammar.add_argument(
        "--special-tokens",
        metavar="TOKENS",
        help="space-separated marker texts that are special tokens (lark; default: <|…|>, <｜…｜>)",
    )

    found = command("detect", _detect, "the format a model's chat template implies")
    found.add_argument(
        "path", metavar="PATH", help="a model folder, a tokenizer_config.json or a .jinja file"
    )
    found.add_argument("--check", action="store_true", help="then run `check` on the format")
    found.add_argument("--examples", type=_positive, metavar="N", help="with --check")
    found.add_argument("--seed", type=int, help="with --check")
    return parser


def _add_stream_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-f",
        "--format",
        required=True,
        metavar="NAME",
        help="format or model name (qwen3.5), or a .py file defining one",
    )
    _add_tools_and_prompt(parser)
    parser.add_argument("--seed", type=int, help="deterministic call ids")
    parser.add_argument(
        "--passthrough-malformed",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="pass a malformed region's raw text through as content (default: on)",
    )
    parser.add_argument(
        "--truncated-as-content",
        action="store_true",
        help="pass a call cut off by the end of input through as content",
    )
    parser.add_argument(
        "--validate",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="check arguments against the tool schemas (default: on)",
    )
    parser.add_argument(
        "--reject-invalid", action="store_true", help="a schema violation rejects the call"
    )


def _add_tools_and_prompt(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tools", metavar="FILE", help="JSON list of tools (OpenAI shape)")
    parser.add_argument(
        "--generation-prompt",
        metavar="TEXT",
        help="the tail the chat template appended (default: the format's template default)",
    )


def _add_chunk_size(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--chunk-size",
        type=_positive,
        default=4096,
        metavar="N",
        help="at most N bytes per chunk, as they become available (4096)",
    )


def _add_allow_errors(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-errors", action="store_true", help="exit 0 even when the output has errors"
    )


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def _count_or_file(text: str) -> int | str:
    """`--examples`: digits are a count (at least 1), anything else the path of a file."""
    return _positive(text) if text.strip().lstrip("-").isdigit() else text
