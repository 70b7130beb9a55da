# A persistent GEMM written as one flat loop over (tile, k-step) pairs (the
# older persistent-matmul tutorial, the Syncopate paper's GEMM-RS), its C
# reduce-scattered. The store under `if ki == k_tiles - 1:` runs once per
# tile: its rows are those of the tile `tile_id` set under `if ki == 0:`
# (pid0 on the host), the kernel records the loop's bounds for the launch to
# list each program's tiles (none when k_tiles == 0), and the signal goes
# right after the store, in that branch. tile-reorder remaps every use of
# the tile id but the counter the loop carries.
# RUN: overlap-opt %s --kernel flat --plan 'reduce-scatter{tensor=c_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %s --kernel flat --plan 'reduce-scatter{tensor=c_ptr dim=0 size=M world=2}' -p overlap -t triton | filecheck %s --check-prefix=SIGNAL
# A GROUP_M swizzle (`pid_n = (tile_id % num_pid_in_group) // group_size_m`)
# leaves the column not provably >= 0 (the model cannot see that tile_id is
# below the tile count): refused naming the store, with the mask that fuses.
# RUN: not overlap-opt %s --kernel grouped --plan 'reduce-scatter{tensor=c_ptr dim=0 size=M world=2}' -p overlap 2>&1 | filecheck %s --check-prefix=GROUPED
# RUN: sed -e 's/c_mask = (offs_cm\[:, None\] < M) & (offs_cn\[None, :\] < N)  # grouped/c_mask = (offs_cm[:, None] < M) \& (offs_cn[None, :] >= 0) \& (offs_cn[None, :] < N)/' %s > %t.py
# RUN: overlap-opt %t.py --kernel grouped --plan 'reduce-scatter{tensor=c_ptr dim=0 size=M world=2}' -p overlap -t triton | filecheck %s --check-prefix=SIGNAL
# tile-reorder{order=rotate} needs the tile count in the kernel, which a flat loop does not hold.
# RUN: not overlap-opt %s --kernel flat --plan 'reduce-scatter{tensor=c_ptr dim=0 size=M world=2}' -p 'overlap{order=rotate}' 2>&1 | filecheck %s --check-prefix=ROTATE
import triton
import triton.language as tl


@triton.jit
def flat(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
         BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, NUM_SMS: tl.constexpr):
    start_pid = tl.program_id(axis=0)
    num_pid_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    num_tiles = tl.cdiv(M, BM) * num_pid_n
    tiles_per_SM = num_tiles // NUM_SMS
    if start_pid < num_tiles % NUM_SMS:
        tiles_per_SM += 1
    tile_id = start_pid - NUM_SMS
    ki = -1
    pid_m = 0
    pid_n = 0
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, k_tiles * tiles_per_SM):
        ki = tl.where(ki == k_tiles - 1, 0, ki + 1)
        if ki == 0:
            tile_id += NUM_SMS
            pid_m = tile_id // num_pid_n
            pid_n = tile_id % num_pid_n
        offs_am = pid_m * BM + tl.arange(0, BM)
        offs_bn = pid_n * BN + tl.arange(0, BN)
        offs_k = ki * BK + tl.arange(0, BK)
        a = tl.load(a_ptr + offs_am[:, None] * stride_am + offs_k[None, :],
                    mask=(offs_am[:, None] < M) & (offs_k[None, :] < K), other=0.0)
        b = tl.load(b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :],
                    mask=(offs_k[:, None] < K) & (offs_bn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        if ki == k_tiles - 1:
            offs_cm = pid_m * BM + tl.arange(0, BM)
            offs_cn = pid_n * BN + tl.arange(0, BN)
            c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
            tl.store(c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :], acc, mask=c_mask)
            acc = tl.zeros((BM, BN), dtype=tl.float32)


@triton.jit
def grouped(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
            BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_M * num_pid_n
    tiles_per_SM = num_tiles // NUM_SMS
    if start_pid < num_tiles % NUM_SMS:
        tiles_per_SM += 1
    tile_id = start_pid - NUM_SMS
    ki = -1
    pid_m = 0
    pid_n = 0
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, k_tiles * tiles_per_SM):
        ki = tl.where(ki == k_tiles - 1, 0, ki + 1)
        if ki == 0:
            tile_id += NUM_SMS
            group_id = tile_id // num_pid_in_group
            first_pid_m = group_id * GROUP_M
            group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
            pid_m = first_pid_m + (tile_id % group_size_m)
            pid_n = (tile_id % num_pid_in_group) // group_size_m
        offs_am = pid_m * BM + tl.arange(0, BM)
        offs_bn = pid_n * BN + tl.arange(0, BN)
        offs_k = ki * BK + tl.arange(0, BK)
        a = tl.load(a_ptr + offs_am[:, None] * stride_am + offs_k[None, :],
                    mask=(offs_am[:, None] < M) & (offs_k[None, :] < K), other=0.0)
        b = tl.load(b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :],
                    mask=(offs_k[:, None] < K) & (offs_bn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        if ki == k_tiles - 1:
            offs_cm = pid_m * BM + tl.arange(0, BM)
            offs_cn = pid_n * BN + tl.arange(0, BN)
            c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)  # grouped
            tl.store(c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :], acc, mask=c_mask)
            acc = tl.zeros((BM, BN), dtype=tl.float32)

# CHECK: chunk.flat_tile_loop = {lb = "0", ub = "(cdiv(K, BK) * select(lt(pid0, ((cdiv(M, BM) * cdiv(N, BN)) % NUM_SMS)), (((cdiv(M, BM) * cdiv(N, BN)) // NUM_SMS) + 1), ((cdiv(M, BM) * cdiv(N, BN)) // NUM_SMS)))", first = "(pid0 - NUM_SMS)", step = "NUM_SMS", k_steps = "cdiv(K, BK)"}
# CHECK: tile.store {{.*}}chunk.access = {plan = @rs, tensor = "c_ptr", dim = 0 : i64, role = "write", lo = "((pid0 // cdiv(N, BN)) * BM)", extent = "BM", loops = 1 : i64, invariant = 0 : i64}

# SIGNAL:      if ki == 0:
# SIGNAL-NEXT:   tile_id_1 = tile_id + NUM_SMS
# SIGNAL:        tmp = syn_tile_pid0(syn_tile_order, tile_id_1, 0, 0, 2147483647, 1)
# SIGNAL:      if ki == k_tiles - 1:
# SIGNAL:        tl.store(c_ptr
# SIGNAL-NEXT:   # inserted by lower-chunk-to-tile
# SIGNAL-NEXT:   syn_signal_span(syn_flags, syn_signal_rs_c_ptr_tab, syn_signal_rs_c_ptr_n, [[LO:.*]], [[LO]] + BM, False)
# SIGNAL-NEXT:   acc_1 = tl.zeros((BM, BN), dtype=tl.float32)

# GROUPED: verify-addresses: flat-tile-loop-store.py:98: 'tile.store' is unbounded: the coordinate {{.*}} (stride 1) of the element offset (from flat-tile-loop-store.py:79: 'scf.if') is not provably >= 0, so it may reach another row: mask the access with `coordinate >= 0` and `coordinate < <its dim's size>`

# ROTATE: tile-reorder: flat-tile-loop-store.py:38: 'scf.for': @flat walks its tiles in one flat loop over (tile, k-step) pairs, whose tile count the kernel does not hold, so order=rotate cannot wrap its tile ids; use order=arrival (the default) or order=none
