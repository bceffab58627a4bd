"""KV-cache block accounting for one full-attention group, as vLLM 0.33.0 keeps it.

Modelled on ``kv_cache_manager.py`` / ``block_pool.py`` / ``single_type_kv_cache_manager.py``:
a pool of ``num_gpu_blocks`` blocks of which block 0 is the null block, an LRU free queue
(freed unhashed blocks go to its front, freed cached blocks to its back, a request's blocks
tail first), prefix-cache hits on whole blocks capped at ``N - 1`` tokens, the full-sequence
admission gate and all-or-nothing step allocation. Block ids matter only through that order,
which decides what an allocation evicts from the prefix cache.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from quizsvc.ledger.request import Request, RequestStatus


def cdiv(numerator: int, denominator: int) -> int:
    """Return the ceiling of numerator / denominator for non-negative integers."""
    return -(-numerator // denominator)


@dataclass(slots=True, eq=False)
class Block:
    """Hold one KV block: who references it and which prefix hash (if any) it caches."""

    block_id: int
    ref_cnt: int = 0
    block_hash: int | None = None


class BlockHasher:
    """Give every distinct token prefix ending at a block boundary a stable integer key.

    vLLM chains a cryptographic hash over (parent hash, block tokens, lookahead tokens);
    interning the same tuple gives the same equality with no collisions.
    """

    def __init__(self, block_size: int, num_lookahead_tokens: int) -> None:
        self.block_size = block_size
        self.num_lookahead_tokens = num_lookahead_tokens
        self._keys: dict[tuple[int, tuple[int, ...]], int] = {}

    def update(self, request: Request) -> None:
        """Append the hashes of every newly complete block of ``request``."""
        block_size = self.block_size
        hashes = request.block_hashes
        tokens = request.all_token_ids
        limit = len(tokens) - self.num_lookahead_tokens
        start = len(hashes) * block_size
        keys = self._keys
        while start + block_size <= limit:
            parent = hashes[-1] if hashes else 0
            end = start + block_size + self.num_lookahead_tokens
            key = (parent, tuple(tokens[start:end]))
            value = keys.get(key)
            if value is None:
                value = len(keys) + 1
                keys[key] = value
            hashes.append(value)
            start += block_size


class KVCacheManager:
    """Allocate, free and cache KV blocks; answer how many blocks a request would need.

    ``last_failure`` says why the latest ``allocate_slots`` call failed ("gate" for the
    full-sequence admission gate, "step" for the step allocation) and ``last_blocks_needed``
    how many free blocks it asked for, so explanations can quote them.
    """

    def __init__(
        self,
        num_gpu_blocks: int,
        block_size: int,
        max_model_len: int,
        enable_caching: bool,
        watermark_blocks: int = 0,
        num_hash_lookahead_tokens: int = 0,
    ) -> None:
        self.block_size = block_size
        self.max_model_len = max_model_len
        self.enable_caching = enable_caching
        self.watermark_blocks = watermark_blocks
        self.hasher = BlockHasher(block_size, num_hash_lookahead_tokens)
        # Block 0 is vLLM's null block: never in the free queue, never allocated.
        self.free_queue: OrderedDict[int, Block] = OrderedDict(
            (block_id, Block(block_id)) for block_id in range(1, num_gpu_blocks)
        )
        self.cached: dict[int, dict[int, Block]] = {}
        self.req_to_blocks: dict[str, list[Block]] = {}
        self.num_cached_block: dict[str, int] = {}
        self.last_failure: str | None = None
        self.last_blocks_needed = 0

    @property
    def num_free_blocks(self) -> int:
        """Return the blocks in the free queue, cached-but-unreferenced ones included."""
        return len(self.free_queue)

    def num_held_blocks(self, request_id: str) -> int:
        """Return how many blocks ``request_id`` holds now."""
        blocks = self.req_to_blocks.get(request_id)
        return len(blocks) if blocks else 0

    # ---- prefix cache -------------------------------------------------------------------
    def update_block_hashes(self, request: Request) -> None:
        """Hash any newly complete blocks of ``request`` (only when prefix caching is on)."""
        if self.enable_caching:
            self.hasher.update(request)

    def find_prefix_hit(self, request: Request) -> list[Block]:
        """Return the cached blocks of the longest hit, capped at ``floor((N-1)/bs)`` blocks."""
        if not self.enable_caching:
            return []
        max_blocks = (request.num_tokens - 1) // self.block_size
        hit: list[Block] = []
        cached = self.cached
        for block_hash in request.block_hashes[:max_blocks]:
            blocks = cached.get(block_hash)
            if not blocks:
                break
            hit.append(next(iter(blocks.values())))
        return hit

    def cache_blocks(self, request: Request, num_tokens: int) -> None:
        """Register the full blocks covering the first ``num_tokens`` tokens as cached."""
        if not self.enable_caching:
            return
        request_id = request.request_id
        num_cached = self.num_cached_block.get(request_id, 0)
        num_hashed_tokens = len(request.block_hashes) * self.block_size
        num_full = min(num_tokens, num_hashed_tokens) // self.block_size
        if num_cached >= num_full:
            return
        blocks = self.req_to_blocks[request_id]
        hashes = request.block_hashes
        cached = self.cached
        for index in range(num_cached, num_full):
            block = blocks[index]
            block_hash = hashes[index]
            if block.block_hash == block_hash:
                continue
            if block.block_hash is not None:
                self._evict_hash(block)
            holders = cached.get(block_hash)
            if holders is None:
                cached[block_hash] = {block.block_id: block}
            elif block.block_id in holders:
                continue
            else:
                holders[block.block_id] = block
            block.block_hash = block_hash
        self.num_cached_block[request_id] = num_full

    def _evict_hash(self, block: Block) -> None:
        """Forget the prefix hash ``block`` holds, if any (it is about to be reused)."""
        block_hash = block.block_hash
        if block_hash is None:
            return
        holders = self.cached.get(block_hash)
        if holders is not None:
            holders.pop(block.block_id, None)
            if not holders:
                del self.cached[block_hash]
        block.block_hash = None

    # ---- allocation ---------------------------------------------------------------------
    def blocks_needed(self, request: Request, num_tokens: int, hit_blocks: Sequence[Block]) -> int:
        """Return the free blocks needed to cover ``num_tokens`` slots of ``request``."""
        held = self.num_held_blocks(request.request_id)
        evictable = sum(1 for block in hit_blocks if block.ref_cnt == 0)
        required = cdiv(num_tokens, self.block_size)
        return max(required - (len(hit_blocks) + held), 0) + evictable

    def allocate_slots(
        self,
        request: Request,
        num_new_tokens: int,
        hit_blocks: Sequence[Block] = (),
        num_lookahead_tokens: int = 0,
        full_sequence_must_fit: bool = False,
        has_scheduled_reqs: bool = True,
    ) -> bool:
        """Reserve KV for ``num_new_tokens`` more positions, all or nothing.

        Slots reserved: ``min(C + hit + n + L, max_model_len)``. A waiting request must also
        pass the admission gate (its whole sequence, without lookahead, must fit now).
        """
        block_size = self.block_size
        if not hit_blocks and not full_sequence_must_fit:
            # Fast path for a running request: it only ever grows its own block list.
            blocks = self.req_to_blocks.get(request.request_id)
            if blocks is not None:
                computed = request.num_computed_tokens
                slots = computed + num_new_tokens + num_lookahead_tokens
                if slots > self.max_model_len:
                    slots = self.max_model_len
                missing = -(-slots // block_size) - len(blocks)
                if missing <= 0 or (
                    missing <= len(self.free_queue)
                    and (self.watermark_blocks == 0
                         or request.status is RequestStatus.RUNNING)
                ):
                    self.last_failure = None
                    self.last_blocks_needed = max(missing, 0)
                    if missing > 0:
                        blocks.extend(self._take_free_blocks(missing))
                    if self.enable_caching:
                        self.cache_blocks(
                            request, min(min(computed, self.max_model_len) + num_new_tokens,
                                         len(request.all_token_ids)),
                        )
                    return True
        hit_tokens = len(hit_blocks) * block_size
        total_computed = min(request.num_computed_tokens + hit_tokens, self.max_model_len)
        watermark = 0
        if has_scheduled_reqs and request.status in (
            RequestStatus.WAITING,
            RequestStatus.PREEMPTED,
        ):
            watermark = self.watermark_blocks
        free = len(self.free_queue)
        if full_sequence_must_fit:
            full_tokens = min(request.num_tokens, self.max_model_len)
            needed = self.blocks_needed(request, full_tokens, hit_blocks)
            if needed + watermark > free:
                self.last_failure = "gate"
                self.last_blocks_needed = needed + watermark
                return False
        slots = min(total_computed + num_new_tokens + num_lookahead_tokens, self.max_model_len)
        needed = self.blocks_needed(request, slots, hit_blocks)
        self.last_blocks_needed = needed + watermark
        if needed + watermark > free:
            self.last_failure = "step"
            return False
        self.last_failure = None
        request_id = request.request_id
        blocks = self.req_to_blocks.get(request_id)
        if blocks is None:
            blocks = self.req_to_blocks[request_id] = []
        if hit_blocks:
            self._touch(hit_blocks)
            blocks.extend(hit_blocks)
        missing = cdiv(slots, block_size) - len(blocks)
        if missing > 0:
            blocks.extend(self._take_free_blocks(missing))
        self.cache_blocks(request, min(total_computed + num_new_tokens, request.num_tokens))
        return True

    def _touch(self, hit_blocks: Sequence[Block]) -> None:
        """Take a reference on hit blocks, pulling unreferenced ones out of the free queue."""
        for block in hit_blocks:
            if block.ref_cnt == 0:
                del self.free_queue[block.block_id]
            block.ref_cnt += 1

    def _take_free_blocks(self, count: int) -> list[Block]:
        """Pop ``count`` blocks from the front of the free queue, evicting their hashes."""
        taken: list[Block] = []
        free_queue = self.free_queue
        popitem = free_queue.popitem
        cached = self.cached
        for _ in range(count):
            block = popitem(last=False)[1]
            block_hash = block.block_hash
            if block_hash is not None:
                holders = cached.get(block_hash)
                if holders is not None:
                    holders.pop(block.block_id, None)
                    if not holders:
                        del cached[block_hash]
                block.block_hash = None
            block.ref_cnt = 1
            taken.append(block)
        return taken

    def free(self, request: Request) -> None:
        """Release ``request``'s blocks, tail first: unhashed to the front, cached to the back."""
        request_id = request.request_id
        blocks = self.req_to_blocks.pop(request_id, None)
        self.num_cached_block.pop(request_id, None)
        if not blocks:
            return
        free_queue = self.free_queue
        caching = self.enable_caching
        evict_first: list[Block] = []
        for block in reversed(blocks):
            ref_cnt = block.ref_cnt - 1
            block.ref_cnt = ref_cnt
            if ref_cnt == 0:
                if caching and block.block_hash is not None:
                    free_queue[block.block_id] = block  # cached: evicted last
                else:
                    evict_first.append(block)
            elif ref_cnt < 0:
                raise AssertionError(f"block {block.block_id} freed twice")
        for block in reversed(evict_first):
            free_queue[block.block_id] = block
            free_queue.move_to_end(block.block_id, last=False)
