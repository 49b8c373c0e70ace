"""The package's metadata: what an index page and a resolver read from pyproject.toml."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+; the metadata is the same on 3.10

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def project() -> dict[str, Any]:
    document: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    return document["project"]


def test_the_metadata_names_authors_keywords_and_classifiers(project: dict[str, Any]) -> None:
    assert project["authors"] and project["keywords"]
    assert "Typing :: Typed" in project["classifiers"]  # protocall/py.typed ships
    assert (ROOT / "protocall" / "py.typed").exists()


def test_the_classifiers_list_every_supported_python_from_the_minimum(
    project: dict[str, Any],
) -> None:
    minimum = re.fullmatch(r">=3\.(\d+)", project["requires-python"])
    assert minimum is not None
    listed = sorted(
        int(found.group(1))
        for classifier in project["classifiers"]
        if (found := re.fullmatch(r"Programming Language :: Python :: 3\.(\d+)", classifier))
    )
    assert listed == list(range(int(minimum.group(1)), listed[-1] + 1))
    assert sys.version_info.minor in listed  # the interpreter running this suite
