"""The key of each sensitive scope, for the files layer: from the OS keyring (random
keys), or for passphrase scopes from the grant's cached key or a passphrase given in
this process. Every key is checked against the scope's key check before use."""

from __future__ import annotations

import contextlib
import functools
import hmac
import secrets
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

from memoryd import crypto
from memoryd.errors import KeyUnavailable, MemorydError
from memoryd.paths import Layout, keyring_id, moved_from

from . import grants, state

Ask = Callable[[state.Settings], str]


class NotOwned(KeyUnavailable):
    """The scope belongs to another data dir on this machine (Keys.owned_here)."""


_ask: Ask | None = None


def _names(root: str, scope_hash: str) -> bool:
    """Whether `root` is the folder of that scope: a settings file in the clear can be
    edited to name another (a review, 2026-11-28: the tray's grant dialog then asked for
    "todo-app" and granted "acme-merger")."""
    from memoryd.envpaths import hash_root

    return hash_root(root) == scope_hash


def set_prompt(ask: Ask | None) -> None:
    """The CLI on a terminal can ask for a passphrase scope's passphrase when a grant is
    live but no keyring holds its key (machines without a Secret Service)."""
    global _ask
    _ask = ask


@contextlib.contextmanager
def no_prompt() -> Iterator[None]:
    """Reads that must not stop to ask for a passphrase: naming a project in a list is
    not worth one (the name stays withheld instead)."""
    global _ask
    saved, _ask = _ask, None
    try:
        yield
    finally:
        _ask = saved


class Keys:
    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self._keys: dict[str, bytes] = {}
        self._settings: dict[str, state.Settings | None] = {}
        self._owned: set[str] = set()  # scopes this process found to be this data dir's
        self.tampered: set[str] = set()  # settings whose key check the keyring disowns
        self._lost: dict[str, bool] = {}  # settings_lost, once per scope until refresh
        # Whether the index holds sealed memories of a scope (memoryd.store sets it): the
        # evidence of a marking that needs no keyring.
        self.sealed_rows: Callable[[str], bool] = lambda _h: False
        self.sending = False  # inside outbound(): no grant is live

    @contextlib.contextmanager
    def outbound(self) -> Iterator[None]:
        """What is built here to leave the machine (the digest mailed or shown by the
        desktop's notification daemon, which keeps a history) is built as if no grant were
        live: a grant lets the person read at this machine, it sends nothing elsewhere."""
        saved, self.sending = self.sending, True
        try:
            yield
        finally:
            self.sending = saved

    @functools.cached_property
    def _me(self) -> bytes:
        return keyring_id(self.layout.home).encode()

    def owner(self, scope_hash: str) -> bytes | None:
        """The keyring id of the data dir the scope belongs to; None when none is recorded
        (a scope marked before owners were). KeyUnavailable when the keyring cannot say."""
        return state.keyring_get(state.owner_entry(scope_hash))

    def owned_here(self, scope_hash: str) -> bool:
        """Whether this data dir may use the scope's key: it owns the scope, or nobody does
        yet (marked before owners were recorded; claim_unowned() settles that). A keyring
        that cannot say means no: a failed read must never pass for "no owner"."""
        try:
            return self._owned_here(scope_hash)
        except KeyUnavailable:
            return False

    def _owned_here(self, scope_hash: str) -> bool:
        """owned_here(), letting the keyring's own error through."""
        if scope_hash in self._owned:
            return True
        found = self.owner(scope_hash)
        if found is None:
            return True
        if not hmac.compare_digest(found, self._me):
            return False
        self._owned.add(scope_hash)
        return True

    def claim(self, scope_hash: str) -> None:
        """Record this data dir as the scope's owner (marking, importing its key, a grant
        the person confirmed with a passphrase)."""
        with contextlib.suppress(KeyUnavailable):
            state.keyring_set(state.owner_entry(scope_hash), self._me)
            s = state.load(self.layout, scope_hash)
            if s is not None and s.key_source == "random":
                state.keyring_set(state.guarded_entry(self._me.decode()), b"1")
        self._owned.add(scope_hash)

    def claim_unowned(self, scope_hash: str) -> bool:
        """Claim a scope nobody owns yet (one marked before owners were recorded): the
        capture worker does so at its next drain and a confirmed grant at once, so that
        after an upgrade the person's own data dir, which uses the scope all along, is
        its owner. Never over an owner, nor when the keyring cannot say."""
        try:
            if self.owner(scope_hash) is not None:
                return False
        except KeyUnavailable:
            return False
        self.claim(scope_hash)
        return True

    def check_owned(self, scope_hash: str) -> None:
        """NotOwned unless this data dir may use the scope's key (owned_here); a keyring
        that cannot answer raises its own one-line error (KeyUnavailable)."""
        if not self._owned_here(scope_hash):
            raise self.not_owned(scope_hash)

    def not_owned(self, scope_hash: str) -> NotOwned:
        first = moved_from(self.layout.home)
        with contextlib.suppress(KeyUnavailable):
            if first is not None and self.owner(scope_hash) == keyring_id(Path(first)).encode():
                how = "is a copy of it" if Path(first).exists() else "was moved from there"
                return NotOwned(
                    f"sensitive scope {scope_hash} belongs to the memoryd data dir at {first}, and this "
                    f"one {how} (the OS keyring names its entries by that place): use the data dir "
                    "there, or `memoryd key import` a recovery file of the scope here"
                )
        return NotOwned(
            f"sensitive scope {scope_hash} belongs to another memoryd data dir on this machine: "
            "use it there, or move it here with `memoryd key export` there and `memoryd key import` here"
        )

    def settings(self, scope_hash: str) -> state.Settings | None:
        """A scope's settings, read once. "Not sensitive" is looked at again each time (one
        stat): another process may have marked the scope since, and a long-lived process
        (the MCP server, the tray) that kept the old answer would let every reader past the
        gate ungranted and unaudited. An unmark elsewhere is seen after `refresh`: until
        then the scope stays gated, which fails closed."""
        got = self._settings.get(scope_hash)
        if got is None and (scope_hash not in self._settings or state.is_sensitive(self.layout, scope_hash)):
            got = state.load(self.layout, scope_hash)
            anchor = self.trusted_check(scope_hash) if got is not None else None
            if got is not None and anchor is not None and anchor != got.key_check:
                # edited outside memoryd: the keyring's check stands, so no key the file
                # now names (an agent's passphrase) opens, signs or seals anything
                got = replace(got, key_check=anchor)
                self.tampered.add(scope_hash)
            self._settings[scope_hash] = got
            if got is not None:
                self._lost.pop(scope_hash, None)  # asked again if its settings go away
        return got

    def trusted_check(self, scope_hash: str) -> str | None:
        """The key check the OS keyring vouches for: the anchor, else (a scope marked
        before anchors) that of the random key the keyring holds for it. A review
        (2026-11-28) found a scope with no anchor yet could still be rewritten as a
        passphrase scope of the agent's, whose grant then anchored the forged file."""
        found = self.anchor(scope_hash)
        if found is None:
            key = state.keyring_get_quiet(state.key_entry(scope_hash))
            found = crypto.key_check(key) if key else None
        return found

    def anchor_unanchored(self, scope_hash: str) -> None:
        """Give a scope marked before anchors its anchor: from the random key in the
        keyring, or, for a passphrase scope (whose key is nowhere else), from its settings
        file as the capture worker finds it (the window docs/security.md names)."""
        if self.anchor(scope_hash) is not None:
            return
        s = state.load(self.layout, scope_hash)
        if s is None:
            return
        check = self.trusted_check(scope_hash) or (s.key_check if s.key_source == "passphrase" else None)
        if check is not None:
            self.set_anchor(scope_hash, check)

    def anchor(self, scope_hash: str) -> str | None:
        """The key check memoryd last set for the scope in the OS keyring (state.check_entry);
        None where there is none (marked before anchors, or no keyring)."""
        raw = state.keyring_get_quiet(state.check_entry(scope_hash))
        return raw.decode("ascii", "replace") if raw else None

    def set_anchor(self, scope_hash: str, key_check: str) -> None:
        with contextlib.suppress(KeyUnavailable):
            state.keyring_set(state.check_entry(scope_hash), key_check.encode("ascii"))
        self._settings.pop(scope_hash, None)

    def sensitive(self, scope_hash: str) -> bool:
        return self.settings(scope_hash) is not None

    def settings_lost(self, scope_hash: str) -> bool:
        """Marked sensitive by this data dir and never unmarked, yet its settings file is
        gone: the OS keyring still holds the scope's key check (unmark removes it) under
        this data dir's ownership, and no unmarking that its key proves is recorded. A
        review (2026-11-28) deleted sensitive.json and the project's marker, and the
        project's next sessions were written in the clear for any agent to read; now
        nothing of such a scope is written in the clear (refuse_clear). One keyring read
        per scope and process for scopes that were never marked."""
        if self.sensitive(scope_hash):
            return False
        if scope_hash not in self._lost:
            self._lost[scope_hash] = self._marked_here(scope_hash) and not self._unmarked_by_proof(scope_hash)
        return self._lost[scope_hash]

    def _marked_here(self, scope_hash: str) -> bool:
        """The keyring's anchor, owned here; else (a keyring that cannot answer, which the
        agent can arrange with PYTHON_KEYRING_BACKEND: a review, 2026-11-28; a scope marked
        before anchors; a data dir moved) the index's sealed rows of the scope."""
        try:
            if state.keyring_get(state.check_entry(scope_hash)) is not None:
                return self.owner(scope_hash) == self._me or self.sealed_rows(scope_hash)
        except KeyUnavailable:
            pass
        return self.sealed_rows(scope_hash)

    def _unmarked_by_proof(self, scope_hash: str) -> bool:
        """An unmarking taken from another device before its check entry left with it."""
        done = state.load_unmarked(self.layout, scope_hash)
        if done is None:
            return False
        key = state.keyring_get_quiet(state.key_entry(scope_hash))
        return state.proof_verdict(key, scope_hash, done[0], done[1]) == "holds"

    def refuse_clear(self, scope_hash: str) -> None:
        """KeyUnavailable (a capture waits in the spool; `record` says so in one line) where
        writing the scope in the clear would undo a marking (settings_lost)."""
        if self.settings_lost(scope_hash):
            raise KeyUnavailable(
                f"scope {scope_hash} was marked sensitive in this data dir and never unmarked, but "
                f"its settings file (scopes/{scope_hash}/sensitive.json) is missing: nothing of it is "
                "written in the clear; restore the file from a backup, or `memoryd key import` the "
                "scope's recovery file"
            )

    def refresh(self) -> None:
        """Read every scope's settings again when next asked (keys stay cached, each is
        still checked against its scope's key check): another process may have marked or
        unmarked a scope since."""
        self._settings.clear()
        self._lost.clear()  # a scope marked since, its settings deleted since (a review, 2026-11-28)
        for h in [h for h in self._keys if not state.settings_path(self.layout, h).exists()]:
            self._keys.pop(h, None)

    def forget(self, scope_hash: str) -> None:
        self._keys.pop(scope_hash, None)
        self._settings.pop(scope_hash, None)
        self._owned.discard(scope_hash)
        self._lost.pop(scope_hash, None)

    def remember(self, scope_hash: str, key: bytes) -> None:
        """A key this process derived or created (checked when settings exist)."""
        s = self.settings(scope_hash)
        if s is not None and crypto.key_check(key) != s.key_check:
            raise KeyUnavailable(f"that key does not open scope {scope_hash} (wrong passphrase?)")
        self._keys[scope_hash] = key

    def use(self, scope_hash: str, key: bytes) -> None:
        """Key rotation: seal with a key the settings do not vouch for yet."""
        self._keys[scope_hash] = key

    def grant_key(self, scope_hash: str) -> bytes | None:
        """The MAC key of the scope's grant records, derived from the scope key where this
        process can have it without a grant: this process's own key, the OS keyring (a
        random key, or a passphrase scope's key cached by a live grant), or the passphrase
        asked on a terminal. None when none of these is here: then no grant can be told
        genuine, so none counts."""
        s = self.settings(scope_hash)
        if s is None:
            return None
        key = self.at_hand(scope_hash)
        if (
            key is None
            and s.key_source == "passphrase"
            and _ask is not None
            and s.kdf is not None
            and grants.has_records(self.layout, scope_hash)
        ):
            key = crypto.derive(_ask(s), s.kdf)
            if crypto.key_check(key) != s.key_check:
                raise KeyUnavailable("wrong passphrase for this scope")
            self._keys[scope_hash] = key
        if key is None or crypto.key_check(key) != s.key_check:
            return None
        return grants.record_key(key, scope_hash, self.epoch(scope_hash))

    def at_hand(self, scope_hash: str) -> bytes | None:
        """The scope's key where this process has it without asking anyone: its own, or
        the OS keyring's (a random key, or a passphrase scope's cached by a live grant).
        Checked against the scope's key check; None otherwise."""
        s = self.settings(scope_hash)
        if s is None:
            return None
        key = self._keys.get(scope_hash)
        if key is None or crypto.key_check(key) != s.key_check:
            if not self.owned_here(scope_hash):
                return None
            entry = state.key_entry(scope_hash) if s.key_source == "random" else state.grant_entry(scope_hash)
            key = state.keyring_get_quiet(entry)
        if key is None or crypto.key_check(key) != s.key_check:
            return None
        return key

    def root(self, scope_hash: str) -> str | None:
        """The scope's folder where this process can open it without asking anyone (a
        settings file from before the folder was sealed needs no key); None otherwise, or
        when the sealed value does not open (edited by hand)."""
        s = self.settings(scope_hash)
        if s is None:
            return None
        if not s.sealed_root:
            return s.root if s.root and _names(s.root, scope_hash) else None
        key = self.at_hand(scope_hash)
        if key is None:
            return None
        try:
            root = s.open_root(key)
        except (MemorydError, ValueError, KeyError, TypeError):
            return None
        return root if root and _names(root, scope_hash) else None

    def label(self, scope_hash: str) -> str:
        """The folder, or "sensitive project <hash>" where it cannot be opened here."""
        return state.label(scope_hash, self.root(scope_hash))

    def epoch(self, scope_hash: str) -> bytes:
        """The scope's revocation epoch (memoryd.sensitive.state.epoch_entry); empty before
        the first revoke, or with no keyring (where a grant does not outlive its process)."""
        return state.keyring_get_quiet(state.epoch_entry(scope_hash)) or b""

    def new_epoch(self, scope_hash: str) -> None:
        with contextlib.suppress(KeyUnavailable):
            state.keyring_set(state.epoch_entry(scope_hash), secrets.token_bytes(16))

    def get(self, scope_hash: str) -> bytes:
        if scope_hash in self._keys:
            return self._keys[scope_hash]
        s = self.settings(scope_hash)
        if s is None:
            raise KeyUnavailable(
                f"scope {scope_hash} is marked sensitive but has no key on this machine: "
                "run `memoryd mark-sensitive` on its directory, or `memoryd key import FILE`"
            )
        self.check_owned(scope_hash)
        if s.key_source == "random":
            key = state.keyring_get(state.key_entry(scope_hash))
            if key is None:
                raise KeyUnavailable(
                    f"the key of sensitive scope {scope_hash} is not in the OS keyring: restore it with "
                    "`memoryd key import FILE` from the recovery file `memoryd key export` wrote"
                )
        else:
            key = None
            if not grants.live(self, scope_hash):
                # The grant ended: its cached key leaves the keyring at the first look.
                with contextlib.suppress(KeyUnavailable):
                    state.keyring_delete(state.grant_entry(scope_hash))
            else:
                key = self._keys.get(scope_hash) or state.keyring_get_quiet(state.grant_entry(scope_hash))
                if key is None and _ask is not None and s.kdf is not None:
                    key = crypto.derive(_ask(s), s.kdf)
                    if crypto.key_check(key) != s.key_check:
                        raise KeyUnavailable("wrong passphrase for this scope")
            if key is None:
                raise KeyUnavailable(
                    f"scope {scope_hash} is protected by a passphrase: "
                    f"`memoryd grant {s.root or scope_hash}` asks for it"
                )
        if crypto.key_check(key) != s.key_check:
            raise KeyUnavailable(f"the key found for scope {scope_hash} does not match it (key check failed)")
        self._keys[scope_hash] = key
        return key
