"""The one base of the service's request and reply schemas."""

from __future__ import annotations

from typing import Any

import marshmallow as ma


class Schema(ma.Schema):
    """A marshmallow schema that, once built, is only read: a deep copy of it may be itself.

    apispec deep-copies each operation it documents, and with it every schema instance that
    flask-smorest placed there, field by field, for each app the factory builds: a third of
    ``create_app``'s time went to copies nobody changes. Nothing in this service or its
    libraries changes a schema after building it (marshmallow's ``Nested`` takes a shallow
    copy, which this leaves alone).
    """

    def __deepcopy__(self, memo: dict[int, Any]) -> Schema:
        return self
