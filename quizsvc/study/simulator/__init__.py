"""Plan the simulator's scenarios: pure functions from the learner's settings to a scenario.

Three rooms, each a module:

- ``settings``: read and check what the "change the variables" form sends (``parse_settings``,
  refusing with ``errors.Invalid`` on ``query``), with the page's limits and presets;
- ``planner``: build the FORMAT.md scenario whose warm-up steps reach the state asked for
  (``plan_scenario``), and compare a replayed trace with it (``reached_mismatches``);
- ``advice``: say what to change when no warm-up can be built, by planning changed settings
  (``budgets`` holds the budget arithmetic the planner and the advice share).

Nothing here replays, reads the clock or touches a learner's state: the use case that replays
a plan, bounds the replay and opens the book is ``quizsvc.study.sandbox``. The speculative
methods and their ``draft_slots`` are the ledger's (``quizsvc.ledger.config``).
"""

from quizsvc.ledger.config import SPEC_METHODS
from quizsvc.study.simulator.planner import (
    Mismatch,
    ScenarioPlan,
    plan_scenario,
    reached_mismatches,
)
from quizsvc.study.simulator.settings import (
    DEFAULT_SETTINGS,
    GLOBAL_LIMITS,
    PRESET_TITLES,
    PRESETS,
    REQUEST_IDS,
    REQUEST_LIMITS,
    SLIDER_MAX,
    RequestSetting,
    SimulatorSettings,
    known_fields,
    parse_settings,
    setting_refused,
    settings_query,
    with_request,
)

__all__ = [
    "DEFAULT_SETTINGS",
    "GLOBAL_LIMITS",
    "PRESETS",
    "PRESET_TITLES",
    "REQUEST_IDS",
    "REQUEST_LIMITS",
    "SLIDER_MAX",
    "SPEC_METHODS",
    "Mismatch",
    "RequestSetting",
    "ScenarioPlan",
    "SimulatorSettings",
    "known_fields",
    "parse_settings",
    "plan_scenario",
    "reached_mismatches",
    "setting_refused",
    "settings_query",
    "with_request",
]
