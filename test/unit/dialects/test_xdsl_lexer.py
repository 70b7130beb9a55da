"""xDSL 0.74 lexes an unclosed string literal in time exponential in its
length (ir/xdsl_lexer.py); syncopate installs a linear regex that matches the
same literals."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import time

import pytest
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from syncopate.ir import xdsl_lexer
from syncopate.ir.context import make_context

HANG = '"""' + " ".join(["x-y"] * 8)  # 34 bytes: minutes with xDSL's own regex


def _lex_all(text: str) -> None:
    lexer = MLIRLexer(Input(text, "t.mlir"))
    while lexer.lex().kind != MLIRTokenKind.EOF:
        pass


def test_the_linear_regex_is_installed():
    assert xdsl_lexer.INSTALLED
    assert MLIRLexer._unescaped_characters_regex.pattern == xdsl_lexer.LINEAR_PATTERN


@pytest.mark.parametrize("text", [HANG, '"""' + " ".join(["x-y"] * 5000), '"' + "a" * 10000 + "\n\"",
                                  '"' + "a" * 10000 + '\\q"', 'builtin.module attributes {a = "' + "x" * 10000])
def test_an_unclosed_string_literal_fails_at_once(text):
    start = time.perf_counter()
    with pytest.raises(ParseError, match="closing string literal"):
        _lex_all(text)
    assert time.perf_counter() - start < 1.0


def test_the_parser_reports_file_line_and_column():
    with pytest.raises(ParseError) as info:
        Parser(make_context(), "builtin.module {}\n" + HANG, "bad.mlir").parse_module()
    assert "bad.mlir:2:3" in str(info.value)
    assert "End of file reached before closing string literal" in str(info.value)


def test_the_linear_regex_matches_what_xdsls_matches():
    slow, fast = re.compile(xdsl_lexer.SLOW_PATTERN), re.compile(xdsl_lexer.LINEAR_PATTERN)
    alphabet = 'ab"\\\nnt0F\vq é'
    rng = random.Random(0)
    for _ in range(20000):
        text = '"' + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10)))
        a, b = slow.match(text), fast.match(text)
        assert (a and a.span()) == (b and b.span()), text


def test_a_fresh_interpreter_parsing_a_plan_file_gets_the_fix(tmp_path):
    """The plan loader installs the regex on its own (no other syncopate import first)."""
    path = tmp_path / "p.mlir"
    path.write_text(HANG)
    code = ("import sys; from syncopate.ir.plans.load import load_file, PlanError\n"
            "try:\n    load_file(sys.argv[1])\nexcept PlanError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    assert "End of file reached before closing string literal" in out.stdout, out.stderr


@pytest.mark.parametrize("text, where", [
    ("builtin.module {\n" * 100 + "}\n" * 100, (65, 16, "{")),
    ("builtin.module attributes {a = " + "[" * 200 + "]" * 200 + "} {}", (1, 95, "[")),
    ("builtin.module attributes {a = " + "tuple<" * 100 + "i32" + ">" * 100 + "} {}", (1, 31 + 6 * 64, "<")),
])
def test_brackets_nested_past_the_bound_are_found_by_line_and_column(text, where):
    assert xdsl_lexer.too_deep(text) == where
    message = xdsl_lexer.nesting_message(text, "deep.mlir")
    assert message == (f"deep.mlir:{where[0]}:{where[1]}: brackets nest more than 64 deep at this '{where[2]}'; "
                       "the IR parser would exceed Python's recursion limit")


def test_brackets_in_strings_comments_and_arrows_do_not_count():
    text = ('builtin.module attributes {a = "' + "{[(<" * 100 + '", b = "\\"{{{{"} {\n'
            + "// " + "{" * 100 + "\n" + "%x = \"op\"() : () -> ()\n" * 100 + "}\n")
    assert xdsl_lexer.too_deep(text) is None
    assert xdsl_lexer.too_deep("builtin.module {\n" * 64 + "}\n" * 64) is None


def test_nesting_at_the_bound_still_parses():
    """The bound leaves room: 64 nested regions parse below pytest's frames."""
    text = "builtin.module {\n" * 64 + "}\n" * 64
    Parser(make_context(), text, "ok.mlir").parse_module()
