"""Declare the API's request and response shapes, by hand and apart from the tables.

Request schemas raise on unknown keys (marshmallow's default, kept on purpose); server-set
fields are ``dump_only``. Validators raise ``ValidationError``, as marshmallow 4 requires.
"""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate


class HealthSchema(ma.Schema):
    """Liveness answer."""

    status = fields.String(dump_only=True)


class ReadySchema(ma.Schema):
    """Readiness answer: database reachable and at the newest migration."""

    status = fields.String(dump_only=True)
    database = fields.String(dump_only=True)
    revision = fields.String(dump_only=True, allow_none=True)


class MeSchema(ma.Schema):
    """Who this browser is, as far as the browser needs to know."""

    learner = fields.String(dump_only=True, metadata={
        "description": "opaque learner handle: equal for linked browsers"})
    linked = fields.Boolean(dump_only=True)
    csrf_token = fields.String(dump_only=True, metadata={
        "description": "the token to echo in X-CSRF-Token (same as the csrf_token cookie)"})


class LinkCodeSchema(ma.Schema):
    """A one-time code, shown once, to type into another browser."""

    code = fields.String(dump_only=True)
    expires_at = fields.DateTime(dump_only=True)


class LinkRequestSchema(ma.Schema):
    """Link this browser to the learner who issued ``code``."""

    code = fields.String(required=True, validate=validate.Length(min=1, max=64))
