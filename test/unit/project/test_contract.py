"""The compiler/runtime contract (ir/contract.py): records round-trip, the
lowering writes exactly the names the runtime reads, and no other module
spells a contract name as a string literal."""

import ast
from pathlib import Path

import pytest
from xdsl.dialects.builtin import DictionaryAttr, StringAttr

from syncopate.ir import contract
from syncopate.ir.contract import ABI_ATTR, AbiKey, ChunkTable
from syncopate.runtime.abi import LaunchPlan, SyncState, chunk_tables
from syncopate.runtime.harness.check import compile_workload
from syncopate.runtime.harness.workload import load_workload

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("role", contract.TABLE_ROLES)
def test_chunk_table_round_trips_through_its_attribute(role):
    table = ChunkTable.for_tensor("ag", "a_ptr", role)
    assert table.param == f"syn_{role}_ag_a_ptr_tab" and table.count == f"syn_{role}_ag_a_ptr_n"
    assert (table.staging == "syn_staging_ag_a_ptr") == (role == "reduce")
    assert ChunkTable.from_attr(table.to_attr()) == table


def test_an_unknown_table_role_is_refused():
    attr = ChunkTable.for_tensor("ag", "a_ptr", "wait").to_attr()
    bad = DictionaryAttr({**attr.data, "role": StringAttr("gather")})
    with pytest.raises(ValueError, match=r"chunk table of @ag: unknown role 'gather'"):
        ChunkTable.from_attr(bad)


def test_plan_roles_partition_the_collectives():
    assert not set(contract.CONSUMED) & set(contract.PRODUCED)
    assert contract.is_consumed("all-gather") and not contract.is_consumed("reduce-scatter")


PARAMS = {"M": 50, "N": 36, "K": 40, "BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16, "stride_am": 40, "stride_ak": 1,
          "stride_bk": 36, "stride_bn": 1, "stride_cm": 36, "stride_cn": 1}


@pytest.fixture(scope="module")
def program():
    return compile_workload(load_workload("examples/ag_gemm.py"), 2)


def test_the_lowering_writes_what_the_runtime_reads(program):
    abi = program.kernel.attributes[ABI_ATTR].data
    names = set(program.kernel.arg_names)
    params = {AbiKey.FLAGS: contract.FLAGS_PARAM, AbiKey.EPOCH: contract.EPOCH_PARAM,
              AbiKey.SPIN_LIMIT: contract.SPIN_LIMIT_PARAM, AbiKey.REPORT: contract.REPORT_PARAM}
    for key, param in params.items():
        assert abi[key].data == param and param in names
    tables = chunk_tables(program)
    assert tables and all(t.param in names and t.count in names for t in tables)
    # every syn_* parameter the kernel takes is one the runtime passes, and no other
    launch = LaunchPlan.build(program, PARAMS, (4, 3), 0)
    extra = launch.arguments(program, SyncState.allocate(launch.flag_count))
    assert set(extra) == {n for n in names if n.startswith("syn_")}


# Contract names no module may spell itself: every upper-case string constant
# ir/contract.py defines, read from the module, so a name added there is
# guarded without editing this test (the device helpers' own Triton parameter
# names are not contract names: the runtime never sees them).
CONTRACT_STRINGS = {value for name, value in vars(contract).items() if name.isupper() and isinstance(value, str)}
SOURCE_DIRS = ("ir", "dialects", "passes", "lowering", "runtime", "tools", "pytorch")


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def test_no_module_but_the_contract_spells_a_contract_name():
    offenders = []
    for folder in SOURCE_DIRS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == ROOT / "ir" / "contract.py":
                continue
            tree = ast.parse(path.read_text(), str(path))
            docs = _docstrings(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and id(node) not in docs and node.value in CONTRACT_STRINGS:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert offenders == []


def test_the_guarded_names_are_the_contracts_own():
    """The guard reads the contract module: it covers every attribute and
    parameter name there (an empty set would make the guard vacuous)."""
    for name in ("KERNEL_ATTR", "ACCESS_ATTR", "ABI_ATTR", "ORIGIN_ATTR", "FLAGS_PARAM", "EPOCH_PARAM", "ROTATE_PARAM"):
        assert getattr(contract, name) in CONTRACT_STRINGS
    assert all(value.startswith(("chunk.", "tile.", "syn_")) for value in CONTRACT_STRINGS)
