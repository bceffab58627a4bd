"""marshmallow's range, length and choice validators, saying why with a catalog template.

marshmallow formats its messages with ``str.format`` and hands on a finished English sentence
("Must be greater than or equal to 1."), which no catalog can look up. These subclasses
raise the very same sentence as a ``Said``: a ``str`` that also keeps its ``N_`` template
and params, so that the error envelope's ``said`` and the pages say it in the learner's
language (``quizsvc.http.language.say_reason``). The JSON ``errors`` stay byte-identical.

Only inclusive bounds are used here (marshmallow's default), and a validator given its own
``error=`` keeps marshmallow's plain formatting.
"""

from __future__ import annotations

from typing import Any

from marshmallow import validate

from quizsvc.errors import N_, filled


class Said(str):
    """A sentence that remembers the template and params it was filled from."""

    template: str
    params: dict[str, Any]

    def __new__(cls, template: str, params: dict[str, Any]) -> Said:
        said = super().__new__(cls, filled(template, params))
        said.template = template
        said.params = params
        return said


RANGE = {
    "min": N_("Must be greater than or equal to %(min)s."),
    "max": N_("Must be less than or equal to %(max)s."),
    "all": N_("Must be greater than or equal to %(min)s and less than or equal to %(max)s."),
}
LENGTH = {
    "min": N_("Shorter than minimum length %(min)s."),
    "max": N_("Longer than maximum length %(max)s."),
    "all": N_("Length must be between %(min)s and %(max)s."),
    "equal": N_("Length must be %(equal)s."),
}


def case(validator: Any, message: str) -> str:
    """Tell which of marshmallow's messages a validator chose: min, max, all or equal."""
    for name in ("min", "max", "all", "equal"):
        if message is getattr(validator, f"message_{name}", None):
            return name
    raise ValueError(f"not a message of {type(validator).__name__}: {message!r}")


class Range(validate.Range):
    """``marshmallow.validate.Range`` whose refusal is a ``Said``."""

    def _format_error(self, value: Any, message: str) -> str:
        if self.error is not None or not (self.min_inclusive and self.max_inclusive):
            return super()._format_error(value, message)
        return Said(RANGE[case(self, message)], {"min": self.min, "max": self.max})


class Length(validate.Length):
    """``marshmallow.validate.Length`` whose refusal is a ``Said``."""

    def _format_error(self, value: Any, message: str) -> str:
        if self.error is not None:
            return super()._format_error(value, message)
        return Said(LENGTH[case(self, message)],
                    {"min": self.min, "max": self.max, "equal": self.equal})


class OneOf(validate.OneOf):
    """``marshmallow.validate.OneOf`` whose refusal is a ``Said``."""

    def _format_error(self, value: Any) -> str:
        if self.error != self.default_message:
            return super()._format_error(value)
        return Said(N_("Must be one of: %(choices)s."), {"choices": self.choices_text})
