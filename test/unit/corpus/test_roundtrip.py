"""Round trip of the single-GPU kernel corpus (test/corpus/*.py).

For every corpus file:

* ``test_original`` runs the corpus kernel itself in Triton's interpreter and
  checks it against the file's torch ``reference``: this validates the corpus.
* ``test_original_compiles`` runs Triton's real code generator (AST -> TTIR,
  sm_90 target, no GPU needed) on it: the interpreter alone is too lax.
* ``test_roundtrip`` imports the file to IR (``syncopate.ir.frontend.triton_import``), prints
  it, re-parses the text, emits Triton Python from the parsed module
  (``syncopate.lowering.triton_emitter``), imports the emitted file and runs
  the kernel of the same name on the same arguments; its outputs must match
  the original kernel's, and its signature (names, order, constexpr
  annotations, defaults) must be the original's.

A corpus file defines the kernel(s), ``make_case(seed) -> dict`` and
``reference(case) -> list[torch.Tensor]``. The case keys: ``kernel`` (name of
the jit function to launch), ``grid``, ``args`` (positional), ``kwargs``
(constexprs), ``outputs`` (indices of args the kernel writes), ``atol``,
``rtol`` and optionally ``inout`` (outputs whose initial contents the kernel
reads, e.g. atomic accumulation: these are cloned rather than poisoned) and
``scratch`` (inputs that must start at zero, e.g. spin locks and counters:
exempt from the check that inputs are not all zeros).
``reference`` gets the case with pristine inputs.
"""

import importlib.util
import inspect
import json
import os
import subprocess
import sys
import traceback
from pathlib import Path

import pytest
import torch

if __name__ != "__main__":
    # conftest.py sets this before anything imports triton; fail loudly otherwise.
    assert os.environ.get("TRITON_INTERPRET") == "1" or torch.cuda.is_available(), (
        "TRITON_INTERPRET must be 1 on a machine without a GPU"
    )

import triton  # noqa: E402
from triton.runtime.jit import JITFunction  # noqa: E402

CORPUS_DIR = Path(__file__).resolve().parents[2] / "corpus"
# Triton 3.9 removed block pointers (tl.make_block_ptr raises, tl.advance is
# gone): corpus kernels written with them cannot run here as written, only
# lowered to pointer arithmetic by the frontend; GPUs with Triton 3.6 run both.
BLOCK_POINTERS_REMOVED = not hasattr(triton.language, "advance")


def _uses_block_pointers(path: Path) -> bool:
    return "tl.make_block_ptr" in path.read_text()


def _runs_as_written(path: Path) -> bool:
    return not (BLOCK_POINTERS_REMOVED and _uses_block_pointers(path))
CORPUS_FILES = sorted(p for p in CORPUS_DIR.glob("*.py") if not p.name.startswith("_"))
SEED = 0


def _load_module(path: Path, name: str):
    """Import a Python file as a fresh module (Triton's JIT needs real files)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _load_corpus(path: Path):
    return _load_module(path, f"_syncopate_corpus_{path.stem}")


def _clone(x):
    return x.clone() if isinstance(x, torch.Tensor) else x


def _pristine(case: dict) -> dict:
    return dict(case, args=[_clone(a) for a in case["args"]])


def _poison(t: torch.Tensor) -> torch.Tensor:
    if t.dtype.is_floating_point or t.dtype.is_complex:
        return torch.full_like(t, float("nan"))
    if t.dtype == torch.bool:
        return torch.ones_like(t)
    return torch.full_like(t, torch.iinfo(t.dtype).min)


def _fresh_args(case: dict) -> list:
    """Cloned inputs; outputs poisoned unless they are read-modify-write."""
    inout = set(case.get("inout", []))
    args = [_clone(a) for a in case["args"]]
    for i in case["outputs"]:
        if i not in inout:
            args[i] = _poison(args[i])
    return args


def _launch(kernel, case: dict) -> list:
    if os.environ.get("TRITON_INTERPRET") == "1":
        from syncopate.runtime.sim import descriptor_atomics

        descriptor_atomics.install()  # desc.atomic_add (matmul_splitk_tma): the interpreter has none
    args = _fresh_args(case)
    kernel[case["grid"]](*args, **case["kwargs"])
    return [args[i] for i in case["outputs"]]


def _assert_outputs_close(actual, expected, case, what):
    assert len(actual) == len(expected)
    for n, (a, e) in enumerate(zip(actual, expected)):
        torch.testing.assert_close(
            a, e, atol=case["atol"], rtol=case["rtol"],
            msg=lambda m, n=n: f"{what}: output #{n} (arg {case['outputs'][n]}): {m}",
        )


def _check_case(case: dict):
    for key in ("kernel", "grid", "args", "kwargs", "outputs", "atol", "rtol"):
        assert key in case, f"case lacks {key!r}"
    assert isinstance(case["kernel"], str)
    assert isinstance(case["grid"], tuple) and case["grid"]
    outputs = set(case["outputs"])
    assert outputs and set(case.get("inout", [])) <= outputs
    for i, a in enumerate(case["args"]):
        if isinstance(a, torch.Tensor):
            assert a.device.type == "cpu"
            if (i not in outputs or i in case.get("inout", [])) and i not in case.get("scratch", []):
                assert bool((a != 0).any()), f"input arg {i} is all zeros"
        if i in outputs:
            assert isinstance(a, torch.Tensor), f"output arg {i} is not a tensor"


def _signature(jit_fn):
    """(name, normalized annotation, is_constexpr, default) per parameter, as
    Triton's own JITFunction parses them (works in interpreter mode too).
    Any spelling of constexpr (tl.constexpr, "tl.constexpr",
    triton.language.constexpr) counts as the same annotation."""
    fn = jit_fn
    while not inspect.isfunction(fn) and hasattr(fn, "fn"):  # autotune/heuristics wrap the jit function
        fn = fn.fn
    parsed = JITFunction(fn)
    params = inspect.signature(fn).parameters.values()
    return [
        (p.name, "constexpr" if kp.is_constexpr else kp.annotation, kp.is_constexpr, p.default)
        for p, kp in zip(params, parsed.params, strict=True)
    ], parsed


_TTIR_TYPES = {
    torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16",
    torch.int8: "i8", torch.int16: "i16", torch.int32: "i32", torch.int64: "i64",
}


class _TritonApiMismatch(Exception):
    """This Triton's internals differ from 3.9's: the TTIR check is skipped."""


def _make_ttir(jit_fn, case: dict) -> str:
    """Run Triton's real code generator (Python AST -> TTIR) for an sm_90
    target; no GPU needed. The interpreter is lax (Python semantics for
    builtins, no type unification across if/else...); this catches kernels that
    interpret fine but would not compile. Needs a JITFunction (a module
    imported with TRITON_INTERPRET=0) in a process where the interpreter never
    ran: the interpreter patches triton.language for good."""
    try:
        from triton._C.libtriton import ir
        from triton.backends.compiler import GPUTarget
        from triton.backends.nvidia.compiler import CUDABackend
        from triton.compiler import ASTSource
    except ImportError as e:  # pragma: no cover
        raise _TritonApiMismatch(str(e)) from e
    assert isinstance(jit_fn, JITFunction), type(jit_fn)
    signature, constexprs = {}, {}
    for i, name in enumerate(jit_fn.arg_names):
        if i in jit_fn.constexprs:
            signature[name] = "constexpr"
            constexprs[(i,)] = case["kwargs"][name]
            continue
        arg = case["args"][i]
        if isinstance(arg, torch.Tensor):
            signature[name] = "*" + _TTIR_TYPES[arg.dtype]
        elif isinstance(arg, float):
            signature[name] = "fp32"
        else:
            signature[name] = "i32"
    target = GPUTarget("cuda", 90, 32)
    backend = CUDABackend(target)
    options = backend.parse_options({})
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    src = ASTSource(fn=jit_fn, signature=signature, constexprs=constexprs)
    try:
        module = src.make_ir(target, options, backend.get_codegen_implementation(options),
                             backend.get_module_map(), context)
    except TypeError as e:  # pragma: no cover - make_ir's signature moved
        if "make_ir" in str(e) or "argument" in str(e):
            raise _TritonApiMismatch(str(e)) from e
        raise
    text = str(module)
    assert "tt.func" in text
    return text


def _ttir_check_files(paths) -> dict:
    """In a fresh interpreter-free subprocess, import each file and build the
    TTIR of its case's kernel. Returns {path: None (ok) | "SKIP: ..." | error}."""
    env = dict(os.environ, TRITON_INTERPRET="0")
    cmd = [sys.executable, str(Path(__file__).resolve()), "--ttir", *map(str, paths)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _ttir_main(corpus_paths) -> None:
    """Subprocess side of _ttir_check_files. A path may be an emitted file; its
    case comes from the corpus file of the same stem (minus "_emitted")."""
    from syncopate.runtime.autotune import LaunchHelpers, plain_jit

    results = {}
    for n, path in enumerate(map(Path, corpus_paths)):
        stem = path.stem.removesuffix("_emitted")
        try:
            case = _load_corpus(CORPUS_DIR / f"{stem}.py").make_case(SEED)
            mod = _load_module(path, f"_syncopate_ttir_{n}_{stem}")
            kernel = getattr(mod, case["kernel"])
            # the constexprs of the jit function inside the decorators (autotune: its first
            # config; heuristics: their values), as a launch computes them
            helpers = LaunchHelpers(kernel, case["kernel"], lambda grid, args, kwargs: helpers.autotuner.configs[0])
            kwargs, _, _ = helpers.resolve(case["grid"], tuple(case["args"]), case["kwargs"])
            _make_ttir(plain_jit(kernel), dict(case, kwargs=kwargs))
            results[str(path)] = None
        except _TritonApiMismatch as e:
            results[str(path)] = f"SKIP: {e}"
        except Exception:
            results[str(path)] = traceback.format_exc()[-6000:]
    print(json.dumps(results))


def _assert_ttir_ok(result):
    if result is not None and result.startswith("SKIP: "):
        pytest.skip(result)
    if result is not None:
        pytest.fail(f"Triton's code generator rejects the kernel:\n{result}", pytrace=False)


@pytest.fixture(scope="module")
def corpus_ttir() -> dict:
    return _ttir_check_files(CORPUS_FILES)


def test_corpus_is_large_enough():
    assert len(CORPUS_FILES) >= 9, [p.name for p in CORPUS_FILES]


def test_interpreter_is_on():
    """The corpus kernels are interpreted (conftest set TRITON_INTERPRET early)."""
    if torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET") != "1":
        pytest.skip("compiled mode on a GPU machine")
    from triton.runtime.interpreter import InterpretedFunction

    mod = _load_corpus(CORPUS_DIR / "vector_add.py")
    assert isinstance(mod.add_kernel, InterpretedFunction)


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.stem)
def test_original(path: Path):
    mod = _load_corpus(path)
    case = mod.make_case(SEED)
    _check_case(case)
    expected = mod.reference(_pristine(case))
    assert len(expected) == len(case["outputs"])
    kernel = getattr(mod, case["kernel"])
    if _runs_as_written(path):
        actual = _launch(kernel, case)
        _assert_outputs_close(actual, expected, case, f"{path.stem} original vs reference")
    else:  # the premise of the lowering: this Triton refuses the kernel as written
        with pytest.raises(Exception, match="Block pointers have been removed"):
            _launch(kernel, case)
    # make_case is deterministic in its seed and the data depends on it.
    again = mod.make_case(SEED)
    other = mod.make_case(SEED + 1)
    for i, (a, b, c) in enumerate(zip(case["args"], again["args"], other["args"])):
        if isinstance(a, torch.Tensor) and i not in case["outputs"]:
            assert torch.equal(a, b), f"make_case({SEED}) is not deterministic (arg {i})"
            if i not in case.get("scratch", []):
                assert not torch.equal(a, c), f"arg {i} does not depend on the seed"


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.stem)
def test_original_compiles(path: Path, corpus_ttir: dict):
    """The corpus kernel also goes through Triton's real frontend (to TTIR)."""
    if not _runs_as_written(path):
        assert "Block pointers have been removed" in (corpus_ttir[str(path)] or ""), corpus_ttir[str(path)]
        return
    _assert_ttir_ok(corpus_ttir[str(path)])


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.stem)
def test_roundtrip(path: Path, tmp_path: Path):
    from xdsl.parser import Parser

    from syncopate.ir.context import make_context
    from syncopate.ir.frontend.triton_import import import_file
    from syncopate.lowering.triton_emitter import emit_module
    from syncopate.runtime.fused import python_function

    mod = _load_corpus(path)
    case = mod.make_case(SEED)
    original = getattr(mod, case["kernel"])

    # Triton source -> IR -> text -> IR -> Triton source.
    module = import_file(str(path))
    text = str(module)
    parsed = Parser(make_context(), text).parse_module()
    assert str(parsed) == text, "printing the re-parsed module changed the text"
    source = emit_module(parsed)
    assert isinstance(source, str)

    emitted_path = tmp_path / f"{path.stem}_emitted.py"
    emitted_path.write_text(source)
    emitted_mod = _load_module(emitted_path, f"_syncopate_emitted_{path.stem}")
    try:
        assert hasattr(emitted_mod, case["kernel"]), (
            f"emitted source has no {case['kernel']!r}:\n{source}"
        )
        emitted = getattr(emitted_mod, case["kernel"])
        assert isinstance(emitted, triton.runtime.KernelInterface), type(emitted)

        # Same name, same parameters in the same order, same constexprs.
        orig_sig, orig_jit = _signature(original)
        emit_sig, emit_jit = _signature(emitted)
        assert python_function(emitted).__name__ == case["kernel"]
        assert emit_jit.arg_names == orig_jit.arg_names
        assert [emit_jit.arg_names[i] for i in emit_jit.constexprs] == [
            orig_jit.arg_names[i] for i in orig_jit.constexprs
        ], "constexpr parameters differ"
        assert emit_sig == orig_sig
        assert list(emitted.arg_names) == list(original.arg_names)

        actual = _launch(emitted, case)
        if _runs_as_written(path):
            expected = _launch(original, case)
            _assert_outputs_close(actual, expected, case, f"{path.stem} emitted vs original")
        else:  # block pointers lowered to pointer arithmetic: against the torch reference
            expected = mod.reference(_pristine(case))
            _assert_outputs_close(actual, expected, case, f"{path.stem} emitted (block pointers lowered) vs reference")
            assert "make_block_ptr" not in source and "tl.advance" not in source

        # The emitted kernel must be real Triton, not only interpretable.
        _assert_ttir_ok(_ttir_check_files([emitted_path])[str(emitted_path)])
    finally:
        sys.modules.pop(f"_syncopate_emitted_{path.stem}", None)


if __name__ == "__main__" and sys.argv[1:2] == ["--ttir"]:
    _ttir_main(sys.argv[2:])
