"""The public API's cheap parts, in one process: ``import syncopate`` stays
light, lazy names resolve, the compile cache keys and round trip, and
setup errors outside a distributed program."""

import os
import subprocess
import sys

import pytest

import syncopate
from syncopate.pytorch import cache


def test_import_syncopate_loads_no_torch_triton_or_xdsl():
    code = ("import sys, syncopate; heavy = [m for m in ('torch', 'triton', 'xdsl') if m in sys.modules]; "
            "print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ)
    assert out.stdout.strip() == ""


def test_lazy_names_resolve():
    assert callable(syncopate.compile) and callable(syncopate.empty)
    assert syncopate.ops.all_gather_matmul.__module__ == "syncopate.ops"
    assert "SyncopateColwiseParallel" in dir(syncopate.tp)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        syncopate.nope  # noqa: B018


def test_cache_key_depends_on_source_plans_and_pipeline():
    base = cache.cache_key("src", "k", ["all-gather{tensor=a dim=0 world=2}"], "overlap")
    assert base == cache.cache_key("src", "k", ["all-gather{tensor=a dim=0 world=2}"], "overlap")
    others = [cache.cache_key("src2", "k", ["all-gather{tensor=a dim=0 world=2}"], "overlap"),
              cache.cache_key("src", "k", ["all-gather{tensor=a dim=0 world=4}"], "overlap"),
              cache.cache_key("src", "k", ["all-gather{tensor=a dim=0 world=2}"], "overlap{backend=sm}"),
              cache.cache_key("src", "k2", ["all-gather{tensor=a dim=0 world=2}"], "overlap")]
    assert base not in others and len(set(others)) == len(others)


def test_cache_round_trip_and_damaged_entry(tmp_path, monkeypatch):
    from syncopate.runtime.fused import compile_fused

    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    example = os.path.join(os.path.dirname(syncopate.__file__), "examples", "ag_gemm.py")
    program = compile_fused(example, "gemm_kernel", ["all-gather{tensor=a_ptr dim=0 world=2}"])
    assert cache.load("k" * 32, "gemm_kernel") is None
    path = cache.store("k" * 32, "gemm_kernel", program.module, [example])
    assert os.path.dirname(path) == str(tmp_path)
    loaded = cache.load("k" * 32, "gemm_kernel")
    from syncopate.lowering.triton_emitter import emit_module

    assert emit_module(loaded) == program.source
    with open(path, "w") as f:
        f.write("builtin.module { this is not IR")
    assert cache.load("k" * 32, "gemm_kernel") is None


TWO_KERNELS = """
import triton
import triton.language as tl


@triton.jit
def fwd(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N)
    tl.store(y_ptr + row * N + cols, x * 2.0, mask=cols < N)


@triton.jit
def bwd(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N)
    tl.store(y_ptr + row * N + cols, x * 0.5, mask=cols < N)
"""


def test_compile_fuses_the_named_kernel_of_a_file_with_several(tmp_path):
    """Two kernels share the planned parameter's name: the one named is fused."""
    from syncopate.ir.contract import KERNEL_ATTR
    from syncopate.pytorch.compile import _run_frontend

    path = tmp_path / "two.py"
    path.write_text(TWO_KERNELS)
    for name in ("fwd", "bwd"):
        module, files = _run_frontend(str(path), name, ["all-gather{tensor=x_ptr dim=0 world=2}"], "overlap")
        assert module.attributes[KERNEL_ATTR].data == name and files == (str(path.resolve()),)


def test_a_changed_imported_helper_is_a_cache_miss(tmp_path, monkeypatch):
    """The entry records every file the import read; editing the helper's
    module (not the kernel's file) must recompile, not load the old IR."""
    import shutil

    from syncopate.lowering.compile import compile_module_files

    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "cache"))
    package = tmp_path / "helperpkg"
    shutil.copytree(os.path.join(os.path.dirname(syncopate.__file__), "test", "frontend", "inputs", "helperpkg"), package)
    kernel = package / "gather.py"
    module, files = compile_module_files(str(kernel), "gather_tiles", ["all-gather{tensor=x_ptr dim=0 world=2}"])
    assert str((package / "tiles.py").resolve()) in files and str(kernel.resolve()) in files
    cache.store("h" * 32, "gather_tiles", module, files)
    assert cache.load("h" * 32, "gather_tiles") is not None
    helper = package / "tiles.py"
    original = helper.read_text()
    helper.write_text(original.replace("GROUP_M = tl.constexpr(2)", "GROUP_M = tl.constexpr(4)"))
    assert cache.load("h" * 32, "gather_tiles") is None
    helper.write_text(original)
    assert cache.load("h" * 32, "gather_tiles") is not None
    helper.unlink()
    assert cache.load("h" * 32, "gather_tiles") is None


def test_cache_dir_default_and_override(monkeypatch):
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/x")
    assert cache.cache_dir() == os.path.join("/x", "syncopate")
    monkeypatch.setenv(cache.CACHE_ENV, "/y")
    assert cache.cache_dir() == "/y"


def test_compile_without_process_group_says_what_to_do():
    import torch.distributed as dist

    assert not dist.is_initialized()
    with pytest.raises(syncopate.SyncopateSetupError, match="init_process_group"):
        syncopate.compile(lambda: None, ["all-gather{tensor=a dim=0}"])


def test_fused_path_refusals_name_the_first_missing_condition():
    """Checks before any process group is needed: the device comes first."""
    import torch

    from syncopate.pytorch import fused_ops

    a, b = torch.randn(4, 8), torch.randn(8, 3)
    assert fused_ops.all_gather_matmul_refusal(a, [b], 0, "unused") == "cpu tensors"
    assert fused_ops.matmul_reduce_scatter_refusal(a, b, 0, "unused") == "cpu tensors"


def test_fused_buffers_are_bucketed_by_rows():
    """Calls of 5 and 7 rows share one 8-row buffer (views of its first rows); 9 rows take a 16-row one."""
    import torch

    from syncopate.pytorch import fused_ops

    def buf(rows):
        return fused_ops._buffer("rs", "bucket-test", (rows, 4), torch.float32, torch.device("cpu"))

    five, seven, nine = buf(5), buf(7), buf(9)
    assert five.shape == (5, 4) and seven.shape == (7, 4) and nine.shape == (9, 4)
    assert five.data_ptr() == seven.data_ptr() != nine.data_ptr()
    assert five.untyped_storage().nbytes() == 8 * 4 * 4 and nine.untyped_storage().nbytes() == 16 * 4 * 4
    assert five.is_contiguous() and nine.is_contiguous()


@pytest.mark.parametrize("ours, theirs", [("all_gather_matmul", "fused_all_gather_matmul"),
                                          ("matmul_reduce_scatter", "fused_matmul_reduce_scatter")])
def test_the_ops_have_torchs_schemas_and_stride_tags(ours, theirs):
    """Argument names (``A=``), defaults, results and needs_fixed_stride_order
    as torch's symm_mem ops: switching is a one-line change."""
    import torch
    import torch.distributed._symmetric_memory  # noqa: F401  (registers symm_mem's ops)

    import syncopate.ops  # noqa: F401

    mine = getattr(torch.ops.syncopate, ours).default
    torch_op = getattr(torch.ops.symm_mem, theirs).default
    assert str(mine._schema).split("(", 1)[1] == str(torch_op._schema).split("(", 1)[1]
    assert torch.Tag.needs_fixed_stride_order in mine.tags


def test_compile_takes_typed_plans_for_the_groups_world():
    """The ops build their plans typed (no spec string written in one module
    and parsed in another); a typed plan must be for the group's size, and
    its options reach the cache key."""
    from syncopate.ir.plans.templates import template
    from syncopate.pytorch import compile as compile_module
    from syncopate.pytorch import fused_ops
    from syncopate.pytorch.worlds import SyncopateSetupError

    assert compile_module._with_world("all-gather{tensor=a_ptr dim=0}", 2) == "all-gather{tensor=a_ptr dim=0 world=2}"
    typed = fused_ops.plan_for("rs", 2, blocks=3)
    assert typed == template("reduce-scatter", 2, tensor="c_ptr", dim=0, blocks=3)
    assert compile_module._with_world(typed, 2) is typed
    with pytest.raises(SyncopateSetupError, match="reduce-scatter plan of 'c_ptr' is for world=2, but the group has 4"):
        compile_module._with_world(typed, 4)
    keys = {cache.cache_key("src", "k", [repr(fused_ops.plan_for("rs", 2, b))], "overlap") for b in (1, 2)}
    assert len(keys) == 2
