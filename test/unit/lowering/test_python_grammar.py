"""Emitted module-level Python is only what the IR means (dialects/python_grammar.py).

The prelude, decorators, defaults and annotations of a tile module run when
the emitted file is imported. Every hole a fragment of IR text could open is
refused with one line; every file the kernels of the repository emit, and
every accepted mutation of injected fragments, imports in a subprocess whose
audit hook fails on process creation, ``os.system``, sockets and writes.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.utils.exceptions import VerifyException

from syncopate.dialects import python_grammar as grammar
from syncopate.ir.frontend import FrontendError
from syncopate.ir.frontend.triton_import import import_file, import_source
from xdsl.dialects.builtin import StringAttr
from xdsl.parser import Parser

from syncopate.ir.context import make_context
from syncopate.lowering.compile import compile_module
from syncopate.lowering.triton_emitter import EmitError, emit_module, prelude_source

ROOT = Path(__file__).resolve().parents[3]
KERNEL_FILES = sorted(
    p for folder in ("examples", "test/corpus", "kernels") for p in (ROOT / folder).glob("*.py")
    if not p.name.startswith("_") and "@triton.jit" in p.read_text()
)

SANDBOX = r'''
import importlib.util, json, sys
import triton, triton.language  # Triton's own start-up is not under test

FORBIDDEN = ("os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "subprocess.Popen",
             "socket.", "os.remove", "os.rename", "os.rmdir", "os.mkdir", "shutil.", "ctypes.")

def hook(event, args):
    if event.startswith(FORBIDDEN):
        raise RuntimeError(f"sandbox: {event}")
    if event == "open" and isinstance(args[1], str) and any(c in args[1] for c in "wax+"):
        raise RuntimeError(f"sandbox: open {args[0]!r} for writing")

sys.addaudithook(hook)
failures = {}
for path in json.loads(sys.argv[1]):
    spec = importlib.util.spec_from_file_location("emitted", path)
    try:
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
    except BaseException as error:
        failures[path] = f"{type(error).__name__}: {error}"
print(json.dumps(failures))
'''


def _import_in_sandbox(paths: list[Path]) -> dict[str, str]:
    """Path -> error of each emitted file whose import failed or made a forbidden call."""
    done = subprocess.run([sys.executable, "-c", SANDBOX, json.dumps([str(p) for p in paths])],
                          capture_output=True, text=True, timeout=600, cwd=paths[0].parent)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------
# Refused fragments
# --------------------------------------------------------------------------

REFUSED_EXPRESSIONS = {
    "triton.runtime.build.os.system('echo hi')": "'triton.runtime' is not a Triton name",
    "tl.core.builtins.exec('1')": "'tl.core.builtins' is not a Triton name",
    "tl.extra.module_from_spec": "'tl.extra.module_from_spec' is not a Triton name",
    "os.system('echo hi')": "'os' is neither triton, tl",
    "subprocess.run(['x'])": "'subprocess' is neither",
    "__import__('os')": "'__import__' is a dunder name",
    "eval('1')": "'eval' is neither",
    "exec('1')": "'exec' is neither",
    "open('/tmp/x', 'w')": "'open' is neither",
    "getattr(tl, 'core')": "'getattr' is neither",
    "tl.__dict__": "reads the dunder attribute '__dict__'",
    "().__class__.__bases__[0].__subclasses__()": "reads the dunder attribute '__subclasses__'",
    "[x for x in (1,)].copy().__class__": "reads the dunder attribute '__class__'",
    "(x := 1)": "is a NamedExpr",
    "f'{tl}'": "is a JoinedStr",
    "SIZES.pop()": "reads the attribute 'pop'",
    "triton.jit\nimport os": "is not a Python expression",
    "lambda __x: 1": "binds the dunder name '__x'",
}


@pytest.mark.parametrize("text", sorted(REFUSED_EXPRESSIONS), ids=repr)
def test_a_forbidden_expression_is_refused_with_its_construct(text: str):
    scope = grammar.prelude_scope("SIZES = [16]")
    with pytest.raises(grammar.ForbiddenPython, match=r"^tile.func @k: decorator .*: .*" + _escape(REFUSED_EXPRESSIONS[text])):
        grammar.check_expression(grammar.fragment_what("tile.func @k", "decorator", text), text, scope)


REFUSED_PRELUDES = {
    "import os": "line 1: 'import os' imports 'os'",
    "from os import system": "imports 'os.system'",
    "import triton.runtime.build": "imports 'triton.runtime.build'",
    "from triton.runtime import build": "imports 'triton.runtime.build'",
    "from triton.language.extra import module_from_spec": "imports 'triton.language.extra.module_from_spec'",
    "from .configs import f": "is a relative import",
    "X = 1\nos.system('x')": "line 2: \"os.system('x')\" is not an import, an assignment",
    "X = __import__('os')": "'__import__' is a dunder name",
    "tl.float16 = 3": "'tl.float16' is not a name or a tuple of names",
    "tl = 3": "'tl' rebinds 'tl'",
    "import triton.language.core as tl": "rebinds 'tl'",
    "from triton import jit\njit = 3": "rebinds the Triton name 'jit'",
    "@functools.cache\ndef f():\n    return 1": "decorates the prelude function 'f'",
    "def f():\n    import os": "line 2: 'import os' is an Import, not one of the statements",
    "def f():\n    while True:\n        pass": "is a While",
    "def f():\n    global X": "is a Global",
    "def f():\n    def g():\n        pass": "is a FunctionDef",
    "def f(x=open('/tmp/x')):\n    return x": "'open' is neither",
    "def f():\n    return eval('1')": "'eval' is neither",
    "class A(object):\n    pass": "'object' is a base, keyword or decorator",
    "class A:\n    import os": "'import os' is not an assignment, a function or a docstring",
    "class A:\n    x = open('/tmp/x', 'w')": "line 2: 'open' is neither",
    "class A:\n    print('hi')": "\"print('hi')\" is not an assignment",
    "X = 1\nwith open('f') as f:\n    pass": "line 2",
    "if True:\n    import os": "is not an import, an assignment",
}


@pytest.mark.parametrize("prelude", sorted(REFUSED_PRELUDES), ids=repr)
def test_a_forbidden_prelude_is_refused_with_its_line(prelude: str):
    with pytest.raises(grammar.ForbiddenPython, match=r"^tile.prelude.*" + _escape(REFUSED_PRELUDES[prelude])):
        grammar.prelude_scope(prelude)


def _escape(text: str) -> str:
    return re.escape(text)


ALLOWED_PRELUDE = """from triton import jit as tjit
import triton.language.core as tlc
from triton.language.extra import libdevice
DTYPE: tl.constexpr = tl.float16
BITS = DTYPE.primitive_bitwidth * 2 + (1 if tlc.int32 == tl.int32 else 0)


class Tiles:
    \"\"\"Block sizes.\"\"\"
    BLOCK = 64


def configs(extra=()):
    out = []
    for b in SIZES + list(extra):
        if b % 2 == 0:
            out.append(triton.Config({"BLOCK": b}, num_warps=4))
    return out


SIZES = [16, 32]"""


def test_what_a_kernel_file_needs_is_allowed():
    scope = grammar.prelude_scope(ALLOWED_PRELUDE)
    for text in ("triton.autotune(configs=configs(), key=['n'])", "tjit", "Tiles.BLOCK if BITS > 16 else 32",
                 "triton.heuristics({'EVEN': lambda args: args['n'] % args['BLOCK'] == 0})", "tl.bfloat16",
                 "tl.float8e4nv", "{k: v for k, v in {'a': 1}.items()}", "triton.cdiv(1024, Tiles.BLOCK)", "None"):
        grammar.check_expression("x", text, scope)


ALLOW_LIST_CHECK = r'''
import importlib, types
from syncopate.dialects import python_grammar as grammar
for path in sorted(grammar.TRITON_PATHS):
    module, _, name = path.rpartition(".")
    obj = importlib.import_module(path) if path in grammar.TRITON_MODULES else getattr(importlib.import_module(module), name, None)
    if obj is None or isinstance(obj, (int, float, str)):
        continue  # absent from this Triton version (Python refuses it at import), or a constant
    owner = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None) or type(obj).__module__
    assert owner.startswith("triton"), (path, owner)
for path in grammar.TRITON_MODULES:
    for attribute in grammar.VALUE_ATTRIBUTES:
        obj = getattr(importlib.import_module(path), attribute, None)
        assert obj is None or getattr(obj, "__module__", "triton").startswith("triton"), (path, attribute)
print("ok")
'''


def test_the_allow_list_names_only_triton_objects():
    """Each allowed path is Triton's own object, and no Triton module of the
    list has a value attribute that leaves Triton; checked in a fresh
    interpreter, as an emitted file sees Triton (other tests patch it)."""
    done = subprocess.run([sys.executable, "-c", ALLOW_LIST_CHECK], capture_output=True, text=True, timeout=300)
    assert done.stdout.strip() == "ok", done.stderr[-2000:]


# --------------------------------------------------------------------------
# The single choke point: IR text, the emitter, the frontend
# --------------------------------------------------------------------------

IR = """builtin.module attributes {{tile.prelude = {prelude}}} {{
  tile.func @k(%p: !tile.ptr, %B: !tile.constexpr) attributes {{decorators = [{decorator}, "triton.jit"], defaults = {{B = {default}}}}} {{
    tile.return
  }}
}}"""


def parse_module(text: str):
    """IR text as a verified module, as overlap-opt reads it."""
    module = Parser(make_context(), text, "hand-written.mlir").parse_module()
    module.verify()
    return module


def _ir(prelude: str = "SIZES = [16]", decorator: str = "triton.autotune(configs=[], key=[])", default: str = "16") -> str:
    return IR.format(prelude=json.dumps(prelude), decorator=json.dumps(decorator), default=json.dumps(default))


@pytest.mark.parametrize("part", ["prelude", "decorator", "default"])
def test_hand_written_ir_is_refused_by_the_verifier_and_the_emitter(part: str):
    text = _ir(**{part: "X = triton.runtime.build.os" if part == "prelude" else "triton.runtime.build.os.system('x')"})
    with pytest.raises(VerifyException, match=r"'triton.runtime' is not a Triton name"):
        parse_module(text)
    module = parse_module(_ir())
    module.attributes["tile.prelude"] = StringAttr("import os")
    with pytest.raises(VerifyException, match=r"^tile.prelude line 1: 'import os' imports 'os'"):
        emit_module(module)  # IR changed after it was verified: emit_module verifies again
    with pytest.raises(EmitError, match=r"^tile.prelude line 1: 'import os' imports 'os'"):
        prelude_source(module)  # and where the text is written, it is checked whatever came before


def test_the_frontend_names_the_kernel_files_line():
    source = "import triton\nimport triton.language as tl\nfrom triton.runtime import build\n\n\n" \
             "@triton.jit\ndef k(x_ptr, B: tl.constexpr = build.os.cpu_count()):\n    tl.store(x_ptr, B)\n"
    with pytest.raises(FrontendError, match=r"kernel.py:3: error: 'from triton.runtime import build' imports"):
        import_source(source, "kernel.py")
    source = "import triton\nimport triton.language as tl\n\n\n" \
             "@triton.jit\ndef k(x_ptr, B: tl.constexpr = tl.core.builtins.len('ab')):\n    tl.store(x_ptr, B)\n"
    with pytest.raises(FrontendError, match=r"kernel.py:5: error: `k`: default of 'B' .*'tl.core.builtins' is not"):
        import_source(source, "kernel.py")


# --------------------------------------------------------------------------
# Emitted files import without a system call
# --------------------------------------------------------------------------

INJECTED = [
    *REFUSED_EXPRESSIONS,
    "triton.autotune(configs=[triton.Config({'BLOCK': b}) for b in SIZES], key=['n'])",
    "triton.heuristics({'E': lambda a: a['n'] > 0})",
    "[16, 32][0] * 2 if len(SIZES) else -1",
]
INJECTED_PRELUDES = [*REFUSED_PRELUDES, ALLOWED_PRELUDE, "SIZES = [16]\nX = sorted(SIZES, key=lambda s: -s)"]


def _mutants() -> list[str]:
    """IR texts with each injected fragment as the prelude, a decorator or a default."""
    texts = [_ir(prelude=p) for p in INJECTED_PRELUDES]
    texts += [_ir(decorator=d) for d in INJECTED] + [_ir(default=d) for d in INJECTED]
    return texts


def test_every_emitted_file_imports_without_a_system_call(tmp_path: Path):
    modules = [import_file(p) for p in KERNEL_FILES]
    modules.append(compile_module(str(ROOT / "examples" / "ag_gemm.py"), "gemm_kernel",
                                  ["all-gather{tensor=a_ptr dim=0 world=2}"]))
    accepted = 0
    for text in _mutants():
        try:
            module = parse_module(text)
            emit_module(module)
        except (VerifyException, EmitError):
            continue
        accepted += 1
        modules.append(module)
    assert accepted == 2 * (len(INJECTED) - len(REFUSED_EXPRESSIONS)) + len(INJECTED_PRELUDES) - len(REFUSED_PRELUDES)
    paths = []
    for index, module in enumerate(modules):
        path = tmp_path / f"emitted_{index}.py"
        path.write_text(emit_module(module))
        paths.append(path)
    failures = _import_in_sandbox(paths)
    assert not [e for e in failures.values() if "sandbox:" in e], failures
    assert not [p for p in failures if int(Path(p).stem.split("_")[1]) < len(KERNEL_FILES) + 1], failures


def test_the_sandbox_catches_a_system_call(tmp_path: Path):
    """The audit hook works: a file that calls os.system or writes fails to import."""
    system = tmp_path / "system.py"
    system.write_text("import os\nos.system('true')\n")
    write = tmp_path / "write.py"
    write.write_text(f"open({str(tmp_path / 'out')!r}, 'w')\n")
    failures = _import_in_sandbox([system, write])
    assert "sandbox: os.system" in failures[str(system)]
    assert "for writing" in failures[str(write)]
