"""No function of the package is longer than 80 lines unless its docstring
says why (a line starting ``Long:``): a newcomer reads a function whole, and
a long one usually holds several jobs that want names of their own."""

import ast

from test_layering import ROOT, package_files

LIMIT = 80
REASON = "Long:"


def long_functions(source: str, name: str) -> list[str]:
    """``file:line name (n lines)`` of each function in ``source`` over the
    limit whose docstring gives no reason."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = node.end_lineno - node.lineno + 1
            doc = ast.get_docstring(node) or ""
            if lines > LIMIT and not any(line.strip().startswith(REASON) for line in doc.splitlines()):
                found.append(f"{name}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_function_is_longer_than_the_limit_without_a_reason():
    files = package_files()
    assert len(files) > 100, "the scan found too few files"
    found = [f for path in files for f in long_functions(path.read_text(), str(path.relative_to(ROOT)))]
    assert not found, "functions over 80 lines; split them, or say why in a docstring line 'Long: ...':\n" + \
        "\n".join(found)


def test_the_check_sees_a_long_function_and_accepts_a_reason():
    body = "".join(f"    x{i} = {i}\n" for i in range(LIMIT))
    assert long_functions(f"def f():\n{body}", "m.py") == [f"m.py:1 f ({LIMIT + 1} lines)"]
    assert long_functions(f'def f():\n    """Long: one table."""\n{body}', "m.py") == []
    assert long_functions(f"def f():\n{body[:-12]}", "m.py") == []
