"""Read and check the variables the simulator's "change the variables" form sends.

The form (and ``GET /api/simulator/plan``'s query string) describes the state the learner wants
to look at: each request running, waiting or off, its ``num_tokens`` N, ``num_computed_tokens``
C and drafts, plus the scheduler's knobs. This module turns those strings into
``SimulatorSettings`` and refuses, naming the field, what no scheduler state could be, so the
planner only ever sees settings worth planning. The limits and presets live here too: the page
draws its inputs from them, and ``parse_settings`` reads back what ``settings_query`` writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from quizsvc.errors import N_, Invalid
from quizsvc.ledger.config import SPEC_METHODS, draft_slots_for

REQUEST_IDS: tuple[str, ...] = ("A", "B", "C", "D")
STATES: tuple[str, ...] = ("off", "running", "waiting")
SCHEDULING_MODES: tuple[str, ...] = ("sync", "async")
MAX_STEPS_AFTER = 8


def setting_refused(field_name: str, template: str, *, reason: str,
                    params: dict[str, Any] | None = None) -> Invalid:
    """Return the refusal of one simulator setting, naming the field and the reason.

    The settings arrive as a query string (the page's GET form, ``GET /api/simulator/plan``),
    so the refusal is ``errors.Invalid`` on ``query``: ``template`` is one English sentence
    marked ``N_`` where it is raised, ``params`` fills its holes, ``reason`` is a stable word.
    """
    return Invalid(field_name, template, location="query", reason=reason, params=params)


@dataclass(frozen=True)
class RequestSetting:
    """Describe one request as the learner wants it at the target step.

    ``state`` is "running", "waiting" or "off" (not in the scenario). For a running request
    ``num_computed_tokens`` (C) is between 1 and N - 1: C = N - 1 is a decode, anything lower a
    request still in (chunked) prefill. ``drafts`` are the drafts it carries into the step.
    """

    id: str
    state: str = "off"
    num_tokens: int = 10
    num_computed_tokens: int = 0
    drafts: int = 0

    @property
    def is_decode(self) -> bool:
        """Say whether this running request has finished its prompt (C = N - 1)."""
        return self.state == "running" and self.num_computed_tokens == self.num_tokens - 1


@dataclass(frozen=True)
class SimulatorSettings:
    """Hold every variable the simulator page lets the learner change."""

    requests: tuple[RequestSetting, ...]
    token_budget: int = 8
    input_budget: int = 8
    long_prefill_token_threshold: int = 0
    block_size: int = 4
    num_gpu_blocks: int = 64
    max_model_len: int = 64
    num_speculative_tokens: int = 0
    spec_method: str = "ngram"
    accepted: int = 0
    scheduling: str = "sync"
    steps_after: int = 1

    @property
    def draft_slots(self) -> int:
        """Return the input-budget slots each scheduled request reserves for drafting."""
        return draft_slots_for(self.spec_method, self.num_speculative_tokens)

    @property
    def drafts_always_k(self) -> bool:
        """Say whether every decode carries K drafts (model drafters, or async placeholders)."""
        return self.num_speculative_tokens > 0 and (
            self.spec_method != "ngram" or self.scheduling == "async"
        )

    def active(self) -> tuple[RequestSetting, ...]:
        """Return the requests that take part, in the listed order."""
        return tuple(r for r in self.requests if r.state != "off")


def _requests(*rows: RequestSetting) -> tuple[RequestSetting, ...]:
    """Return all four request slots in order, the ones not given switched off."""
    by_id = {r.id: r for r in rows}
    return tuple(by_id.get(rid, RequestSetting(rid)) for rid in REQUEST_IDS)


# The lesson's two worked examples, reproduced exactly (golden traces a_budget_split and
# b_spec_decode check the same numbers against the real scheduler).
PRESETS: dict[str, SimulatorSettings] = {
    "mixed-161": SimulatorSettings(
        requests=_requests(
            RequestSetting("A", "running", 10, 9),
            RequestSetting("B", "running", 10, 4),
            RequestSetting("C", "waiting", 5, 0),
        ),
    ),
    "spec-11-10-3": SimulatorSettings(
        requests=_requests(RequestSetting("A", "running", 11, 10, drafts=3)),
        token_budget=32,
        input_budget=32,
        num_speculative_tokens=3,
        accepted=1,
    ),
}
PRESET_TITLES: dict[str, dict[str, str]] = {
    "mixed-161": {"zh": "普通混合调度 [1,6,1]", "en": "Ordinary mixed step [1,6,1]"},
    "spec-11-10-3": {"zh": "投机 N=11/C=10/3 draft", "en": "Speculative N=11/C=10/3 drafts"},
}
DEFAULT_SETTINGS = PRESETS["mixed-161"]

# (name, lowest, highest) for every whole-number setting; the page uses them for its inputs.
GLOBAL_LIMITS: dict[str, tuple[int, int]] = {
    "token_budget": (1, 256),
    "input_budget": (1, 256),
    "long_prefill_token_threshold": (0, 256),
    "block_size": (1, 64),
    "num_gpu_blocks": (2, 1024),
    "max_model_len": (4, 512),
    "num_speculative_tokens": (0, 8),
    "accepted": (0, 8),
    "steps_after": (0, MAX_STEPS_AFTER),
}
# Where the page's sliders end (the number fields beside them accept the whole range).
SLIDER_MAX: dict[str, int] = {
    "token_budget": 64, "input_budget": 64, "long_prefill_token_threshold": 32,
    "block_size": 32, "num_gpu_blocks": 128, "max_model_len": 128,
    "num_speculative_tokens": 8, "accepted": 8, "steps_after": MAX_STEPS_AFTER,
    "num_tokens": 64, "num_computed_tokens": 63, "drafts": 8,
}
REQUEST_LIMITS: dict[str, tuple[int, int]] = {
    "num_tokens": (1, 511),
    "num_computed_tokens": (0, 510),
    "drafts": (0, 8),
}


def _parse_int(form: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = form.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise setting_refused(name, N_("must be a whole number, got %(got)s"),
                              reason="not_whole_number",
                              params={"got": repr(raw.strip()[:20])}) from None
    if not low <= value <= high:
        raise setting_refused(name, N_("must be between %(min)s and %(max)s, got %(got)s"),
                              reason="range", params={"min": low, "max": high, "got": value})
    return value


def _parse_choice(
    form: Mapping[str, str], name: str, default: str, allowed: tuple[str, ...]
) -> str:
    raw = form.get(name)
    if raw is None or raw == "":
        return default
    if raw not in allowed:
        raise setting_refused(name, N_("must be one of %(choices)s"), reason="one_of",
                              params={"choices": ", ".join(allowed)})
    return raw


def known_fields() -> frozenset[str]:
    """Return every query/form field the simulator understands."""
    names = {*GLOBAL_LIMITS, "spec_method", "scheduling"}
    for rid in REQUEST_IDS:
        names.update(f"{rid}.{key}" for key in ("state", *REQUEST_LIMITS))
    return frozenset(names)


def parse_settings(form: Mapping[str, str]) -> SimulatorSettings:
    """Read simulator settings from a query string or form, defaulting to the [1,6,1] preset.

    Unknown fields, numbers out of range and combinations the warm-up cannot build raise
    ``errors.Invalid`` naming the field, so the page can answer 422 with the reason.
    """
    unknown = sorted(set(form) - known_fields())
    if unknown:
        raise setting_refused(unknown[0], N_("unknown field"), reason="unknown_field")
    base = DEFAULT_SETTINGS
    values: dict[str, Any] = {
        name: _parse_int(form, name, getattr(base, name), low, high)
        for name, (low, high) in GLOBAL_LIMITS.items()
    }
    values["spec_method"] = _parse_choice(form, "spec_method", base.spec_method, SPEC_METHODS)
    values["scheduling"] = _parse_choice(form, "scheduling", base.scheduling, SCHEDULING_MODES)
    rows = []
    for default in base.requests:
        rid = default.id
        rows.append(
            RequestSetting(
                rid,
                _parse_choice(form, f"{rid}.state", default.state, STATES),
                *(
                    _parse_int(form, f"{rid}.{key}", getattr(default, key), low, high)
                    for key, (low, high) in REQUEST_LIMITS.items()
                ),
            )
        )
    settings = SimulatorSettings(requests=tuple(rows), **values)
    validate(settings)
    return settings


def validate(settings: SimulatorSettings) -> None:
    """Reject settings that no scheduler state (or no warm-up) could have, naming the field."""
    k = settings.num_speculative_tokens
    mml = settings.max_model_len
    if settings.accepted > k:
        raise setting_refused("accepted", N_("cannot exceed K (num_speculative_tokens = %(k)s)"),
                              reason="accepted_exceeds_k", params={"k": k})
    if settings.spec_method == "eagle_parallel" and k == 1:
        raise setting_refused("spec_method", N_("eagle_parallel needs K of at least 2"),
                              reason="eagle_parallel_k")
    if settings.token_budget > settings.input_budget:
        raise setting_refused(
            "token_budget", N_("cannot exceed input_budget (max_num_batched_tokens)"),
            reason="token_budget_exceeds_input_budget",
        )
    active = settings.active()
    if not active:
        raise setting_refused("A.state", N_("at least one request must be running or waiting"),
                              reason="no_request")
    running = [r for r in active if r.state == "running"]
    for r in active:
        prefix = r.id
        if r.num_tokens >= mml:
            raise setting_refused(
                f"{prefix}.num_tokens", N_("must be below max_model_len (%(max_model_len)s)"),
                reason="num_tokens_max_model_len", params={"max_model_len": mml},
            )
        if r.state == "waiting":
            if r.drafts:
                raise setting_refused(f"{prefix}.drafts", N_("a waiting request carries no drafts"),
                                      reason="waiting_drafts")
            continue
        if r.num_tokens < 2:
            raise setting_refused(f"{prefix}.num_tokens",
                                  N_("a running request has N of at least 2"),
                                  reason="running_num_tokens")
        if not 1 <= r.num_computed_tokens <= r.num_tokens - 1:
            raise setting_refused(
                f"{prefix}.num_computed_tokens",
                N_("a running request has 1 <= C <= N - 1 before the step "
                   "(C = N - 1 is a decode)"),
                reason="running_num_computed_tokens",
            )
        if r.drafts and k == 0:
            raise setting_refused(f"{prefix}.drafts",
                                  N_("drafts need K (num_speculative_tokens) > 0"),
                                  reason="drafts_need_k")
        if r.drafts > k:
            raise setting_refused(f"{prefix}.drafts", N_("cannot exceed K (%(k)s)"),
                                  reason="drafts_exceed_k", params={"k": k})
        if r.drafts and not r.is_decode:
            raise setting_refused(
                f"{prefix}.drafts", N_("only a decoding request (C = N - 1) carries drafts"),
                reason="drafts_need_decode",
            )
    for r in running[:-1]:
        if not r.is_decode:
            raise setting_refused(
                f"{r.id}.num_computed_tokens",
                N_("only the last running request can still be in prefill: an earlier one "
                   "would have been given its whole prompt before a later one got any budget"),
                reason="prefill_not_last",
            )


def settings_query(settings: SimulatorSettings) -> dict[str, str]:
    """Return the settings as the query-string fields ``parse_settings`` reads back."""
    query = {
        name: str(getattr(settings, name)) for name in GLOBAL_LIMITS
    }
    query["spec_method"] = settings.spec_method
    query["scheduling"] = settings.scheduling
    for r in settings.requests:
        query[f"{r.id}.state"] = r.state
        for key in REQUEST_LIMITS:
            query[f"{r.id}.{key}"] = str(getattr(r, key))
    return query


def with_request(settings: SimulatorSettings, rid: str, **changes: Any) -> SimulatorSettings:
    """Return ``settings`` with one request's fields changed (used by tests and presets)."""
    rows = tuple(replace(r, **changes) if r.id == rid else r for r in settings.requests)
    return replace(settings, requests=rows)
