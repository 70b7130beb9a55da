"""Parse the emitted Python on stdin with `ast.parse` and print the names of
its functions: `parses: k, helper`. A syntax error fails with its line."""

import ast
import sys

tree = ast.parse(sys.stdin.read())
print("parses:", ", ".join(node.name for node in tree.body if isinstance(node, ast.FunctionDef)))
