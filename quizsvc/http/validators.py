"""marshmallow's range, length and choice validators, saying why with a catalog template.

marshmallow formats its messages with ``str.format`` and hands on a finished English sentence
("Must be greater than or equal to 1."), which no catalog can look up. These subclasses keep
marshmallow's checks (and what apispec documents of them: bounds, lengths, choices) and, when
one refuses, raise the very same sentence as a ``Said``: a ``str`` that also keeps its ``N_``
template and params, so that the error envelope's ``said`` and the pages say it in the
learner's language (``quizsvc.http.language.say_reason``). The JSON ``errors`` stay
byte-identical. They use marshmallow's public face only: a validator is a callable that raises
``ValidationError``.

Only inclusive bounds are used here (marshmallow's default), and a validator given its own
``error=`` keeps marshmallow's plain message.
"""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, validate

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
ONE_OF = N_("Must be one of: %(choices)s.")


def bounds_case(low: Any, high: Any) -> str:
    """Name the message marshmallow gives a refusal of these bounds: with both set it says
    both ("all") whichever one was crossed; with one, that one."""
    if low is not None and high is not None:
        return "all"
    return "min" if low is not None else "max"


class Range(validate.Range):
    """``marshmallow.validate.Range`` whose refusal is a ``Said``."""

    def __call__(self, value: Any) -> Any:
        try:
            return super().__call__(value)
        except ValidationError:
            if self.error is not None or not (self.min_inclusive and self.max_inclusive):
                raise
            raise ValidationError(Said(RANGE[bounds_case(self.min, self.max)],
                                       {"min": self.min, "max": self.max})) from None


class Length(validate.Length):
    """``marshmallow.validate.Length`` whose refusal is a ``Said``."""

    def __call__(self, value: Any) -> Any:
        try:
            return super().__call__(value)
        except ValidationError:
            if self.error is not None:
                raise
            case = "equal" if self.equal is not None else bounds_case(self.min, self.max)
            raise ValidationError(Said(LENGTH[case], {"min": self.min, "max": self.max,
                                                      "equal": self.equal})) from None


class OneOf(validate.OneOf):
    """``marshmallow.validate.OneOf`` whose refusal is a ``Said``."""

    def __call__(self, value: Any) -> Any:
        try:
            return super().__call__(value)
        except ValidationError:
            if self.error != self.default_message:
                raise
            raise ValidationError(Said(ONE_OF, {"choices": self.choices_text})) from None
