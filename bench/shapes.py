"""The benchmark's workloads and shape table.

Every shape is given by its *global* GEMM ``C[M, N] = A[M, K] @ B[K, N]``
(bf16 on GPUs) and the workload says which dimension the W ranks split:

``ag-gemm`` (all-gather + GEMM, column-parallel layer with sequence-parallel input)
    rank r holds rows ``[r*M/W, (r+1)*M/W)`` of A (an ``M/W x K`` shard) and
    its own column block of B (``K x N/W``); A is all-gathered along M and
    every rank computes ``C_r = A @ B_r`` (``M x N/W``).
    Label: ``AG M x K x N/W`` (the per-rank GEMM).

``gemm-rs`` (GEMM + reduce-scatter, row-parallel layer, "transposed roles")
    rank r holds a K-slice: A_r is ``M x K/W`` and B_r is ``K/W x N``; it
    computes the partial ``A_r @ B_r`` (``M x N``), the partials are summed
    and scattered by rows, and rank r ends with rows ``[r*M/W, (r+1)*M/W)``
    of ``A @ B`` (``M/W x N``). Label: ``RS M x K/W x N`` (the per-rank GEMM).

``gemm-ar`` (GEMM + all-reduce, a row-parallel layer without sequence
    parallelism) the same K-slices and partials as gemm-rs, summed so that
    every rank ends with all of ``A @ B`` (``M x N``). Label: ``AR M x K/W x N``.

So the same global (M, K, N) appears in every GEMM workload; at W = 2 the
anchor (8192, 8192, 28672) is labelled ``AG 8192x8192x14336``,
``RS 8192x4096x28672`` and ``AR 8192x4096x28672``.

``ag-attn`` (context-parallel attention with all-gathered K/V) and
``a2a-gemm`` (MoE all-to-all dispatch + grouped GEMM) have their own layouts
and rows (:mod:`syncopate.bench.attention`, :mod:`syncopate.bench.moe`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

AG_GEMM, GEMM_RS, GEMM_AR, A2A_GEMM, AG_ATTN = "ag-gemm", "gemm-rs", "gemm-ar", "a2a-gemm", "ag-attn"
# the paper's remaining workloads (bench/paper_layers.py)
MOE_LAYER, ULYSSES_ATTN, RING_ATTN = "moe-layer", "ulysses-attn", "ring-attn"
WORKLOADS: tuple[str, ...] = (AG_GEMM, GEMM_RS, GEMM_AR, A2A_GEMM, AG_ATTN, MOE_LAYER, ULYSSES_ATTN, RING_ATTN)
GEMM_WORKLOADS: tuple[str, ...] = (AG_GEMM, GEMM_RS, GEMM_AR)
# the GEMM workloads whose ranks split K and sum their M x N partials (the reduced GEMMs)
REDUCED: tuple[str, ...] = (GEMM_RS, GEMM_AR)
LABEL_PREFIX = {AG_GEMM: "AG", GEMM_RS: "RS", GEMM_AR: "AR", A2A_GEMM: "A2A+GG", AG_ATTN: "AG-KV attn",
                MOE_LAYER: "A2A-GG-A2A", ULYSSES_ATTN: "A2A attn A2A", RING_ATTN: "ring attn"}

# groups a shape can belong to; also accepted by --shapes
ANCHOR, LLAMA, QUICK, CPU, PAPER, DECODE = "anchor", "llama", "quick", "cpu", "paper", "decode"
GROUPS: tuple[str, ...] = (ANCHOR, LLAMA, QUICK, CPU, PAPER, DECODE)
# issue 36's decode GEMM + all-reduce: a row-parallel linear (K = N = hidden) on a decode step's tokens
DECODE_TOKENS: tuple[int, ...] = (1, 8, 32, 128)
DECODE_HIDDEN: tuple[int, ...] = (4096, 8192)

# The Syncopate paper's operator shapes at M = 8192 tokens: (model, hidden, MLP width). Its AG-GEMM is the
# MLP up projection (K = hidden, N = MLP), its GEMM-RS and GEMM-AR the down projection (K = MLP, N = hidden).
PAPER_MODELS: tuple[tuple[str, int, int], ...] = (
    ("llama-7b", 4096, 11008), ("llama-3.1-8b", 4096, 14336), ("mistral-7b", 4096, 14336),
    ("llama-3.1-70b", 8192, 28672), ("llama-3.1-405b", 16384, 53248), ("qwen2-72b", 8192, 29568))
PAPER_TOKENS = 8192


class ShapeError(ValueError):
    """A shape that does not fit the world size, or an unknown shape name."""


@dataclass(frozen=True)
class LocalDims:
    """The per-rank GEMM of one shape at world size W (see the module doc)."""

    a: tuple[int, int]  # this rank's A: the shard (AG) or the K-slice (RS, AR)
    b: tuple[int, int]  # this rank's B
    c: tuple[int, int]  # the kernel's output on this rank (AG: M x N/W; RS, AR: the M x N partial)
    out: tuple[int, int]  # the rank's final result (AG: = c; RS: M/W x N; AR: M x N)
    gathered: tuple[int, int] | None  # AG: the gathered A (M x K); RS, AR: None

    @property
    def gemm(self) -> tuple[int, int, int]:
        """(m, k, n) of the GEMM one rank runs."""
        return self.c[0], self.b[0], self.c[1]


@dataclass(frozen=True)
class Shape:
    """One row of the shape table."""

    workload: str
    name: str  # unique within the workload, e.g. "8192x8192x28672" or "llama70b-mlp-up-4k"
    M: int
    K: int
    N: int
    groups: tuple[str, ...] = ()
    note: str = ""
    params: tuple[tuple[str, int], ...] = field(default=())  # extra sizes (a2a-gemm, ag-attn)

    @property
    def key(self) -> str:
        """The global sizes as text, independent of W: ``MxKxN``."""
        return f"{self.M}x{self.K}x{self.N}"

    def check_world(self, world: int) -> None:
        """Raise :class:`ShapeError` if W ranks cannot split this shape evenly."""
        if world < 1:
            raise ShapeError(f"world size must be >= 1, got {world}")
        # an all-reduce splits only K (row-parallel): every rank ends with all
        # M rows, and its reduction phase cuts M by the plan's rule, unevenly
        # (or into empty chunks) where W does not divide it, as a decode step's M = 1
        split = {AG_GEMM: ("M", self.M, "N", self.N), GEMM_RS: ("M", self.M, "K", self.K),
                 GEMM_AR: ("K", self.K, "K", self.K),
                 AG_ATTN: ("seq", self.M, "seq", self.M),
                 A2A_GEMM: ("experts", dict(self.params).get("experts", 1), "experts",
                            dict(self.params).get("experts", 1))}.get(self.workload)
        if self.workload in (MOE_LAYER, ULYSSES_ATTN, RING_ATTN):
            self._check_layer_dims(world)
        if split is None:
            return
        for dim_name, value in (split[:2], split[2:]):
            if value % world:
                raise ShapeError(f"{self.workload} shape '{self.name}': {dim_name}={value} "
                                 f"is not divisible by W={world}")

    def _check_layer_dims(self, world: int) -> None:
        """The paper layers' dims that W ranks must split (bench/paper_layers.py)."""
        d = dict(self.params)
        need = {MOE_LAYER: (("experts", d.get("experts", 0)),),
                ULYSSES_ATTN: (("seq", d.get("seq", 0)), ("heads", d.get("heads", 0))),
                RING_ATTN: (("seq", d.get("seq", 0)),)}[self.workload]
        for name, value in need:
            if value % world:
                raise ShapeError(f"{self.workload} shape '{self.name}': {name}={value} is not divisible by W={world}")
        if self.workload == MOE_LAYER and (d["tokens"] * d["topk"]) % d["experts"]:
            raise ShapeError(f"moe-layer shape '{self.name}': tokens*topk is not divisible by experts={d['experts']}")

    def local(self, world: int) -> LocalDims:
        """This shape's per-rank sizes at world size ``world``."""
        self.check_world(world)
        M, K, N, W = self.M, self.K, self.N, world
        if self.workload == AG_GEMM:
            return LocalDims(a=(M // W, K), b=(K, N // W), c=(M, N // W), out=(M, N // W), gathered=(M, K))
        if self.workload in REDUCED:
            out = (M // W, N) if self.workload == GEMM_RS else (M, N)
            return LocalDims(a=(M, K // W), b=(K // W, N), c=(M, N), out=out, gathered=None)
        raise ShapeError(f"workload '{self.workload}' has no GEMM layout")

    def label(self, world: int) -> str:
        """The per-rank GEMM as the anchors name it: ``AG 8192x8192x14336``."""
        prefix = LABEL_PREFIX.get(self.workload, self.workload)
        if self.workload == AG_GEMM:
            return f"{prefix} {self.M}x{self.K}x{self.N // world}"
        if self.workload in REDUCED:
            return f"{prefix} {self.M}x{self.K // world}x{self.N}"
        extra = " ".join(f"{k}={v}" for k, v in self.params)
        return f"{prefix} {extra}".strip()


def _gemm_shapes(workload: str) -> list[Shape]:
    anchors = [
        ((8192, 8192, 28672), (ANCHOR,), "Llama-3-70B MLP up at 8k tokens"),
        ((8192, 8192, 8192), (ANCHOR, QUICK), "square 8k"),
        ((4096, 8192, 4096), (ANCHOR, QUICK), "small N: communication is a large share"),
        ((16384, 4096, 2048), (ANCHOR,), "many tokens, narrow GEMM: communication bound"),
    ]
    shapes = [Shape(workload, f"{m}x{k}x{n}", m, k, n, groups, note) for (m, k, n), groups, note in anchors]
    # Llama-3-70B tensor-parallel layers (hidden 8192, MLP 28672, 64 q heads + 8 kv heads of 128)
    if workload == AG_GEMM:
        layers = [("qkv", 8192, 10240, "QKV projection, 8192 -> (64+2*8)*128"),
                  ("mlp-up", 8192, 28672, "MLP gate or up projection, 8192 -> 28672")]
    else:
        layers = [("o", 8192, 8192, "attention output projection, 8192 -> 8192"),
                  ("mlp-down", 28672, 8192, "MLP down projection, 28672 -> 8192")]
    for tokens, tag in ((4096, "4k"), (16384, "16k")):
        for layer, k, n, note in layers:
            shapes.append(Shape(workload, f"llama70b-{layer}-{tag}", tokens, k, n, (LLAMA,), f"{note}, {tag} tokens"))
    for model, hidden, mlp in PAPER_MODELS:  # a model whose GEMM is already a row joins that row's groups
        k, n = (hidden, mlp) if workload == AG_GEMM else (mlp, hidden)
        note = f"Syncopate paper: {model} MLP {'up' if workload == AG_GEMM else 'down'} projection"
        same = next((i for i, s in enumerate(shapes) if (s.M, s.K, s.N) == (PAPER_TOKENS, k, n)), None)
        if same is None:
            shapes.append(Shape(workload, f"paper-{model}", PAPER_TOKENS, k, n, (PAPER,), note))
        else:
            s = shapes[same]
            shapes[same] = replace(s, groups=tuple(dict.fromkeys(s.groups + (PAPER,))), note=f"{s.note}; {note}")
    if workload == GEMM_AR:
        shapes += [Shape(workload, f"decode-h{h}-m{m}", m, h, h, (DECODE,),
                         f"decode step: row-parallel linear, hidden {h}, {m} token{'s' * (m > 1)}")
                   for h in DECODE_HIDDEN for m in DECODE_TOKENS]
    shapes.append(Shape(workload, "cpu-tiny", 64, 48, 40, (CPU,), "overlap-bench --cpu (fp32, Triton interpreter)"))
    return shapes


def _moe_shapes() -> list[Shape]:
    """Mixtral-8x7B-like MoE up projection (hidden 4096, expert FFN 14336, 8
    experts, top-2), expert parallel: M = tokens per rank, K = hidden, N =
    FFN (see bench/moe.py)."""
    note = "MoE dispatch + grouped GEMM (expert parallel, uniform routing); 'cuBLAS' rows: one matmul per segment"

    def moe(name: str, tokens: int, hidden: int, ffn: int, experts: int, topk: int, groups: tuple[str, ...],
            text: str) -> Shape:
        params = (("tokens", tokens), ("hidden", hidden), ("ffn", ffn), ("experts", experts), ("topk", topk))
        return Shape(A2A_GEMM, name, tokens, hidden, ffn, groups, text, params)

    return [
        moe("mixtral-8x7b-4k", 4096, 4096, 14336, 8, 2, (ANCHOR, QUICK), f"{note}, 4k tokens per rank"),
        moe("cpu-tiny", 32, 32, 48, 2, 1, (CPU,), "overlap-bench --cpu (fp32, Triton interpreter)"),
    ]


def _attention_shapes() -> list[Shape]:
    """Llama-3-70B attention (64 query heads, 8 K/V heads of 128), context
    parallel: M = N = the whole sequence, K = head_dim (see bench/attention.py)."""
    note = "context-parallel attention, K/V gathered along the sequence; 'cuBLAS' rows run torch SDPA"

    def attn(name: str, seq: int, heads: int, kv: int, dim: int, groups: tuple[str, ...], text: str) -> Shape:
        params = (("seq", seq), ("heads", heads), ("kv_heads", kv), ("head_dim", dim))
        return Shape(AG_ATTN, name, seq, dim, seq, groups, text, params)

    return [
        attn("llama70b-cp-8k", 8192, 64, 8, 128, (ANCHOR, QUICK), f"{note}, 8k tokens"),
        attn("llama70b-cp-16k", 16384, 64, 8, 128, (ANCHOR,), f"{note}, 16k tokens"),
        attn("cpu-tiny", 64, 4, 2, 16, (CPU,), "overlap-bench --cpu (fp32, Triton interpreter)"),
    ]


# gemm-ar runs gemm-rs's shapes: the same row-parallel layers (the paper's GEMM-AR shapes are its GEMM-RS ones)
def _paper_layer_shapes() -> list[Shape]:
    """moe-layer: Mixtral-8x7B's experts (M = tokens per rank, K = hidden, N = expert FFN); ulysses-attn:
    Llama-3-8B's 32 heads of 128 and its output projection (M = N = the sequence, K = head_dim); ring-attn:
    Llama-3-70B's heads, as ag-attn (see bench/paper_layers.py)."""
    def shape(workload: str, name: str, mkn: tuple[int, int, int], groups: tuple[str, ...], text: str,
              **params: int) -> Shape:
        return Shape(workload, name, *mkn, groups, text, tuple(params.items()))

    cpu = "overlap-bench --cpu (fp32, Triton interpreter)"
    moe = "MoE layer: dispatch all-to-all, expert up and down GEMMs, combine all-to-all (uniform routing)"
    uly = "Ulysses attention: all-to-all to heads, attention, all-to-all back, output projection"
    ring = "ring attention: K/V passed around the ring (non-causal)"
    return [
        shape(MOE_LAYER, "mixtral-8x7b-4k", (4096, 4096, 14336), (ANCHOR, QUICK), f"{moe}, 4k tokens per rank",
              tokens=4096, hidden=4096, ffn=14336, experts=8, topk=2),
        shape(MOE_LAYER, "cpu-tiny", (8, 16, 32), (CPU,), cpu, tokens=8, hidden=16, ffn=32, experts=2, topk=2),
        shape(ULYSSES_ATTN, "llama3-8b-16k", (16384, 128, 16384), (ANCHOR, QUICK), f"{uly}, 16k tokens",
              seq=16384, heads=32, head_dim=128, hidden=4096),
        shape(ULYSSES_ATTN, "cpu-tiny", (32, 16, 32), (CPU,), cpu, seq=32, heads=2, head_dim=16, hidden=32),
        shape(RING_ATTN, "llama70b-cp-16k", (16384, 128, 16384), (ANCHOR, QUICK), f"{ring}, 16k tokens",
              seq=16384, heads=64, kv_heads=8, head_dim=128),
        shape(RING_ATTN, "cpu-tiny", (32, 16, 32), (CPU,), cpu, seq=32, heads=2, kv_heads=1, head_dim=16),
    ]


SHAPES: tuple[Shape, ...] = tuple([s for w in GEMM_WORKLOADS for s in _gemm_shapes(w)] + _moe_shapes()
                                  + _attention_shapes() + _paper_layer_shapes())

def parse_workloads(text: str | None) -> list[str]:
    """``--workload a,b`` -> workload names in table order; all by default."""
    if not text:
        return list(WORKLOADS)
    names = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        raise ShapeError(f"--workload: unknown workload '{unknown[0]}' (choose from {', '.join(WORKLOADS)})")
    return [w for w in WORKLOADS if w in names]


def _normalize(text: str) -> str:
    return text.strip().lower().replace(" ", "").replace("-", "").replace(":", "").replace("_", "")


def select_shapes(workloads: Sequence[str], tokens: str | None, world: int, quick: bool = False,
                  cpu: bool = False) -> list[Shape]:
    """The shapes to run, in table order.

    ``tokens`` is ``--shapes``: a comma list of shape names
    (``8192x8192x28672``, ``llama70b-o-4k``, ``paper-llama-7b``), labels at
    this W (``AG 8192x8192x14336``, also written ``AG-8192x8192x14336``),
    groups (``anchor``, ``llama``, ``quick``, ``paper``, ``decode``, ``all``) or any
    other global GEMM ``MxKxN`` (``C[M, N] = A[M, K] @ B[K, N]``, the table's
    convention), which becomes a shape of every selected GEMM workload. Without it:
    the ``cpu`` group with ``cpu``, the ``quick`` group with ``quick``, else
    every GPU shape but the paper's and the decode ones (``--shapes paper``,
    ``decode`` or ``all`` adds them). Shapes that W does not divide raise :class:`ShapeError`.
    """
    pool = [s for s in SHAPES if s.workload in workloads]
    if not tokens:
        group = CPU if cpu else QUICK if quick else None
        chosen = [s for s in pool if (group in s.groups if group else _on_gpus(s) and s.groups not in ((PAPER,), (DECODE,)))]
    else:
        wanted: set[Shape] = set()
        custom: list[Shape] = []
        for token in (t for t in tokens.split(",") if t.strip()):
            hits = _match(token, pool, world) or _custom(token, workloads)
            custom += [s for s in hits if s not in pool and s not in custom]
            if not hits:
                valid = sorted({s.name for s in pool} | set(GROUPS) | {"all"})
                raise ShapeError(f"--shapes: no shape '{token.strip()}' in workloads {', '.join(workloads)} "
                                 f"(names: {', '.join(valid)}, or a GEMM as MxKxN)")
            wanted.update(hits)
        chosen = [s for s in pool if s in wanted] + custom
    for s in chosen:
        s.check_world(world)
    return chosen


def _match(token: str, pool: Iterable[Shape], world: int) -> list[Shape]:
    t = _normalize(token)
    if t == "all":
        return [s for s in pool if _on_gpus(s)]
    if t in GROUPS:
        return [s for s in pool if t in s.groups]
    hits = []
    for s in pool:
        label = _normalize(s.label(world)) if s.workload not in GEMM_WORKLOADS or _divides(s, world) else None
        if t in (_normalize(s.name), label):
            hits.append(s)
    return hits


def _custom(token: str, workloads: Sequence[str]) -> list[Shape]:
    """``MxKxN`` (global sizes, positive integers) as a shape of each selected GEMM workload; [] if not that form."""
    parts = token.strip().lower().split("x")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return []
    m, k, n = (int(p) for p in parts)
    if min(m, k, n) < 1:
        raise ShapeError(f"--shapes: '{token.strip()}' has a zero size (MxKxN, each >= 1)")
    return [Shape(w, f"{m}x{k}x{n}", m, k, n, (), "custom shape (global M x K x N)") for w in GEMM_WORKLOADS
            if w in workloads]


def _on_gpus(shape: Shape) -> bool:
    """Whether a shape belongs to the GPU table (it is in a group other than ``cpu``)."""
    return any(g != CPU for g in shape.groups)


def _divides(shape: Shape, world: int) -> bool:
    try:
        shape.check_world(world)
    except ShapeError:
        return False
    return True


def describe(shapes: Iterable[Shape], world: int) -> str:
    """The shape table as text (``overlap-bench --list-shapes``)."""
    lines = [f"{'workload':<9} {'name':<22} {'M':>6} {'K':>6} {'N':>6}  {'label at W=' + str(world):<24} groups / note"]
    for s in shapes:
        label = s.label(world) if _divides(s, world) else f"(W={world} does not divide)"
        lines.append(f"{s.workload:<9} {s.name:<22} {s.M:>6} {s.K:>6} {s.N:>6}  {label:<24} "
                     f"{','.join(s.groups)}: {s.note}")
    return "\n".join(lines)
