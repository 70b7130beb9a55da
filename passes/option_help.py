"""One line of help per pass option, as MLIR's Passes.td gives each option.

An option name means the same in every pass that has it (the ``overlap``
pipeline hands each option to the stage of the same name), so the help is
one table keyed by name. A pass whose option of that name does something
else there (verify-sync only checks the waits that insert-signals places)
says so on the field itself, as xDSL reads a dataclass field's metadata:
``waits: bool = field(default=True, metadata={"help": "..."})``.
docs/passes.md (tools/gen_pass_docs.py) and ``overlap-opt --help`` show the
line; a test requires one for every option of every pass in the registry.
"""

from __future__ import annotations

import dataclasses

OPTION_HELP: dict[str, str] = {
    "bindings": "constexpr parameters bound to values (a name no parameter has is an error)",
    "waits": "insert (and verify) the waits tiles make before reading consumed chunks; false: none (negative controls)",
    "signals": "insert (and verify) the signals tiles raise after writing produced chunks; false: none",
    "hoist_loops": "a wait whose range a loop walks waits once, for the whole tensor, before the outermost loop",
    "memo": "persistent kernels remember the last chunk each program saw arrive, skipping polls it already did",
    "order": "tile order: none (unchanged), arrival (this rank's chunk arrival order, a table), rotate (closed form)",
    "group": "arrival order: rows of axis 0 grouped per arrival step for L2 reuse (Triton's GROUP_M); 1: row-major",
    "axis": "the program axis tile-reorder permutes (0, 1 or 2; a persistent kernel's 1-D grid has only 0)",
    "backend": "how remote chunks move: auto (cost model), ce (copy engine), sm (the kernel's own programs), nccl",
    "sizes": "NAME=VALUE,... sizes the cost model reads for symbolic extents (e.g. \"M=8192,K=4096\")",
    "elem_bytes": "bytes per element the cost model assumes for a chunk's rows",
    "link_gbps": "the cost model's peer bandwidth, GB/s",
    "sms": "SMs the cost model gives the sm backend's communication programs",
    "reduce": "reduce-scatter sums: stream (the runtime adds the staged partials) or epilogue (the owner's tiles do)",
    "verify": "run verify-sync before lowering (false: skip it, for tests of the placing passes or broken pipelines)",
}


# options written otherwise than NAME=VALUE with their own name
SPELLINGS: dict[str, str] = {"bindings": "NAME=VALUE ..."}


def spelling(option: str) -> str | None:
    """How a spec writes the option, where that is not ``option=value``."""
    return SPELLINGS.get(option)


def options_of(pass_class: type) -> list[dataclasses.Field]:
    """The options of a pass dataclass: its init fields but the name."""
    return [f for f in dataclasses.fields(pass_class) if f.init and f.name != "name"]


def help_of(option: dataclasses.Field) -> str:
    """The option's help line: the field's own ``help`` metadata, else the
    table's line for its name ("" where neither has one; a test keeps every
    option covered)."""
    return option.metadata.get("help") or OPTION_HELP.get(option.name, "")
