"""Static memory planning: give every activation and scratch buffer a byte offset in one arena.

The interface is TFLite Micro's, made functional. A caller describes each tensor as a
``Buffer(id, size, first, last, name)`` over a linear instruction order, calls a planner -- a
plain function ``(buffers, alignment) -> MemoryPlan`` -- and proves the result with
``verify_plan``, which is separate and trusts nothing but the offsets. ``plan_suite`` runs every
planner, verifies each plan and keeps the smallest arena.

Contract for callers (the lowering that builds the buffers):

* Lifetimes are inclusive instruction indices. A tensor written by instruction ``i`` and last
  read by instruction ``j`` has ``first=i, last=j``; the two buffers of an op that reads ``x`` and
  writes ``y`` therefore overlap at that op and never share bytes (kernels need not be in-place
  safe). A kernel's scratch lives ``[i, i]``.
* Graph inputs are written before instruction 0: give them ``first=-1`` (``first=0`` gives the
  same conflicts, since instruction 0 reads them anyway). Graph outputs are read after the last
  instruction ``n-1``: give them ``last=n``, so nothing planned reuses them before the caller
  reads them.
* Aliases (zero-copy views such as reshape, or an op that must run in place) share storage: merge
  each alias group into ONE Buffer whose size is the largest member's and whose lifetime is the
  union of the members', and map every member to that buffer's offset. The planner never sees
  aliases.
* Overlaps: an op whose loop reads its input ahead of where it writes its output may let the
  output share the input's dead bytes. The output's Buffer lists ``Overlap(input_id, lag)`` for
  an input whose ``last`` is the output's ``first``: the output may start ``lag`` bytes below the
  input or lower (with ``exact=True``, exactly ``lag`` below: in place). ``verify_plan`` checks
  each shared byte against the lag, and ``overlap_bound`` is the liveness bound that counts
  these savings.
* Pinned buffers (constants in flash, user-provided input/output memory) are not planned: simply
  do not pass them.
* Sizes are bytes; 0 is allowed (an empty buffer conflicts with nothing and gets offset 0). Each
  size is rounded up to ``alignment`` (default 16) for placement and every offset is a multiple of
  it, so the arena base must be aligned too.
* Ids are unique within one call; names are only for messages and drawings.
* Same buffers in, same plan out: every ordering breaks ties by buffer id.
"""
from aot.memory.greedy import (plan_best_fit_by_breadth, plan_best_fit_by_size,
                               plan_greedy_by_area, plan_greedy_by_breadth,
                               plan_greedy_by_first_use,
                               plan_greedy_by_first_use_from_top, plan_greedy_by_lifetime,
                               plan_greedy_by_size, plan_greedy_by_size_from_top, plan_naive,
                               plan_pinned_input)
from aot.memory.plan import (DEFAULT_ALIGNMENT, Buffer, MemoryPlan, Overlap, align_up,
                             lower_bound, overlap_bound, overlap_live)
from aot.memory.suite import DEFAULT_PLANNERS, Planner, plan_all, plan_suite
from aot.memory.svg import render_arena_svg, templates_dir
from aot.memory.two_ended import plan_two_ended
from aot.memory.verify import verify_plan

__all__ = [
    "Buffer", "DEFAULT_ALIGNMENT", "DEFAULT_PLANNERS", "MemoryPlan", "Overlap", "Planner",
    "align_up", "lower_bound", "overlap_bound", "overlap_live", "plan_all",
    "plan_best_fit_by_breadth", "plan_best_fit_by_size", "plan_greedy_by_area",
    "plan_greedy_by_breadth", "plan_greedy_by_first_use", "plan_greedy_by_first_use_from_top",
    "plan_greedy_by_lifetime", "plan_greedy_by_size", "plan_greedy_by_size_from_top",
    "plan_naive", "plan_pinned_input", "plan_suite", "plan_two_ended", "render_arena_svg",
    "templates_dir", "verify_plan",
]
