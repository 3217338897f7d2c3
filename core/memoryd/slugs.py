"""Slugs are file names: anything that could leave the scope folder is refused."""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata
from datetime import datetime

from memoryd.errors import InvalidSlug

MAX_SLUG = 120
_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_WORD = re.compile(r"[a-z0-9]+")
# Han characters (CJK unified ideographs, extension A, compatibility, extensions B+).
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")


def validate(slug: str) -> str:
    """Return the slug unchanged, or raise InvalidSlug saying why it is unsafe."""
    if not isinstance(slug, str) or not slug:
        raise InvalidSlug("slug is empty")
    if "\x00" in slug:
        raise InvalidSlug("slug contains a NUL byte")
    if len(slug) > MAX_SLUG:
        raise InvalidSlug(f"slug is longer than {MAX_SLUG} characters")
    if "/" in slug or "\\" in slug:
        raise InvalidSlug(f"slug contains a path separator: {slug!r}")
    if ".." in slug:
        raise InvalidSlug(f"slug contains '..': {slug!r}")
    if not _SAFE.match(slug):
        raise InvalidSlug(
            f"slug {slug!r} may only hold letters, digits, '.', '_' and '-', "
            "and must start with a letter or digit"
        )
    if slug.lower().endswith((".md", ".enc", ".jsonl", ".part")):
        raise InvalidSlug(f"slug must not end in a file extension: {slug!r}")
    return slug


def _ascii_words(text: str, limit: int) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    out: list[str] = []
    for word in _WORD.findall(folded):
        if len("-".join([*out, word])) > limit:
            break
        out.append(word)
    return "-".join(out)


def title_words(title: str, limit: int = 60) -> str:
    """The words a title gives a name (public for the redaction pass, which must find a
    secret's words in a name made from it: memoryd.redact_doc)."""
    return _title_words(title, limit)


def _title_words(title: str, limit: int) -> str:
    """A title's words for a name. Chinese is written in pinyin without tones, a word per
    syllable (`以后一律用pnpm` -> `yi-hou-yi-lv-yong-pnpm`): the name stays ASCII, so every
    reader of slugs keeps working unchanged (an older device's sync check, shells, URLs,
    case-insensitive and normalising file systems). pypinyin reads a polyphone by its
    phrase (银行 -> yin-hang) and loads only for a title that holds Han characters. Other
    letters accents cannot be folded off (Cyrillic, Greek, kana, hangul, Arabic...) are
    transliterated by anyascii (`Миграции` -> `migratsii`, `저장소` -> `jeojangso`), loaded
    only for such a title; a title of those alone used to give a name with no words."""
    title = title[: 4 * limit]  # more than the name can hold: a megabyte title is not transliterated whole
    if _HAN.search(title):
        from pypinyin import Style, lazy_pinyin

        title = " ".join(lazy_pinyin(unicodedata.normalize("NFC", title), style=Style.NORMAL))
    if not title.isascii() and any(_unfoldable(ch) for ch in title):
        from anyascii import anyascii

        title = "".join(anyascii(ch) if _unfoldable(ch) else ch for ch in title)
    return _ascii_words(title, limit)


def _unfoldable(ch: str) -> bool:
    """A letter with no ASCII letter under its accents (é folds to e; ж, あ, 가 do not)."""
    return (
        ch.isalpha() and not ch.isascii() and not unicodedata.normalize("NFKD", ch).encode("ascii", "ignore")
    )


def for_title(title: str, when: datetime) -> str:
    """`2026-05-18-use-postgres-for-jobs-7f3a`: readable, dated, unique enough."""
    words = _title_words(title, 60)
    parts = [when.strftime("%Y-%m-%d")]
    if words:
        parts.append(words)
    parts.append(secrets.token_hex(2))
    return validate("-".join(parts))


def for_sensitive(when: datetime) -> str:
    """Sensitive scopes: no words of the title in the name (names reach the index and
    the audit log)."""
    return validate(f"{when.strftime('%Y-%m-%d')}-{secrets.token_hex(6)}")


def for_promotion(promotion_id: int, title: str, session: str) -> str:
    """`promoted-12-use-postgres-for-jobs-3f9a1c` (seed 000's name, plus a hash of the
    session it came from): the same promotion always gives the same name, so a promote
    interrupted and run again rewrites one file, not two; and promotion 12 of two devices
    (each numbers its own) gives two names, which sync keeps as two memories."""
    words = _title_words(title, 60)
    tag = hashlib.sha256(session.encode("utf-8")).hexdigest()[:6]
    return validate(f"promoted-{int(promotion_id)}" + (f"-{words}" if words else "") + f"-{tag}")


def for_session(source: str, session_id: str, when: datetime) -> str:
    """Sessions: date, a readable id prefix and a hash of source+id, so ids with odd
    characters still give a safe, stable name."""
    digest = hashlib.sha256(f"{source}\x00{session_id}".encode()).hexdigest()[:8]
    prefix = _ascii_words(session_id, 8).replace("-", "")[:8]
    parts = [when.strftime("%Y-%m-%d"), *([prefix] if prefix else []), digest]
    return validate("-".join(parts))
