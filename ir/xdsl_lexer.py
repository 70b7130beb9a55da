"""Guards for xDSL's MLIR lexer and parser: a linear-time string-literal regex, a nesting bound.

xDSL 0.74's ``MLIRLexer._lex_string_literal`` matches a string literal with
the regex ``SLOW_PATTERN`` below: a ``+`` inside a ``*``. When the literal is
not closed (end of file, a newline or an invalid escape before the closing
quote), Python's backtracking engine tries every way of cutting the
characters before that point into runs, doubling the time with each
character: 34 bytes, three double quotes then ``x-y`` eight times with spaces, lex for
minutes. ``LINEAR_PATTERN`` is the same language unrolled (plain
characters, then escapes each followed by plain characters): an escape
starts with the one character a plain run excludes, so there is one way to
cut any text and a failure is found in linear time (the possessive ``++``
would do too, but needs Python 3.11). xDSL then reports its own "End of
file reached before closing string literal" at the literal's line and
column.

:func:`too_deep` finds brackets nested deeper than xDSL's recursive parser
can go, so that such text is refused by line and column, not with a
RecursionError.

Importing this module installs the regex (every module of syncopate that
parses IR text imports it). It is installed only over the pattern it was
written for: another xDSL keeps its own.
"""

from __future__ import annotations

import re

from xdsl.utils.mlir_lexer import MLIRLexer

SLOW_PATTERN = r'"(?:[^"\\\n\v\f]+|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
LINEAR_PATTERN = r'"[^"\\\n\v\f]*(?:\\(?:["nt\\]|[0-9A-Fa-f]{2})[^"\\\n\v\f]*)*"'


def install() -> bool:
    """Replace xDSL's string-literal regex with the linear one; True if it is installed."""
    current = MLIRLexer._unescaped_characters_regex
    if current.pattern == SLOW_PATTERN:
        MLIRLexer._unescaped_characters_regex = re.compile(LINEAR_PATTERN)
        return True
    return current.pattern == LINEAR_PATTERN


INSTALLED = install()


MAX_NESTING = 64
"""Brackets (``{ ( [ <``) IR text may nest: xDSL's parser recurses per
level, a dozen Python frames each, and reaches Python's recursion limit
near a hundred levels."""

_NESTING_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"?|//[^\n]*|->|[{(\[<]|[})\]>]|\n')


def too_deep(text: str) -> tuple[int, int, str] | None:
    """(line, column, bracket) where ``text`` first nests brackets more than
    ``MAX_NESTING`` deep, outside string literals and comments; None if it
    never does. Linear in the text."""
    depth, line, line_start = 0, 1, 0
    for match in _NESTING_TOKEN.finditer(text):
        token = match.group()
        if token == "\n":
            line, line_start = line + 1, match.end()
        elif token in "{([<":
            depth += 1
            if depth > MAX_NESTING:
                return line, match.start() - line_start + 1, token
        elif token in "})]>":
            depth = max(0, depth - 1)
    return None


def nesting_message(text: str, name: str) -> str | None:
    """``NAME:LINE:COL: ...`` if ``text`` nests deeper than xDSL's parser can."""
    where = too_deep(text)
    if where is None:
        return None
    line, column, bracket = where
    return (f"{name}:{line}:{column}: brackets nest more than {MAX_NESTING} deep at this '{bracket}'; "
            "the IR parser would exceed Python's recursion limit")
