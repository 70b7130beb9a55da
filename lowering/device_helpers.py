"""Triton helpers that lower-chunk-to-tile and tile-reorder call.

They are imported with syncopate's own frontend and appended to the module,
so the fused kernel's file is self-contained. Flags are int32 words of this
rank's signal pad, one per chunk (index = the plan's flag base + chunk id).
A chunk table holds rows ``(lo, hi, flag index)``: the chunks of one plan
tensor that this rank receives (waits) or produces (signals), as half-open
ranges along the plan's dim; wait tables are sorted by ``lo`` without
overlaps, so a wait finds its chunks by binary search (log n loads, not a
scan of the table: SM slices make tables long, and waits inside loops run
every iteration). A delivered chunk's flag is set to the launch's epoch
(so it only grows); a produced chunk's flag gets one increment per tile,
which the runtime counts (the GPU World zeroes it after each launch).

The epoch is read from device memory (``epoch_ptr``, one int32 the runtime
increments on the stream before each launch), never passed by value, so a
CUDA graph that captured a launch still waits for the replay's own epoch.

``spin_limit`` bounds every spin (0: unbounded). A spin that runs out
records ``(1, linear tile id, flag index, flag value seen)`` in the int32
``report`` words and gives up, so the kernel ends and the runtime can say
which rank, tile and chunk never arrived instead of hanging. A wait for a
non-empty range that no chunk of its table overlaps records ``(2, linear
tile id, lo, hi)``: nothing would order the tile's loads after any
delivery (a range outside the plan's extent), so it must not pass as a
wait that found its chunks ready. The first report of a launch wins.
"""

import triton
import triton.language as tl


@triton.jit
def syn_spin(flags, index, target, spin_limit, report):
    """Poll ``flags[index]`` until it reaches ``target``, passing 16 barriers
    between polls (a few hundred cycles, no memory traffic). Why the pause: a
    full grid of programs polling back to back competes with the copy
    engines' peer reads of the chunks it waits for (the probe is
    test/e2e/probes/copy_contention.py). A nanosleep would pause without
    barriers, but Triton's interpreter cannot run inline PTX."""
    flag = flags + index
    seen = tl.atomic_add(flag, 0, sem="acquire", scope="sys")
    spins = 0
    while (seen < target) & ((spin_limit == 0) | (spins < spin_limit)):
        spins += 1
        for _ in range(0, 16):  # back off between polls (see the docstring)
            tl.debug_barrier()
        seen = tl.atomic_add(flag, 0, sem="acquire", scope="sys")
    if seen < target:
        syn_record(report, 1, index, seen)


@triton.jit
def syn_record(report, code, a, b):
    """Record ``(code, linear tile id, a, b)`` in the ``report`` words unless
    an earlier report of this launch holds them."""
    n0 = tl.num_programs(0)
    n1 = tl.num_programs(1)
    tile = tl.program_id(0) + tl.program_id(1) * n0 + tl.program_id(2) * n0 * n1
    if tl.atomic_cas(report, 0, code) == 0:
        tl.store(report + 1, tile)
        tl.store(report + 2, a)
        tl.store(report + 3, b)


@triton.jit
def syn_first_chunk(table, n, lo):
    """Index of the first row of a wait table (sorted by lo, disjoint, so its
    ends are sorted too) that ends after ``lo``; ``n`` if none."""
    first = 0
    last = n
    while first < last:
        mid = (first + last) // 2
        if tl.load(table + 3 * mid + 1) <= lo:
            first = mid + 1
        else:
            last = mid
    return first


@triton.jit
def syn_check_span(table, n, lo, hi, first, report):
    """Report a non-empty ``[lo, hi)`` that no row of the wait table
    overlaps (``first``: :func:`syn_first_chunk` of ``lo``, the only row that
    can). Such a wait polls nothing and returns at once, so the loads after
    it would read rows that no delivery is ordered before: rows outside the
    plan's extent, which chunk-dependency-analysis refuses where it can
    prove it, or a rank that receives none of them."""
    if lo < hi:
        missing = first >= n
        if first < n:
            missing = tl.load(table + 3 * first) >= hi
        if missing:
            syn_record(report, 2, lo, hi)


@triton.jit
def syn_wait_span(flags, table, n, lo, hi, epoch_ptr, spin_limit, report):
    target = tl.load(epoch_ptr)
    # wait tables are sorted by lo and do not overlap (abi.LaunchPlan.arguments checks it): a binary search
    # finds the first chunk ending after lo, then the chunks up to hi follow
    i = syn_first_chunk(table, n, lo)
    syn_check_span(table, n, lo, hi, i, report)
    more = i < n
    while more:
        more = tl.load(table + 3 * i) < hi
        if more:
            syn_spin(flags, tl.load(table + 3 * i + 2), target, spin_limit, report)
        i += 1
        more = more & (i < n)
    tl.debug_barrier()


@triton.jit
def syn_wait_span_memo(flags, table, n, lo, hi, epoch_ptr, spin_limit, report, memo):
    """syn_wait_span for a wait inside a persistent kernel's tile loop, where
    one program waits once per tile, mostly on a chunk it already saw
    arrive. ``memo`` holds two int32 words per program: (epoch, table row)
    of the last chunk this program saw arrive in this launch. A tile whose
    rows lie inside that chunk needs no poll: the program's earlier acquire
    and barrier already order its loads after the chunk's data. Otherwise
    it waits as syn_wait_span and, when its rows (a non-empty range) lie
    inside one chunk, records that chunk (then a barrier, so every thread of the program reads
    the same memo at the next tile and takes the same branch). The epoch
    word tells launches apart (CUDA graph replays too), so a memo is never
    trusted across launches."""
    slot = memo + 2 * tl.program_id(0)
    target = tl.load(epoch_ptr)
    row = tl.load(slot + 1)
    row = tl.where((row >= 0) & (row < n), row, 0)
    known = (tl.load(slot) == target) & (tl.load(table + 3 * row) <= lo) & (hi <= tl.load(table + 3 * row + 1))
    if not known:
        syn_wait_span(flags, table, n, lo, hi, epoch_ptr, spin_limit, report)
        first = syn_first_chunk(table, n, lo)
        # only a non-empty range waited for the chunk holding it (an empty one, e.g. the
        # unused part of a wrapped or clamped range, polled nothing)
        if (first < n) & (lo < hi):
            if (tl.load(table + 3 * first) <= lo) & (hi <= tl.load(table + 3 * first + 1)):
                tl.store(slot + 1, first)
                tl.store(slot, target)
        tl.debug_barrier()


@triton.jit
def syn_wait_span_loop(flags, table, n, lo, hi, first, step, epoch_ptr, spin_limit, report):
    """syn_wait_span in a loop whose iterations wait for ranges ``step``
    apart, starting at ``first``: a chunk starting before ``hi - step`` (the
    previous iteration's end) overlapped that iteration's range and was
    checked then, so only later chunks are; the first iteration, and every
    iteration of a loop with ``step <= 0``, checks them all."""
    target = tl.load(epoch_ptr)
    seen_hi = hi - step
    check_all = (lo == first) | (step <= 0)
    i = syn_first_chunk(table, n, lo)
    syn_check_span(table, n, lo, hi, i, report)
    more = i < n
    while more:
        chunk_lo = tl.load(table + 3 * i)
        more = chunk_lo < hi
        if more & (check_all | (chunk_lo >= seen_hi)):
            syn_spin(flags, tl.load(table + 3 * i + 2), target, spin_limit, report)
        i += 1
        more = more & (i < n)
    tl.debug_barrier()


@triton.jit
def syn_bulk_store_wait():
    """Wait until this thread's tensor-descriptor (TMA) stores have written
    global memory. Some Triton versions wait after such a store only until
    shared memory has been read (``cp.async.bulk.wait_group.read``), or not
    before a later release at all, so a flag raised after the store could
    be seen before the data. Issued by every thread (only the one that
    issued a store has groups to wait for; for the others it returns at
    once), before the barrier that orders the signal after it; only in
    kernels with such stores (the signals' ``BULK_STORES``), since the
    instruction needs sm_90, as tensor descriptors do. The Triton
    interpreter, whose stores are done when issued, takes it as a no-op
    (runtime/interpreter_asm.py)."""
    tl.inline_asm_elementwise("cp.async.bulk.wait_group 0;", "=r", [], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def syn_signal_span(flags, table, n, lo, hi, BULK_STORES: tl.constexpr):
    if BULK_STORES:
        syn_bulk_store_wait()
    tl.debug_barrier()
    for i in range(0, n):
        chunk_lo = tl.load(table + 3 * i)
        chunk_hi = tl.load(table + 3 * i + 1)
        if (chunk_lo < hi) & (chunk_hi > lo):
            tl.atomic_add(flags + tl.load(table + 3 * i + 2), 1, sem="release", scope="sys")


@triton.jit
def syn_wait_chunk(flags, index, epoch_ptr, spin_limit, report):
    syn_spin(flags, index, tl.load(epoch_ptr), spin_limit, report)
    tl.debug_barrier()


@triton.jit
def syn_signal_chunk(flags, index, BULK_STORES: tl.constexpr):
    if BULK_STORES:
        syn_bulk_store_wait()
    tl.debug_barrier()
    tl.atomic_add(flags + index, 1, sem="release", scope="sys")


@triton.jit
def syn_reduce_span(value, flags, table, n, lo, col, staging, epoch_ptr, spin_limit, report,
                    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """``value``, the tile at rows ``[lo, lo + BLOCK_R)`` and columns ``[col,
    col + BLOCK_C)`` of a reduce-scattered tensor, plus every peer partial of
    its rows that this rank owns. ``table`` (int64) has one row per own piece
    and peer: ``(lo, hi, arrival flag, staging offset of row lo, row stride,
    columns)``; a piece that overlaps the tile is waited for (its flag
    reaches the epoch once the peer's copy landed in ``staging``), then its
    rows inside the tile and the tensor's columns are added in fp32 and
    rounded to ``value``'s dtype, one peer at a time (as the stream
    reduction adds). The running sum keeps ``value``'s dtype: a loop-carried
    fp32 copy of a 128 x 256 tile costs 128 more registers per thread. When
    the offset, row stride and width are multiples of 16 elements the
    staged rows are loaded with divisibility hints (vectorized)."""
    rows = lo + tl.arange(0, BLOCK_R)
    cols = col + tl.arange(0, BLOCK_C)
    epoch = tl.load(epoch_ptr)
    for i in range(0, n):
        p_lo = tl.load(table + 6 * i)
        p_hi = tl.load(table + 6 * i + 1)
        if (p_lo < lo + BLOCK_R) & (lo < p_hi):
            syn_spin(flags, tl.load(table + 6 * i + 2).to(tl.int32), epoch, spin_limit, report)
            tl.debug_barrier()
            offset = tl.load(table + 6 * i + 3)
            stride = tl.load(table + 6 * i + 4)
            ncols = tl.load(table + 6 * i + 5)
            inside = (rows >= p_lo) & (rows < p_hi)
            local = (rows - p_lo).to(tl.int64)
            if ((offset % 16) == 0) & ((stride % 16) == 0) & ((ncols % 16) == 0):
                # whole 16-element runs: the hints let the load move 16-byte vectors (the table's
                # values carry no divisibility, unlike the kernel's own integer arguments); each
                # branch loads for itself, since the hints do not survive the branches' merge
                ncols = tl.multiple_of(ncols, 16)
                staged = staging + tl.multiple_of(offset, 16) + local[:, None] * tl.multiple_of(stride, 16) + cols[None, :]
                part = tl.load(staged, mask=inside[:, None] & (cols < ncols)[None, :], other=0.0)
            else:
                staged = staging + offset + local[:, None] * stride + cols[None, :]
                part = tl.load(staged, mask=inside[:, None] & (cols < ncols)[None, :], other=0.0)
            value = (value.to(tl.float32) + part.to(tl.float32)).to(value.dtype)
    return value


@triton.jit
def syn_push_reduce(value, ptrs, mask, table, n, flags, order, ordered, epoch_ptr, spin_limit, report):
    """The sum over the ``n`` ranks of the tile ``value`` that this program
    stores through ``ptrs`` (push-all-reduce). ``table`` (int64) has one row
    per rank ``q`` in rank order: ``(offset to q's slot for this rank, even
    epochs; odd epochs; offset to this rank's slot for q, even; odd; word
    offset from flags to q's flag (tile 0, this rank); word index of this
    pad's flag (tile 0, q))``, offsets in elements from ``ptrs``' tensor;
    this rank's own row holds -1 in its last word. A tile is named by its
    linear program id, or by its ``order`` entry when ``ordered`` (the tile
    it computes), so one tile is the same elements on every rank.

    Push ``value`` to every peer, then a CTA barrier and one release
    (system scope) raise of each peer's flag to the epoch; wait for every
    peer's flag for this tile, then add the ``n`` partials in rank order in
    fp32, this rank's own rounded to the tensor's dtype first, exactly as
    the peers read it: every rank adds the same numbers in the same order."""
    epoch = tl.load(epoch_ptr)
    parity = (epoch % 2).to(tl.int64)
    n0 = tl.num_programs(0)
    n1 = tl.num_programs(1)
    tile = tl.program_id(0) + tl.program_id(1) * n0 + tl.program_id(2) * n0 * n1
    if ordered:
        tile = tl.load(order + tile)
    own = value.to(ptrs.dtype.element_ty)
    for q in range(0, n):
        if tl.load(table + 6 * q + 5) >= 0:
            tl.store(ptrs + tl.load(table + 6 * q + parity), own, mask=mask)
    tl.debug_barrier()
    for q in range(0, n):
        if tl.load(table + 6 * q + 5) >= 0:
            tl.atomic_max(flags + (tl.load(table + 6 * q + 4) + tile), epoch, sem="release", scope="sys")
    for q in range(0, n):
        mine = tl.load(table + 6 * q + 5)
        if mine >= 0:
            syn_spin(flags, (mine + tile).to(tl.int32), epoch, spin_limit, report)
    tl.debug_barrier()
    total = own.to(tl.float32)
    for q in range(0, n):
        part = own.to(tl.float32)
        if tl.load(table + 6 * q + 5) >= 0:
            part = tl.load(ptrs + tl.load(table + 6 * q + 2 + parity), mask=mask, other=0.0).to(tl.float32)
        total = tl.where(q == 0, part, total + part)
    return total.to(ptrs.dtype.element_ty)


@triton.jit
def syn_sm_pull(base, flags, table, n, epoch_ptr, program, programs, BLOCK: tl.constexpr):
    """One communication program of the SM backend: copy chunks
    ``program, program + programs, ...`` of ``table`` (int64 rows ``(start,
    end, flag index, peer offset, segments, segment stride)``: ``segments``
    element ranges ``[start, end) + k * stride`` of the tensor at ``base``;
    the owner's copy is at ``base + peer offset``), then raise each chunk's
    flag to the epoch (release, system scope).

    When start, end, stride and peer offset are multiples of 16 elements
    (whole rows of any real GEMM operand) the full blocks are copied
    unmasked with alignment hints, i.e. in 16-byte vectors; the rest of a
    range, or all of an unaligned one, is copied masked, element by element."""
    target = tl.load(epoch_ptr)
    for i in range(program, n, programs):
        start = tl.load(table + 6 * i)
        end = tl.load(table + 6 * i + 1)
        peer = tl.load(table + 6 * i + 3)
        segments = tl.load(table + 6 * i + 4)
        stride = tl.load(table + 6 * i + 5)
        aligned = ((start % 16) == 0) & ((end % 16) == 0) & ((stride % 16) == 0) & ((peer % 16) == 0)
        for k in range(0, segments):
            first = start + k * stride
            last = end + k * stride
            if aligned:
                body = first + (last - first) // BLOCK * BLOCK
                for offset in range(first, body, BLOCK):
                    dst = tl.max_contiguous(tl.multiple_of(offset + tl.arange(0, BLOCK), 16), BLOCK)
                    src = tl.max_contiguous(tl.multiple_of(offset + peer + tl.arange(0, BLOCK), 16), BLOCK)
                    tl.store(base + dst, tl.load(base + src))
                first = body
            for offset in range(first, last, BLOCK):
                idx = offset + tl.arange(0, BLOCK)
                tl.store(base + idx, tl.load(base + peer + idx, mask=idx < last), mask=idx < last)
        tl.debug_barrier()
        tl.atomic_max(flags + tl.load(table + 6 * i + 2).to(tl.int32), target, sem="release", scope="sys")


@triton.jit
def syn_tile_linear(order, p0, p1, p2, n0, n1):
    return tl.load(order + p0 + p1 * n0 + p2 * n0 * n1)


@triton.jit
def syn_tile_pid0(order, p0, p1, p2, n0, n1):
    return syn_tile_linear(order, p0, p1, p2, n0, n1) % n0


@triton.jit
def syn_tile_pid1(order, p0, p1, p2, n0, n1):
    return (syn_tile_linear(order, p0, p1, p2, n0, n1) // n0) % n1


@triton.jit
def syn_tile_pid2(order, p0, p1, p2, n0, n1):
    return syn_tile_linear(order, p0, p1, p2, n0, n1) // (n0 * n1)
