"""The pseudo-function calls' shortcut: `PythonName`'s glance, which decides once the
character after the name is in the window, as the step would. So a choice, or a text scan
reading openers that head no call as text, rules out a list whose first name is not
declared (`[get_weathe[`) without running it."""

from __future__ import annotations

from ..values.pyfunc import PythonName
from .glance import WAITING, Glance, failing
from .registry import analysis


def _glance(self: PythonName, window: str) -> Glance | None:
    token = self.pattern.match(window)
    if token is None:
        return failing(("a tool name",))
    end = token.end()
    if end == len(window):
        return WAITING
    expected = self.refused(token.group())
    return Glance(end, None if expected is None else (expected,))


def _reach(self: PythonName) -> int:
    """The longest name that can be declared, and the character after it."""
    names, limit = self.names, self.limit
    return min(max(map(len, names), default=0) if names is not None else limit, limit) + 1


def _waits(self: PythonName) -> bool:
    return True


analysis(PythonName, "_glance", _glance)
analysis(PythonName, "_reach", _reach)
analysis(PythonName, "waits", _waits)
