"""Readiness and reuse tokens of consumed plans (all-gather, all-to-all,
ring-exchange) on the ce and sm backends.

A consumer reads an owner's rows straight from the owner's symmetric buffer
(ce: a peer copy on the consumer's communication stream; sm: the fused
kernel's communication programs). The owner writes those rows itself, on its
compute stream, just before each launch, and may write the next launch's rows
as soon as its launch returns. Two binary tokens per (owner, reader) pair
order the two sides, without a host barrier:

* **ready** (word ``ready(owner)`` of the reader's pad): the owner's
  communication stream, which first waits for its compute stream, writes 1
  when a launch begins; its rows of this launch are then in place. A reader
  waits for 1 before its first read of the owner's rows, and writes 0 again
  after its last read.
* **released** (word ``released(reader)`` of the owner's pad): the reader
  writes 1 after its last read of the owner's rows (ce: after its copies;
  sm: after its kernel). The owner's communication stream waits for 1 from
  every reader at the end of the launch, writes 0, and its compute stream
  waits for that: nothing the caller queues after the launch (the next
  launch's rows) can overwrite rows a peer still reads.

Why it cannot deadlock: a rank writes its ready tokens before it waits for
anything, and writes its released tokens before it waits for its own. Why a
ready of launch n+1 cannot be lost to the reset of launch n: the reader
resets before it releases, and the owner writes the next ready only after it
saw the release. The tokens are constants (0 and 1), so a captured launch
replays them exactly and nothing needs a reset kernel.

NCCL chunks need neither token: a broadcast or all-to-all is a collective
that every rank enters on its communication stream, and the compute stream
waits for that stream at the end of the launch, so it is self-synchronising.
A rank's own (local) rows are written on the compute stream before the
kernel, so stream order covers them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from syncopate.dialects.chunk import PlanOp
from syncopate.ir.analysis import deps
from syncopate.ir.analysis.deps import ConcreteChunk
from syncopate.runtime.abi import SyncState
from syncopate.runtime.gpu import device

if TYPE_CHECKING:
    from syncopate.runtime.gpu.world import GpuWorld

PULLED = ("ce", "sm")  # backends that read the owner's symmetric buffer directly


@dataclass(frozen=True)
class GatherTokens:
    """Where the tokens of a world of ``world`` ranks sit in a signal pad of
    ``pad_words`` words: the top ``2 * world`` words (below them, the plan
    flags and the reduce-scatter staging layout)."""

    world: int
    pad_words: int

    @property
    def base(self) -> int:
        return self.pad_words - 2 * self.world

    def ready(self, owner: int) -> int:
        """A reader's pad word: ``owner``'s rows of this launch are written (1)."""
        return self.base + owner

    def released(self, reader: int) -> int:
        """An owner's pad word: ``reader`` finished reading this launch's rows (1)."""
        return self.base + self.world + reader

    def describe(self, rank: int) -> dict[int, tuple[str, int]]:
        """Pad word -> (what it is, the value a wait expects), for spin reports."""
        words = {}
        for peer in range(self.world):
            if peer != rank:
                words[self.ready(peer)] = (f"rank {peer}'s ready token (rank {peer} has not started this launch, "
                                           "so its rows of this launch may not be written yet)", 1)
                words[self.released(peer)] = (f"rank {peer}'s release token (rank {peer} has not finished "
                                              "reading this rank's rows of this launch)", 1)
        return words


@dataclass(frozen=True)
class PeerReads:
    """Who reads whose rows directly in one launch of one rank.

    ``readers``: the peers that read this rank's rows (ce or sm chunks);
    ``owners``: the peers whose rows this rank reads, per backend."""

    readers: tuple[int, ...]
    owners: Mapping[str, tuple[int, ...]]

    @property
    def released_after_kernel(self) -> tuple[int, ...]:
        """Owners whose rows the kernel itself reads (sm): released only once it ended."""
        return self.owners.get("sm", ())

    @property
    def released_after_copies(self) -> tuple[int, ...]:
        """Owners read by copies alone (ce): released as soon as the copies are done."""
        late = set(self.released_after_kernel)
        return tuple(o for o in self.owners.get("ce", ()) if o not in late)


def source_rank(plan: PlanOp, chunks: list[ConcreteChunk], c: ConcreteChunk) -> int:
    """The rank whose symmetric buffer a consumer reads chunk ``c`` from:
    an all-to-all's sender, else the owner of the rows."""
    return c.src if plan.collective == "all-to-all" else deps.owner(chunks, c)


def peer_reads(plans: Mapping[str, PlanOp], chunks: Mapping[str, list[ConcreteChunk]], rank: int,
               consumed: frozenset[str] | set[str]) -> PeerReads:
    """The direct reads of a launch's consumed plans (names in ``consumed``) at ``rank``."""
    readers: set[int] = set()
    owners: dict[str, list[int]] = {}
    for name in plans:
        if name not in consumed:
            continue
        for c in chunks[name]:
            if c.is_local or c.backend not in PULLED:
                continue
            src = source_rank(plans[name], chunks[name], c)
            if src == rank and c.dst != rank:
                readers.add(c.dst)
            if c.dst == rank and src != rank:
                mine = owners.setdefault(c.backend, [])
                if src not in mine:
                    mine.append(src)
    return PeerReads(tuple(sorted(readers)), {b: tuple(o) for b, o in owners.items()})


# -- the stream operations (on the current stream; see GpuRank.launch for which stream) --


def begin(w: GpuWorld, sync: SyncState, tokens: GatherTokens, readers: tuple[int, ...],
          owners: tuple[int, ...]) -> None:
    """After the communication stream joined the compute stream (this
    launch's rows are written): each reader's ready token of this rank, then
    the wait for ``owners``' ready tokens (the rows the copies read), in one
    batch: writes first, so no rank waits before it announced."""
    device.token_ops(sync, tuple(("write", w.peer_view(sync.flags, reader, "signal pad"), tokens.ready(w.rank), 1)
                                 for reader in readers) +
                     tuple(("wait", sync.flags, tokens.ready(owner), 1) for owner in owners))


def await_ready(sync: SyncState, tokens: GatherTokens, owners: tuple[int, ...]) -> None:
    """Before the first read of ``owners``' rows: their ready tokens, all in one wait."""
    device.token_ops(sync, tuple(("wait", sync.flags, tokens.ready(owner), 1) for owner in owners))


def release(w: GpuWorld, sync: SyncState, tokens: GatherTokens, owners: tuple[int, ...]) -> None:
    """After the last read of each of ``owners``' rows: reset their ready
    tokens, then hand each owner its release token (in that order, so an
    owner's next ready token cannot be lost to this reset)."""
    device.token_ops(sync, tuple(("write", sync.flags, tokens.ready(owner), 0) for owner in owners) +
                     tuple(("write", w.peer_view(sync.flags, owner, "signal pad"), tokens.released(w.rank), 1)
                           for owner in owners))


def await_releases(sync: SyncState, tokens: GatherTokens, readers: tuple[int, ...]) -> None:
    """At the end of a launch: wait for every reader's release token, then
    take them, so nothing queued after the launch overwrites rows a peer
    still reads."""
    device.token_ops(sync, tuple(("wait", sync.flags, tokens.released(reader), 1) for reader in readers) +
                     tuple(("write", sync.flags, tokens.released(reader), 0) for reader in readers))
