"""Checks of syncopate.tp on every rank of a gloo group (test_pytorch_tp.py owns them)."""

from __future__ import annotations

import copy

import torch
import torch.distributed as dist
from torch import nn


class Mlp(nn.Module):
    def __init__(self, hidden: int, ffn: int, bias: bool):
        super().__init__()
        self.up = nn.Linear(hidden, ffn, bias=bias, dtype=torch.float64)
        self.down = nn.Linear(ffn, hidden, bias=bias, dtype=torch.float64)

    def forward(self, x):
        return self.down(torch.nn.functional.silu(self.up(x)))


def _parallel(model, sequence_dim):
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import parallelize_module

    from syncopate.tp import SyncopateColwiseParallel, SyncopateRowwiseParallel

    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    return parallelize_module(copy.deepcopy(model), mesh, {"up": SyncopateColwiseParallel(sequence_dim),
                                                          "down": SyncopateRowwiseParallel(sequence_dim)})


def mlp_matches_unparallelized(rank, world):
    """Forward slices and every parameter's gradient equal the plain module's."""
    for shape, dim, bias in (((2, 4 * world, 6), 1, True), ((4 * world, 6), 0, False)):
        torch.manual_seed(0)
        model = Mlp(6, 8, bias)
        x = torch.randn(*shape, dtype=torch.float64)
        ref = model(x)
        ref.sum().backward()
        tp = _parallel(model, dim)
        y = tp(x.chunk(world, dim)[rank])
        torch.testing.assert_close(y, ref.chunk(world, dim)[rank])
        y.sum().backward()  # the ranks' losses add up to the plain module's
        for (name, p), (_, q) in zip(model.named_parameters(), tp.named_parameters()):
            torch.testing.assert_close(q.grad.full_tensor(), p.grad, msg=name)


def dtensor_inputs(rank, world):
    """A DTensor input sharded on the sequence dim (what SequenceParallel
    hands on by default) runs as its local shard; a replicated one is
    refused in one line naming use_local_output=True."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import DTensor, Replicate, Shard

    torch.manual_seed(0)
    model = Mlp(6, 8, True)
    x = torch.randn(2, 4 * world, 6, dtype=torch.float64)
    tp = _parallel(model, 1)
    mesh = init_device_mesh("cpu", (world,))
    local = x.chunk(world, 1)[rank]
    shard = DTensor.from_local(local.clone().requires_grad_(), mesh, [Shard(1)])
    torch.testing.assert_close(tp(shard), model(x).chunk(world, 1)[rank])
    tp(shard).sum().backward()  # the gradient flows back into the DTensor
    replicated = DTensor.from_local(x, mesh, [Replicate()])
    try:
        tp(replicated)
    except ValueError as err:
        assert "SyncopateColwiseParallel takes this rank's shard of its input (Shard(dim=1))" in str(err), err
        assert "use_local_output=True" in str(err)
    else:
        raise AssertionError("a replicated DTensor input was accepted")


def refuses_non_linear(rank, world):
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import parallelize_module

    from syncopate.tp import SyncopateColwiseParallel

    mesh = init_device_mesh("cpu", (world,))
    try:
        parallelize_module(nn.Sequential(nn.ReLU()), mesh, {"0": SyncopateColwiseParallel()})
    except TypeError as err:
        assert "applies to nn.Linear modules, got ReLU" in str(err)
    else:
        raise AssertionError("a ReLU was accepted")


def tp_layer_bench_rows(rank, world):
    """overlap-bench --workload tp-layer --cpu on the two ranks: torch TP and
    syncopate ops agree (outputs and every gradient) and are timed; async-TP
    says why it cannot run on CPU."""
    from syncopate.bench import tp_layer

    rows = tp_layer.run(cpu=True, quick=True, warmup=0, iters=1, seed=0)
    assert {(r.tokens, r.mode) for r in rows} == {(t, m) for t in tp_layer.CPU_TOKENS for m in ("fwd", "fwd+bwd")}
    for r in rows:
        if r.name == "async-TP":
            assert r.ms is None and r.note.startswith("n/a"), r
        else:
            assert r.ms is not None and r.note == "", r
    table = tp_layer.format_rows(rows, world, "cpu")
    assert "syncopate ops" in table and "MISMATCH" not in table


def tp_layer_mismatch_detected(rank, world):
    """A row whose gradient is off is caught by the pre-timing check."""
    from syncopate.bench import tp_layer

    out = torch.ones(4, 3)
    grads = [torch.ones(2) for _ in range(1 + len(tp_layer.WEIGHTS))]
    bad = [g.clone() for g in grads]
    bad[3][0] += 1e-2
    assert tp_layer._mismatch((out, grads), (out, grads), 1e-4) is None
    message = tp_layer._mismatch((out, bad), (out, grads), 1e-4)
    assert message is not None and message.startswith(f"grad {tp_layer.WEIGHTS[2]} differs"), message


def mlp_compiles_fullgraph(rank, world):
    """torch.compile(fullgraph=True) of the parallelized module (DTensor
    parameters, syncopate ops) traces with no graph break and matches eager."""
    torch.manual_seed(0)
    model = Mlp(6, 8, True)
    x = torch.randn(4 * world, 6, dtype=torch.float64).chunk(world)[rank]
    eager, compiled = _parallel(model, 0), _parallel(model, 0)
    ref = eager(x)
    ref.sum().backward()
    out = torch.compile(compiled, fullgraph=True, backend="aot_eager")(x)
    out.sum().backward()
    torch.testing.assert_close(out, ref)
    for (name, p), (_, q) in zip(eager.named_parameters(), compiled.named_parameters()):
        torch.testing.assert_close(q.grad.full_tensor(), p.grad.full_tensor(), msg=name)


class Block(nn.Module):
    """A Llama-style block's linears: q/k/v and gate/up read the same
    (normalised) input; o and down end each half. The mixing is a toy (no
    softmax), enough to make every weight's gradient depend on the others."""

    def __init__(self, hidden: int, ffn: int):
        super().__init__()
        f64 = torch.float64
        self.attn = nn.ModuleDict({n: nn.Linear(hidden, hidden, bias=False, dtype=f64) for n in ("q", "k", "v", "o")})
        self.mlp = nn.ModuleDict({"gate": nn.Linear(hidden, ffn, bias=False, dtype=f64),
                                  "up": nn.Linear(hidden, ffn, bias=True, dtype=f64),
                                  "down": nn.Linear(ffn, hidden, bias=False, dtype=f64)})

    def forward(self, x):
        h = torch.nn.functional.rms_norm(x, (x.shape[-1],))
        a = self.attn
        x = x + a["o"](torch.tanh(a["q"](h) * a["k"](h)) * a["v"](h))
        h = torch.nn.functional.rms_norm(x, (x.shape[-1],))
        m = self.mlp
        return x + m["down"](torch.nn.functional.silu(m["gate"](h)) * m["up"](h))


def _count_collectives():
    """Patch the collectives the ops' unfused path can run; returns the counts and an undo."""
    import torch.distributed._functional_collectives as funcol

    counts = {"all_gather": 0, "reduce_scatter": 0}
    saved = []

    def counting(module, name, kind):
        original = getattr(module, name)

        def call(*args, **kwargs):
            counts[kind] += 1
            return original(*args, **kwargs)

        saved.append((module, name, original))
        setattr(module, name, call)

    counting(dist, "all_gather_into_tensor", "all_gather")
    counting(funcol, "all_gather_tensor", "all_gather")
    counting(dist, "reduce_scatter_tensor", "reduce_scatter")
    counting(funcol, "reduce_scatter_tensor", "reduce_scatter")

    def undo():
        for module, name, original in saved:
            setattr(module, name, original)

    return counts, undo


def shared_inputs_gather_once(rank, world):
    """q/k/v and gate/up as SyncopateSharedColwiseParallel: the block's
    output slices and every gradient equal the plain block's, and one
    training step runs 4 all-gathers and 4 reduce-scatters with
    keep_gathered=True (torch TP's sequence-parallel count: a gather and a
    scatter per half, forward and backward), 6 + 4 without (the backward
    gathers each half's input again), where one gather per linear would
    have made 12 + 8."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import parallelize_module

    from syncopate.tp import SyncopateRowwiseParallel, SyncopateSharedColwiseParallel

    mesh = init_device_mesh("cpu", (world,))
    torch.manual_seed(0)
    block = Block(8, 12)
    x = torch.randn(2, 4 * world, 8, dtype=torch.float64, requires_grad=True)  # a later layer's input
    ref = block(x)
    ref.sum().backward()
    for keep, expected in ((True, (4, 4)), (False, (6, 4))):
        tp = parallelize_module(copy.deepcopy(block), mesh, {
            "attn": SyncopateSharedColwiseParallel(["q", "k", "v"], keep_gathered=keep),
            "attn.o": SyncopateRowwiseParallel(),
            "mlp": SyncopateSharedColwiseParallel(["gate", "up"], keep_gathered=keep),
            "mlp.down": SyncopateRowwiseParallel()})
        for p in tp.parameters():
            p.grad = None
        counts, undo = _count_collectives()
        shard = x.detach().chunk(world, 1)[rank].clone().requires_grad_()
        try:
            y = tp(shard)
            y.sum().backward()
        finally:
            undo()
        torch.testing.assert_close(y, ref.chunk(world, 1)[rank])
        torch.testing.assert_close(shard.grad, x.grad.chunk(world, 1)[rank])
        for (name, p), (_, q) in zip(block.named_parameters(), tp.named_parameters()):
            grad = q.grad.full_tensor() if hasattr(q.grad, "full_tensor") else q.grad
            torch.testing.assert_close(grad, p.grad, msg=name)
        assert (counts["all_gather"], counts["reduce_scatter"]) == expected, (keep, counts)


def shared_style_refuses_what_it_cannot_shard(rank, world):
    """A name that is not a linear is refused naming it."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import parallelize_module

    from syncopate.tp import SyncopateSharedColwiseParallel

    mesh = init_device_mesh("cpu", (world,))
    block = Block(8, 12)
    block.attn["k"] = nn.Identity()
    try:
        parallelize_module(block, mesh, {"attn": SyncopateSharedColwiseParallel(["q", "k"])})
    except TypeError as err:
        assert "('k')" in str(err) and "nn.Linear" in str(err), err
    else:
        raise AssertionError("a non-Linear member of a shared group was accepted")


def rowwise_without_sequence_parallelism(rank, world):
    """SyncopateRowwiseParallel(sequence_dim=None): the down projection's
    output is every token on every rank (matmul_all_reduce); output and
    every gradient equal the plain module's (the loss counted once, as in
    Megatron TP)."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import parallelize_module

    from syncopate.tp import SyncopateColwiseParallel, SyncopateRowwiseParallel

    torch.manual_seed(0)
    model = Mlp(6, 8, True)
    x = torch.randn(2, 4 * world, 6, dtype=torch.float64)
    ref = model(x)
    ref.sum().backward()
    mesh = init_device_mesh("cpu", (world,))
    tp = parallelize_module(copy.deepcopy(model), mesh, {"up": SyncopateColwiseParallel(1),
                                                         "down": SyncopateRowwiseParallel(None)})
    y = tp(x.chunk(world, 1)[rank])
    torch.testing.assert_close(y, ref)
    y.sum().backward()
    for (name, p), (_, q) in zip(model.named_parameters(), tp.named_parameters()):
        torch.testing.assert_close(q.grad.full_tensor(), p.grad, msg=name)
