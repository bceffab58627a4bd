"""Count the budget a warm-up step leaves a request, and say which budget to raise when short.

The planner admits each request behind the warm-up decodes (and fillers) listed before it, so
the tokens it gets are what ``token_budget`` and ``input_budget`` keep after them; the advice
reads the same sums backwards to name the least budgets that would do. Both use this one
arithmetic, so a budget the advice proposes is one the planner finds room in.
"""

from __future__ import annotations

from quizsvc.errors import N_
from quizsvc.study.simulator.settings import SimulatorSettings


def _per_decode(settings: SimulatorSettings) -> int:
    """Return the tokens one warm-up decode asks for in a step (1 + K for model drafters)."""
    return 1 + (settings.num_speculative_tokens if settings.drafts_always_k else 0)


def admission_room(settings: SimulatorSettings, decodes_ahead: int, fillers_ahead: int = 0,
                   filler_tokens: int = 0) -> int:
    """Return how many tokens a request admitted behind ``decodes_ahead`` warm-up decodes gets.

    Each warm-up decode asks for 1 + its drafts (K for model drafters, 0 for n-gram, whose
    warm-up drafts are switched off) and charges ``n + draft_slots`` to the input budget.
    """
    ds = settings.draft_slots
    per_decode = _per_decode(settings)
    token_room = settings.token_budget - decodes_ahead * per_decode - filler_tokens
    input_room = (
        settings.input_budget
        - decodes_ahead * (per_decode + ds)
        - filler_tokens
        - fillers_ahead * ds
        - ds
    )
    return min(token_room, input_room)


def needed_budgets(settings: SimulatorSettings, decodes_ahead: int, tokens: int
                   ) -> tuple[int, int]:
    """Return the least ``(token_budget, input_budget)`` that leave ``tokens`` for a request
    admitted behind ``decodes_ahead`` warm-up decodes and no fillers (``admission_room``)."""
    ds = settings.draft_slots
    per_decode = _per_decode(settings)
    return (tokens + decodes_ahead * per_decode,
            tokens + decodes_ahead * (per_decode + ds) + ds)


# What to raise when a request's warm-up step has too little budget, by the budget(s) short
# ("both": input_budget is named first, token_budget may not exceed it). Each value is the
# least that leaves the tokens: needed, though other limits may still stand in the way.
NO_ROOM_TO_ADMIT: dict[str, str] = {
    "token_budget": N_("no budget is left to admit request %(request)s behind %(ahead)s "
                       "decoding request(s): raise token_budget to at least %(token_budget)s"),
    "input_budget": N_("no budget is left to admit request %(request)s behind %(ahead)s "
                       "decoding request(s): raise input_budget to at least %(input_budget)s"),
    "both": N_("no budget is left to admit request %(request)s behind %(ahead)s decoding "
               "request(s): raise input_budget to at least %(input_budget)s and token_budget "
               "to at least %(token_budget)s"),
}
PREFILL_ROOM: dict[str, str] = {
    "token_budget": N_("at most %(most)s tokens are left for request %(request)s in its "
                       "warm-up step with these budgets: raise token_budget to at least "
                       "%(token_budget)s"),
    "input_budget": N_("at most %(most)s tokens are left for request %(request)s in its "
                       "warm-up step with these budgets: raise input_budget to at least "
                       "%(input_budget)s"),
    "both": N_("at most %(most)s tokens are left for request %(request)s in its warm-up step "
               "with these budgets: raise input_budget to at least %(input_budget)s and "
               "token_budget to at least %(token_budget)s"),
}


def short_budgets(settings: SimulatorSettings, token_budget: int, input_budget: int) -> str:
    """Name the budget(s) below the given ones: a key of ``NO_ROOM_TO_ADMIT`` and
    ``PREFILL_ROOM``."""
    if input_budget > settings.input_budget:
        return "both" if token_budget > settings.token_budget else "input_budget"
    return "token_budget"

