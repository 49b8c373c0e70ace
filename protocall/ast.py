"""The semantic AST: nodes tagged by meaning, each with its span in the stream.

Format grammars tag what they match with the names below; the session builds the tree from
the emitted items as they arrive (`TreeBuilder`) and derives events and the `Message` from it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .combinators import ERROR, Item, Open, Text

REASONING = "reasoning"
CONTENT = "content"
TOOL_CALL = "tool_call"
TOOL_CALLS = "tool_calls"  # an envelope: its calls complete when it closes
TOOL_ID = "tool_id"
TOOL_NAME = "tool_name"
TOOL_ARGUMENTS = "tool_arguments"
ARGUMENT = "argument"
ARGUMENT_NAME = "argument_name"
ARGUMENT_VALUE = "argument_value"
END_OF_TURN = "end_of_turn"
REASONING_CLOSE = "reasoning_close"  # a reasoning close where the prompt opened no block
__all__ = [
    "ARGUMENT",
    "ARGUMENT_NAME",
    "ARGUMENT_VALUE",
    "CONTENT",
    "END_OF_TURN",
    "ERROR",
    "REASONING",
    "REASONING_CLOSE",
    "TOOL_ARGUMENTS",
    "TOOL_CALL",
    "TOOL_CALLS",
    "TOOL_ID",
    "TOOL_NAME",
    "Node",
    "TextSpan",
    "TreeBuilder",
]


class TextSpan:
    """Contiguous streamed text from `start`; pieces are joined only when read."""

    __slots__ = ("_pieces", "end", "start")

    def __init__(self, text: str, start: int) -> None:
        self._pieces = [text]
        self.start = start
        self.end = start + len(text)

    def extend(self, text: str) -> None:
        self._pieces.append(text)
        self.end += len(text)

    @property
    def text(self) -> str:
        if len(self._pieces) > 1:
            self._pieces = ["".join(self._pieces)]
        return self._pieces[0]

    def __repr__(self) -> str:
        return f"TextSpan({self.text!r}, {self.start})"


@dataclass
class Node:
    """A tagged region `[start, end)`; `value` is its parser's value once closed.

    A node the output ended inside has `complete=False`. A node a failed region left open
    is not in the tree: the `error` node that follows holds the region's text.
    """

    tag: str
    start: int
    end: int | None = None
    value: Any = None
    children: list[Node | TextSpan] = field(default_factory=list)
    complete: bool = False

    @property
    def text(self) -> str:
        """All streamed text inside the node, in order."""
        return "".join(child.text for child in self.children)

    def walk(self) -> Iterator[Node]:
        """This node and every node below it, depth first."""
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.walk()

    def find_all(self, tag: str) -> list[Node]:
        return [node for node in self.walk() if node.tag == tag]

    def __repr__(self) -> str:
        return f"Node({self.tag!r}, {self.start}, {self.end}, value={self.value!r})"


ROOT = "turn"


class TreeBuilder:
    """Builds the tree from items; `stack[-1]` is the innermost open node."""

    def __init__(self) -> None:
        self.root = Node(ROOT, 0)
        self.stack = [self.root]

    def add(self, item: Item) -> Node | None:
        """Apply one item; return the node it opened or closed (None for text)."""
        if isinstance(item, Text):
            children = self.stack[-1].children
            if children and isinstance(children[-1], TextSpan) and children[-1].end == item.start:
                children[-1].extend(item.text)
            else:
                children.append(TextSpan(item.text, item.start))
            return None
        if isinstance(item, Open):
            if item.tag == ERROR:
                self.drop(item.start)
            node = Node(item.tag, item.start)
            self.stack[-1].children.append(node)
            self.stack.append(node)
            return node
        node = self.stack.pop()
        node.end, node.value, node.complete = item.end, item.value, True
        return node

    def drop(self, start: int) -> None:
        """Take out of the tree the open nodes that began at or after `start` (the
        outermost of them is the last child of the node open around it)."""
        dropped = None
        while len(self.stack) > 1 and self.stack[-1].start >= start:
            dropped = self.stack.pop()
        if dropped is not None:
            self.stack[-1].children.pop()

    def finish(self, end: int) -> Node:
        while len(self.stack) > 1:
            self.stack.pop().end = end
        self.root.end = end
        return self.root
