"""Integer ranges as regular expressions in the subset GBNF and Lark share (character
classes, groups, `|`, `{m,n}`; a literal character is a class of one): what `minimum`,
`maximum` and their exclusive forms allow of an integer, as JSON and `repr` write it."""

from __future__ import annotations


def integers(least: int | None, most: int | None) -> str:
    """The integers from `least` to `most` (None: unbounded; at least one of them), with
    no leading zero and no `-0`."""
    spellings = []
    if least is None or least < 0:  # the negative ones, by their magnitude
        smallest = 1 if most is None or most >= 0 else -most
        magnitudes = _naturals(smallest, None if least is None else -least)
        spellings.append("[-](" + "|".join(magnitudes) + ")")
    if most is None or most >= 0:
        spellings += _naturals(max(least or 0, 0), most)
    return "(" + "|".join(spellings) + ")"


def _naturals(least: int, most: int | None) -> list[str]:
    """The natural numbers from `least` to `most` (None: unbounded), one spelling per
    number of digits (fewer where a range of them is whole)."""
    if most is not None and least > most:
        return []
    spellings = []
    if least == 0:
        spellings.append("[0]")
        least = 1
    digits = len(str(least))
    while most is None or 10 ** (digits - 1) <= most:
        low = max(least, 10 ** (digits - 1))
        if most is None and low == 10 ** (digits - 1):  # every number of these digits or more
            spellings.append(f"[1-9][0-9]{{{digits - 1},}}" if digits > 1 else "[1-9][0-9]*")
            break
        high = 10**digits - 1 if most is None else min(most, 10**digits - 1)
        spellings += _same_length(str(low), str(high))
        digits += 1
    return spellings


def _same_length(low: str, high: str) -> list[str]:
    """The numbers from `low` to `high`, written with as many digits as both."""
    rest = len(low) - 1
    if low[0] == high[0]:
        tail = "|".join(_same_length(low[1:], high[1:])) if rest else ""
        return [f"[{low[0]}]" + (f"({tail})" if tail else "")]
    spellings, first, last = [], int(low[0]), int(high[0])
    if low[1:] != "0" * rest:  # from low to the end of its leading digit
        spellings.append(f"[{low[0]}](" + "|".join(_same_length(low[1:], "9" * rest)) + ")")
        first += 1
    whole_last = high[1:] == "9" * rest
    if not whole_last:
        last -= 1
    if first <= last:
        spellings.append(f"[{first}-{last}]" + (f"[0-9]{{{rest}}}" if rest else ""))
    if not whole_last:  # from the start of high's leading digit to high
        spellings.append(f"[{high[0]}](" + "|".join(_same_length("0" * rest, high[1:])) + ")")
    return spellings
