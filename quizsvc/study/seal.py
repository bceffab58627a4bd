"""Sign what this deployment vouches for, and seal what a learner may carry but not read.

An export is a learner's own history, and an import must not let a hand-written document
claim grades, reveals or mastery the server never gave. So an export carries an HMAC (under
the deployment's secret key) over its canonical JSON: a document whose signature checks was
written here exactly as it says. What the learner has not earned yet (the variant's seed, its
content key and the misconception their wrong answer matched, while the reveal is withheld)
travels *sealed*: encrypted with a keystream drawn from HMAC-SHA256 under the same key (an
HMAC used as a pseudo-random function), so that a re-import restores it while the file shows
nothing of it. Each seal takes a fresh random nonce, so two seals of one value differ and a
file says nothing, not even which of its withheld answers are equal. Standard library only;
pure functions of the key, the nonce and the values.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import datetime
from typing import Any

NONCE_BYTES = 16
SIGNATURE_CHARS = 64


def canonical(value: Any) -> bytes:
    """Return ``value`` as canonical JSON bytes (datetimes as ISO text), the thing signed."""
    def default(item: Any) -> Any:
        if isinstance(item, datetime):
            return item.isoformat()
        raise TypeError(f"cannot sign a {type(item).__name__}")

    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      default=default, allow_nan=False).encode()


def sign(secret_key: str, purpose: str, value: Any) -> str:
    """Return the HMAC-SHA256 (hex) of ``value`` for ``purpose`` under the secret key."""
    return hmac.new(secret_key.encode(), purpose.encode() + b"\0" + canonical(value),
                    hashlib.sha256).hexdigest()


def signed_by(secret_key: str, purpose: str, value: Any, signature: Any) -> bool:
    """Tell whether ``signature`` is this deployment's signature of ``value``."""
    if not isinstance(signature, str) or len(signature) != SIGNATURE_CHARS:
        return False
    try:
        expected = sign(secret_key, purpose, value)
    except (TypeError, ValueError):
        return False
    return hmac.compare_digest(expected.encode(), signature.encode("utf-8", "surrogateescape"))


def keystream(secret_key: str, nonce: bytes, length: int) -> bytes:
    """Return ``length`` bytes of HMAC-SHA256 counter-mode keystream for ``nonce``."""
    blocks: list[bytes] = []
    counter = 0
    while 32 * len(blocks) < length:
        blocks.append(hmac.new(secret_key.encode(), b"seal\0" + nonce + counter.to_bytes(4, "big"),
                               hashlib.sha256).digest())
        counter += 1
    return b"".join(blocks)[:length]


def seal(secret_key: str, value: Any, nonce: bytes) -> str:
    """Return ``value`` encrypted for this deployment only (url-safe text).

    ``nonce`` (``NONCE_BYTES`` random bytes) must never be used twice under one key.
    """
    if len(nonce) != NONCE_BYTES:
        raise ValueError(f"a nonce is {NONCE_BYTES} bytes")
    plain = canonical(value)
    cipher = bytes(a ^ b for a, b in zip(plain, keystream(secret_key, nonce, len(plain)),
                                         strict=True))
    return base64.urlsafe_b64encode(nonce + cipher).decode()


def unseal(secret_key: str, token: Any) -> Any:
    """Return the value ``seal`` sealed, or None when ``token`` is not one of ours.

    Only call it on a token covered by a signature that checked: the seal hides, the
    signature vouches.
    """
    if not isinstance(token, str):
        return None
    try:
        raw = base64.urlsafe_b64decode(token.encode())
    except (ValueError, UnicodeEncodeError):
        return None
    nonce, cipher = raw[:NONCE_BYTES], raw[NONCE_BYTES:]
    if len(nonce) != NONCE_BYTES:
        return None
    plain = bytes(a ^ b for a, b in zip(cipher, keystream(secret_key, nonce, len(cipher)),
                                        strict=True))
    try:
        return json.loads(plain)
    except ValueError:
        return None
