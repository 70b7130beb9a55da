"""The workload files in examples/: their single-GPU launch, fed the tensors
the collective would produce (formed here with torch, as runtime/harness/workload.py's
semantics say), matches a pure-torch computation of the same math."""

from __future__ import annotations

import os

import pytest
import torch

from syncopate.runtime.harness.workload import load_workload, shard_bounds

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples")
NAMES = ["ag_gemm", "gemm_rs", "ag_gemm_k", "a2a_grouped_gemm", "attention_ag_kv", "ag_gemm_persistent",
         "gemm_rs_persistent", "gemm_rs_tma"]
WORLDS = [2, 3, 4]
SEED = 7
TOL = dict(atol=1e-4, rtol=1e-4)


def _load(name):
    return load_workload(os.path.join(EXAMPLES, name + ".py"))


def _inputs(wl, world, seed=SEED):
    return [wl.make_inputs(r, world, seed) for r in range(world)]


# ---------------------------------------------------------------- conventions


@pytest.mark.parametrize("name", NAMES)
def test_convention(name):
    wl = _load(name)
    for world in WORLDS:
        specs = wl.plan_specs(world)
        assert specs and all(f"world={world}" in s for s in specs)
        for ptr in wl.collectives:
            assert any(f"tensor={ptr}" in s for s in specs)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("world", WORLDS)
def test_make_inputs_deterministic_random(name, world):
    wl = _load(name)
    for rank in range(world):
        a = wl.make_inputs(rank, world, SEED)
        b = wl.make_inputs(rank, world, SEED)
        c = wl.make_inputs(rank, world, SEED + 1)
        assert a.keys() == b.keys() == c.keys()
        differs = False
        for key, val in a.items():
            if not isinstance(val, torch.Tensor):
                assert val == b[key]
                continue
            assert torch.equal(val, b[key]), (key, rank)
            assert bool((val != 0).any()), (key, rank)
            if val.is_floating_point():
                assert val.dtype == torch.float32
                assert not bool((val == 0).all())
                if not torch.equal(val, c[key]):
                    differs = True
        assert differs, "inputs must depend on the seed"
    # the float inputs of different ranks differ (fresh random values per rank)
    r0, r1 = wl.make_inputs(0, world, SEED), wl.make_inputs(1, world, SEED)
    coll_args = set(wl.collectives.values()) - {"out"}
    for key in coll_args:
        assert r0[key].shape != r1[key].shape or not torch.equal(r0[key], r1[key])


# ------------------------------------------------------------------- shapes


@pytest.mark.parametrize("world", WORLDS)
def test_shard_shapes(world):
    ag = _load("ag_gemm").module
    agk = _load("ag_gemm_k").module
    att = _load("attention_ag_kv").module
    for r in range(world):
        _, size = shard_bounds(ag.M_GLOBAL, world, r)
        inp = ag.make_inputs(r, world, SEED)
        assert inp["a"].shape == (size, ag.K_DIM)
        assert inp["b"].shape == (ag.K_DIM, ag.N_DIM)
        _, size = shard_bounds(agk.K_GLOBAL, world, r)
        inp = agk.make_inputs(r, world, SEED)
        assert inp["a"].shape == (agk.M_DIM, size)
        _, size = shard_bounds(att.S_KV, world, r)
        inp = att.make_inputs(r, world, SEED)
        assert inp["k"].shape == (size, att.HEAD_DIM) and inp["v"].shape == (size, att.HEAD_DIM)
        assert inp["q"].shape == (att.S_Q, att.HEAD_DIM)
    a2a = _load("a2a_grouped_gemm").module
    splits = a2a.splits(world)
    flat = ",".join(str(n) for row in splits for n in row)
    assert a2a.PLANS(world) == [f"all-to-all{{tensor=x_ptr dim=0 splits={flat}}}"]
    for r in range(world):
        inp = a2a.make_inputs(r, world, SEED)
        assert inp["x"].shape == (sum(splits[r]), a2a.K_DIM)
        assert inp["counts"].shape == (world, a2a.E_LOCAL)
        assert inp["counts"].dtype == torch.int32
        assert inp["counts"].sum(1).tolist() == [splits[s][r] for s in range(world)]
        assert inp["w"].shape == (a2a.E_LOCAL, a2a.K_DIM, a2a.N_DIM)


# ------------------------------------------------------- reference vs torch


@pytest.mark.parametrize("world", WORLDS)
def test_ag_gemm(world):
    wl = _load("ag_gemm")
    ins = _inputs(wl, world)
    a = torch.cat([i["a"] for i in ins], dim=0)
    assert a.shape[0] == wl.module.M_GLOBAL
    for r in range(world):
        got = wl.launch(wl.kernel, a=a, b=ins[r]["b"])
        torch.testing.assert_close(got, a @ ins[r]["b"], **TOL)


@pytest.mark.parametrize("world", WORLDS)
@pytest.mark.parametrize("name", ["gemm_rs", "gemm_rs_tma"])
def test_gemm_rs(world, name):
    wl = _load(name)
    ins = _inputs(wl, world)
    partial = [wl.launch(wl.kernel, **i) for i in ins]
    for i, p in zip(ins, partial):
        torch.testing.assert_close(p, i["a"] @ i["b"], **TOL)
    total = torch.stack(partial).sum(0)
    want = sum(i["a"] @ i["b"] for i in ins)
    m = total.shape[0]
    for r in range(world):
        start, size = shard_bounds(m, world, r)
        torch.testing.assert_close(total[start:start + size], want[start:start + size], **TOL)


@pytest.mark.parametrize("world", WORLDS)
def test_ag_gemm_k(world):
    wl = _load("ag_gemm_k")
    ins = _inputs(wl, world)
    a = torch.cat([i["a"] for i in ins], dim=1)
    assert a.shape[1] == wl.module.K_GLOBAL
    for r in range(world):
        got = wl.launch(wl.kernel, a=a, b=ins[r]["b"])
        torch.testing.assert_close(got, a @ ins[r]["b"], **TOL)


@pytest.mark.parametrize("world", WORLDS)
def test_a2a_grouped_gemm(world):
    wl = _load("a2a_grouped_gemm")
    mod = wl.module
    ins = _inputs(wl, world)
    splits = mod.splits(world)
    counts = mod.token_counts(world)
    # send buffers cut into per-destination blocks, rank 0's block first
    blocks = [list(torch.split(i["x"], splits[s], dim=0)) for s, i in enumerate(ins)]
    for d in range(world):
        recv = torch.cat([blocks[s][d] for s in range(world)], dim=0)
        w = ins[d]["w"]
        got = wl.launch(wl.kernel, x=recv, counts=ins[d]["counts"], w=w)
        # pure torch: segment (s, e) of the receive buffer times expert e's weight
        want, row = [], 0
        for s in range(world):
            for e in range(mod.E_LOCAL):
                n = counts[s][d][e]
                want.append(recv[row:row + n] @ w[e])
                row += n
        assert row == recv.shape[0]
        torch.testing.assert_close(got, torch.cat(want, dim=0), **TOL)


@pytest.mark.parametrize("world", WORLDS)
def test_attention_ag_kv(world):
    wl = _load("attention_ag_kv")
    ins = _inputs(wl, world)
    k = torch.cat([i["k"] for i in ins], dim=0)
    v = torch.cat([i["v"] for i in ins], dim=0)
    assert k.shape[0] == wl.module.S_KV
    for r in range(world):
        q = ins[r]["q"]
        got = wl.launch(wl.kernel, q=q, k=k, v=v)
        want = torch.softmax(q @ k.T / q.shape[1] ** 0.5, dim=-1) @ v
        torch.testing.assert_close(got, want, **TOL)
