"""The one exception tree of memoryd.

MemorydError                 root; adapters map it once (CLI: one line, exit 1)
 +-- UsageError              the caller asked for something malformed (CLI exit 2)
 |    +-- InvalidSlug        a slug that could escape its folder or is not a safe name
 |    +-- InvalidPayload     hook JSON that is empty, not JSON, or missing fields
 +-- NotFound                no memory with that slug
 +-- CorruptFile             a memory file whose frontmatter or encoding is unreadable
 |    +-- DecryptError       an .md.enc that does not open: tampered, moved, swapped, other key
 +-- StorageError            the index or the data directory cannot be used
 +-- AuditError              the audit log cannot be appended or read
 +-- DeliveryError           the digest could not be mailed or shown as a notification
 +-- AuthorizationRequired   a sensitive scope read without a live grant (CLI exit 3)
 +-- KeyUnavailable          a sensitive scope's key cannot be had: no keyring, key missing,
                             wrong passphrase
"""

from __future__ import annotations


class MemorydError(Exception):
    """Root of every error memoryd raises on purpose."""

    exit_code = 1


class UsageError(MemorydError):
    exit_code = 2


class InvalidSlug(UsageError):
    pass


class InvalidPayload(UsageError):
    pass


class NotFound(MemorydError):
    pass


class CorruptFile(MemorydError):
    pass


class StorageError(MemorydError):
    pass


class AuditError(MemorydError):
    pass


class DeliveryError(MemorydError):
    pass


class DecryptError(CorruptFile):
    pass


class AuthorizationRequired(MemorydError):
    """Exit 3 so an agent can tell "ask the user for a grant" from a failure. The gate also
    says, as values, which sensitive project wants the grant (its hash, and its root as
    core recorded it) so a window can word it in the user's language."""

    exit_code = 3

    def __init__(self, message: str, *, scope_hash: str | None = None, root: str | None = None) -> None:
        super().__init__(message)
        self.scope_hash = scope_hash
        self.root = root


class KeyUnavailable(MemorydError):
    pass


class Cancelled(MemorydError):
    """A long operation stopped because its progress callback said so (the tray's Cancel)."""

    exit_code = 130
