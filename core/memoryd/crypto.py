"""The at-rest format of sensitive scopes: AES-256-GCM with a versioned header, a fresh
96-bit nonce per write, and associated data binding each ciphertext to its scope, slug
and kind, so a file moved, renamed or swapped fails to open (SECURITY.md).

    magic "MDENC" | version 1 | nonce (12) | ciphertext+tag

Keys are random 256-bit (kept in the OS keyring) or scrypt-derived from a passphrase
(n=2^15, r=8, p=1, per-scope random salt). Nothing here touches the disk.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from memoryd.errors import DecryptError, KeyUnavailable

MAGIC = b"MDENC"
VERSION = 1
NONCE = 12
KEY_BYTES = 32
HEADER = len(MAGIC) + 1 + NONCE
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**15, 8, 1
_CHECK = b"memoryd key check v1"


def new_key() -> bytes:
    return os.urandom(KEY_BYTES)


def _aad(scope_hash: str, slug: str, kind: str) -> bytes:
    return b"\0".join([MAGIC, bytes([VERSION]), scope_hash.encode(), slug.encode(), kind.encode()])


def seal(key: bytes, plaintext: bytes, *, scope_hash: str, slug: str, kind: str = "md") -> bytes:
    nonce = os.urandom(NONCE)
    ct = AESGCM(key).encrypt(nonce, plaintext, _aad(scope_hash, slug, kind))
    return MAGIC + bytes([VERSION]) + nonce + ct


def is_sealed(data: bytes) -> bool:
    return data.startswith(MAGIC)


def open_sealed(
    key: bytes, data: bytes, *, scope_hash: str, slug: str, kind: str = "md", where: str = ""
) -> bytes:
    label = where or f"{slug} ({kind})"
    if not data.startswith(MAGIC) or len(data) < HEADER + 16:
        raise DecryptError(f"{label}: not a memoryd encrypted file (damaged or truncated)")
    if data[len(MAGIC)] != VERSION:
        raise DecryptError(f"{label}: encryption format version {data[len(MAGIC)]} is not supported")
    nonce = data[len(MAGIC) + 1 : HEADER]
    try:
        return AESGCM(key).decrypt(nonce, data[HEADER:], _aad(scope_hash, slug, kind))
    except InvalidTag:
        raise DecryptError(
            f"{label}: does not decrypt: the file was changed, moved, swapped with another, "
            "or the key is not this scope's"
        ) from None


@dataclass(frozen=True)
class KdfParams:
    salt: bytes
    n: int = SCRYPT_N
    r: int = SCRYPT_R
    p: int = SCRYPT_P

    def as_dict(self) -> dict[str, object]:
        return {"salt": b64(self.salt), "n": self.n, "r": self.r, "p": self.p}

    @classmethod
    def from_dict(cls, d: dict[str, object]) -> KdfParams:
        return cls(unb64(str(d["salt"])), int(d["n"]), int(d["r"]), int(d["p"]))  # type: ignore[call-overload]

    @classmethod
    def fresh(cls) -> KdfParams:
        return cls(os.urandom(16))


def derive(passphrase: str, params: KdfParams) -> bytes:
    if not passphrase:
        raise KeyUnavailable("the passphrase is empty")
    kdf = Scrypt(salt=params.salt, length=KEY_BYTES, n=params.n, r=params.r, p=params.p)
    return kdf.derive(passphrase.encode("utf-8"))


def key_check(key: bytes) -> str:
    """A value stored beside the scope's settings that says whether a key is the right
    one (wrong passphrase vs damaged file) without revealing anything about the key."""
    return hmac.new(key, _CHECK, hashlib.sha256).hexdigest()[:32]


def keyed_digest(key: bytes, data: bytes) -> str:
    """Fingerprints and opaque names for sensitive scopes: equal inputs match within the
    scope, and nothing can be guessed from the index without the key."""
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def subkey(key: bytes, info: bytes) -> bytes:
    """A key for one other use of a scope's key (a MAC), never stored: HKDF keeps a MAC
    made with it from ever equalling a fingerprint or key check made with the key."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(key)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text.encode("ascii"))
