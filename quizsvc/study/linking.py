"""Link a second browser to a learner with a one-time code, and tell who a browser is.

Link codes are short enough to type, expire after ``LINK_CODE_TTL_SECONDS``, work once, and are
stored only as their sha256.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from quizsvc.errors import N_, Conflict, Gone, Invalid, TooMany
from quizsvc.study.context import Context, Identity
from quizsvc.study.limits import MAX_OPEN_LINK_CODES

LINK_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud, typed by hand
LINK_CODE_LENGTH = 12  # 32**12 = 2**60 codes; each one lives minutes and works once


def digest(secret: str) -> str:
    """Return the sha256 hex digest under which a token or code is stored."""
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True)
class IssuedLinkCode:
    """A link code as shown once to the learner who asked for it."""

    code: str
    expires_at: datetime


def normalise_code(code: str) -> str:
    """Uppercase a typed code and drop spaces and dashes people add while copying it."""
    return "".join(ch for ch in code.upper() if ch not in " -")


def create_link_code(ctx: Context) -> IssuedLinkCode:
    """Issue a one-time code that lets another browser join this learner; store its hash."""
    code = "".join(secrets.choice(LINK_CODE_ALPHABET) for _ in range(LINK_CODE_LENGTH))
    expires_at = ctx.now + timedelta(seconds=ctx.limits.link_code_ttl_seconds)
    with ctx.uow.write():
        if ctx.uow.learners.open_link_codes(ctx.learner_id, ctx.now) >= MAX_OPEN_LINK_CODES:
            raise TooMany(N_("This learner already has %(max)s link codes waiting; use one, "
                             "or wait until they expire."), reason="too_many_link_codes",
                          params={"max": MAX_OPEN_LINK_CODES})
        ctx.uow.learners.add_link_code(ctx.learner_id, digest(code), ctx.now, expires_at)
    return IssuedLinkCode(code=code, expires_at=expires_at)


def redeem_link_code(ctx: Context, code: str, leave_progress: bool = False) -> Identity:
    """Move this browser to the learner who issued ``code``; the code is used up.

    The browser's self-assessments travel with it (they are per browser); its former
    learner's attempts and cards stay where they were. If this browser is the only one of a
    learner with progress, that progress would be left behind where no browser reaches it:
    the link is refused (409 ``would_leave_progress``, with the number of answers) unless
    ``leave_progress`` says the learner has been told and agrees. Unknown codes are 422 on the
    field, expired or used ones 410.
    """
    normalised = normalise_code(code)
    if not normalised or any(ch not in LINK_CODE_ALPHABET for ch in normalised):
        raise Invalid("code", N_("not a link code"), reason="not_a_link_code")
    with ctx.uow.write():
        link = ctx.uow.learners.link_code_by_hash(digest(normalised))
        if link is None:
            raise Invalid("code", N_("unknown link code"), reason="unknown_link_code")
        if link.used:
            raise Gone(N_("This link code was already used."), reason="link_code_used")
        if link.expires_at <= ctx.now:
            raise Gone(N_("This link code has expired."), reason="link_code_expired")
        left_behind = progress_left_behind(ctx, link.learner_id)
        if left_behind and not leave_progress:
            raise Conflict(N_("This browser holds %(answers)s answer(s) of its own that "
                              "linking would leave behind; export them first, or send "
                              "leave_progress: true."), reason="would_leave_progress",
                           params={"answers": left_behind})
        if not ctx.uow.learners.use_link_code(link.id, ctx.browser_id, ctx.now):
            raise Gone(N_("This link code was already used."), reason="link_code_used")
        ctx.uow.learners.move_browser(ctx.browser_id, link.learner_id, ctx.now)
    return Identity(learner_id=link.learner_id, browser_id=ctx.browser_id)


def progress_left_behind(ctx: Context, learner_id: int) -> int:
    """Count the answers that linking this browser to ``learner_id`` would leave behind.

    None when the browser already belongs to that learner or another browser shares its
    learner (the progress stays reachable from there).
    """
    if learner_id == ctx.learner_id or ctx.uow.learners.browsers_of(ctx.learner_id) > 1:
        return 0
    return ctx.uow.history.attempt_count(ctx.learner_id)


def is_linked(ctx: Context) -> bool:
    """Tell whether this browser shares its learner with another browser."""
    if ctx.identity is None:
        return False
    with ctx.uow.read():
        return ctx.uow.learners.browsers_of(ctx.identity.learner_id) > 1
