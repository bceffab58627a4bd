"""An exact, executable model of vLLM 0.33.0's V1 scheduler token ledger (text-only).

Standard library only: importing this package must never load Flask, SQLAlchemy or
marshmallow. Start with ``replay(scenario) -> trace`` or build an ``Engine`` and step it.
"""

from quizsvc.ledger.config import LedgerConfig
from quizsvc.ledger.engine import Engine, replay
from quizsvc.ledger.errors import ScenarioError, SchedulerCrash
from quizsvc.ledger.request import Request, RequestStatus
from quizsvc.ledger.scenario import Scenario, parse_scenario
from quizsvc.ledger.scheduler import Scheduler, WrongRule

__all__ = [
    "Engine",
    "LedgerConfig",
    "Request",
    "RequestStatus",
    "Scenario",
    "ScenarioError",
    "Scheduler",
    "SchedulerCrash",
    "WrongRule",
    "parse_scenario",
    "replay",
]
