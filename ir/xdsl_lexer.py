"""A linear-time string-literal regex for xDSL's MLIR lexer.

xDSL 0.74's ``MLIRLexer._lex_string_literal`` matches a string literal with
the regex ``SLOW_PATTERN`` below: a ``+`` inside a ``*``. When the literal is
not closed (end of file, a newline or an invalid escape before the closing
quote), Python's backtracking engine tries every way of cutting the
characters before that point into runs, doubling the time with each
character: 34 bytes, three double quotes then ``x-y`` eight times with spaces, lex for
minutes. The two alternatives start with different characters, so the
possessive form ``LINEAR_PATTERN`` matches exactly the same text and fails
in linear time; xDSL then reports its own "End of file reached before
closing string literal" at the literal's line and column.

Importing this module installs the regex (every module of syncopate that
parses IR text imports it). It is installed only over the pattern it was
written for: another xDSL keeps its own.
"""

from __future__ import annotations

import re

from xdsl.utils.mlir_lexer import MLIRLexer

SLOW_PATTERN = r'"(?:[^"\\\n\v\f]+|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
LINEAR_PATTERN = r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"'


def install() -> bool:
    """Replace xDSL's string-literal regex with the linear one; True if it is installed."""
    current = MLIRLexer._unescaped_characters_regex
    if current.pattern == SLOW_PATTERN:
        MLIRLexer._unescaped_characters_regex = re.compile(LINEAR_PATTERN)
        return True
    return current.pattern == LINEAR_PATTERN


INSTALLED = install()
