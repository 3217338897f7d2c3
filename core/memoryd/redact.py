"""Secrets never enter memory: known key and token shapes, credentials in URLs and command
lines, secret-named assignments (`DB_PASS=...`, `"password": "..."`, `PGPASSWORD=... psql`),
private key blocks, and anything the user wraps in <private>...</private> become typed
placeholders (`[REDACTED:kind]`) before a byte is written.

Idempotent: a placeholder is left alone, so redacting redacted text changes nothing (sync
versions do not flip-flop, and the store's pass after the capture worker's finds nothing).
Counts are kept per kind, never the secrets. Standard library only, because the capture hook
runs it (and the patterns are compiled on first use, not at import)."""

from __future__ import annotations

import json
import re
import string
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any


class _Lazy:
    """A pattern compiled when first used: the hook imports this module on every run and
    most of its payloads need no regex at all."""

    __slots__ = ("_compiled", "flags", "source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source, self.flags = source, flags
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        if self._compiled is None:
            self._compiled = re.compile(self.source, self.flags)
        return getattr(self._compiled, name)


PLACEHOLDER = _Lazy(r"\[REDACTED:[a-z0-9_]+\]")
_ONLY_PLACEHOLDER = _Lazy(r"^\[REDACTED:[a-z0-9_]+\]$")

# A rule: (kind, pattern, group to replace (0: the whole match), check). `check(match,
# value)` says whether this match is a secret (a string: yes, of that kind); None: always.
Check = Callable[["re.Match[str]", str], "bool | str"]
Rule = tuple[str, "re.Pattern[str]", int, Check | None, tuple[tuple[str, ...], bool, bool]]

# -- secret-named assignments -------------------------------------------------------------

_CAMEL = _Lazy(r"(?<=[a-z0-9])(?=[A-Z])|[_\-.\s]+")
# Words that make a name secret wherever they stand in it.
_SECRET_WORDS = frozenset(
    {
        "password",
        "passwd",
        "passphrase",
        "secret",
        "secrets",
        "token",
        "credential",
        "credentials",
        "creds",
        "apikey",
        "privatekey",
        "secretkey",
        "accesskey",
        "authtoken",
        "accesstoken",
        "refreshtoken",
        "clientsecret",
        "pgpassword",
        "sasl",
    }
)
# Words that make a name secret only as its last word (`db_pass`, `MYSQL_PWD`).
_LAST_ONLY = frozenset({"pass", "pwd", "pw", "pin"})
# `key` names a secret after one of these (`api_key`, `SigningKey`), or in an UPPER_CASE
# environment name (`SENDGRID_KEY`); `sort_key`, `primary_key` and `key=...` do not.
_KEY_QUALIFIERS = frozenset(
    {
        "api",
        "access",
        "secret",
        "private",
        "signing",
        "encryption",
        "master",
        "account",
        "client",
        "app",
        "auth",
        "service",
        "subscription",
        "license",
        "webhook",
        "shared",
        "admin",
        "hmac",
        "jwt",
        "session",
        "deploy",
        "ssh",
        "gpg",
        "pgp",
        "x",
    }
)
# A name ending in one of these is about a secret, not one (`token_type`, `PASSWORD_FILE`).
_NOT_SECRET_LAST = frozenset(
    """
    path file filename files dir directory name names id ids type types length len size count min
    max ttl expiry expires expiration exp at on env var variable vars header headers field fields
    prefix suffix algorithm alg algo mode format url uri endpoint host hostname port user username
    login email region arn version enabled enable disabled disable required policy rotation limit
    limits timeout method provider domain server scope scopes audience issuer redirect callback
    strategy backend engine class module sock socket label hint help text message msg prompt
    placeholder description desc title error errors rules regex pattern input widget form column col
    table location source store storage manager helper handler validator reset changed updated
    created age days kind flag flags option options opts param params schema spec config conf
    settings template query ref reference index idx bytes bits chars lifetime retries attempts used
    usage count counter mask masked visible visibility strength confirm_label dialog button link
    page screen view route endpoint_url generator factory cache class_name encoding charset lookup
    store_path estimator budget window rate uses seconds secs minutes mins hours ms millis duration
    interval delay
    """.split()  # noqa: SIM905
)
_NULLISH = frozenset(
    {"none", "null", "nil", "true", "false", "yes", "no", "on", "off", "undefined", "empty", "required"}
)
_CODE_WORDS = frozenset(
    {
        "await",
        "new",
        "function",
        "lambda",
        "async",
        "this",
        "self",
        "not",
        "yield",
        "typeof",
        "getpass",
        "input",
        "prompt",
        "env",
        "os",
        "process",
        "config",
        "settings",
        "args",
        "params",
        "request",
        "req",
        "options",
        "opts",
        "str",
        "string",
        "int",
        "bool",
        "optional",
        "secretstr",
    }
)
_REFERENCE = _Lazy(
    r"""^(?:\$(?:[{(\d]|[A-Z_][A-Z0-9_]*(?![a-z0-9])|[a-z_][a-z_]*(?![A-Za-z0-9]))|%[A-Za-z_(]|\{\{"""
    r"""|\{[A-Za-z_][A-Za-z_.]*\}$|(?:[^{}]*\{[A-Za-z_][\w.]*(?:![rsa])?\}){2}|<[^>]*>$|\*{3,}|x{6,}$|X{6,}$|\.{3}|…|!vault|\||>-?$|&|ENC\[)"""
)
_IDENT = _Lazy(r"^[A-Za-z_][A-Za-z0-9_]*$")
# After a `key: value`, more words on the line: a sentence (`token: expired, so it retried`).
_PROSE_AFTER = _Lazy(r"[,;.]?[ \t]+(?:[A-Za-z]|\[REDACTED:)")
_IDENT_CHAIN = _Lazy(r"^[A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_][A-Za-z_]*)+$")
_LINE_START = _Lazy(
    r"""(?:^|\n|\\n)[ \t]*(?:\d+(?:→|\t|:[ \t]?|\|)[ \t]*)?(?:[-*+][ \t]+)?"""
    r"""(?:(?:export|set|setx|ENV|declare(?:[ \t]+-\w+)*|readonly|local|typeset)[ \t]+|\$env:)?"""
    r"""(?:\\?["'])?$"""
)


def _name_is_secret(name: str) -> bool:
    bare = name.strip("\"'`\\]").strip("\"'").lstrip("$")
    if bare.startswith("env:"):
        bare = bare[4:]
    upper = bare.isupper() or (bare.upper() == bare and any(c.isalpha() for c in bare))
    parts = [p.lower() for p in _CAMEL.split(bare) if p]
    if not parts:
        return False
    parts[-1] = parts[-1].rstrip("0123456789") or parts[-1]
    if parts[-1] in _NOT_SECRET_LAST:
        return False
    if len(parts) == 1 and parts[0] in ("pwd", "oldpwd"):  # the shell's working directory
        return False
    for i, part in enumerate(parts):
        if part in _SECRET_WORDS or part.endswith(("password", "passwd", "token", "secret", "apikey")):
            return True
        if part in _LAST_ONLY and i == len(parts) - 1:
            return True
        if part == "key" and ((i and parts[i - 1] in _KEY_QUALIFIERS) or (upper and len(parts) > 1)):
            return True
        if part == "auth" and i == len(parts) - 1 and i and parts[i - 1] in ("basic", "http", "proxy"):
            return True
    return False


def _variable(name: str, value: str) -> bool:
    """A value that is a program's variable holding the secret, not the secret: the same
    name (`password=password`), or an identifier made of words one of which is a secret
    word on its own (`new_password`, `apiKey`, `db_pass`). `supersecret`, `mytoken` or
    `trigsecret88` are one word with a secret word inside: a secret someone chose."""
    value = value.rstrip(")]}")  # the end of a call: `login(password=new_password)`
    if not _IDENT.match(value) or any(c.isdigit() for c in value):
        return False
    if value.lower() == name.strip("\"'\\").lstrip("$").lower():
        return True
    parts = [p.lower() for p in _CAMEL.split(value) if p]
    if len(parts) < 2:
        return False
    for i, part in enumerate(parts):
        if part in _SECRET_WORDS or part == "apikey" or (part in _LAST_ONLY and i == len(parts) - 1):
            return True
        if part == "key" and i and parts[i - 1] in _KEY_QUALIFIERS:
            return True
    return False


def _looks_random(value: str) -> bool:
    """A word a person might write (`expired`, `rotate`) is not; `hunter2`, `Tr0ub4dor&3`
    and anything long and mixed are."""
    if len(value) < 6:
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    symbols = any(not c.isalnum() for c in value)
    mixed = any(c.isupper() for c in value[1:]) and any(c.islower() for c in value)
    return (letters and (digits or symbols)) or (mixed and len(value) >= 12) or (digits and len(value) >= 12)


_STRING_PREFIX = _Lazy(r"[fFbBrRuU]{1,2}(?=[\"'])")
_CODE_AFTER = _Lazy(r"[ \t]*(?:=(?!=)|[+*%][ \t]|if\b)")


def _code_like(match: re.Match[str], value: str) -> bool:
    """`token = get_token()`, `password = request.form["pw"]`, `key = settings.API_KEY`."""
    after = match.string[match.end() : match.end() + 1]
    plain = _IDENT.match(value) is not None and not _looks_random(value)
    if plain and _CODE_AFTER.match(match.string, match.end()):
        return True  # an annotation or an expression: `token: Any = None`, `Token = Ignore + Name`
    name = match.group("name").strip("\"'`\\")
    last = [p.lower() for p in _CAMEL.split(name.rsplit(".", 1)[-1]) if p][-1:]
    word = value.rstrip(")]}")
    spaced = match.group("op") != match.group("op").strip()
    code = name.startswith(("self.", "this.", "cls.")) or ("." in name and spaced)
    if (
        last
        and _IDENT.match(word)
        and word.lower().strip("_") == last[0]
        and (code or after in (",", ")", "}") or word != value)
    ):
        # `self._token = token`, `client_token=token,`, `"NextToken": token}`; a properties
        # file's `db.password=password` is a password
        return True
    if after in ("(", "[") or (value.endswith(("(", ")", "[", "]", "()", ",")) and "(" in value):
        return True
    head = value.split(".")[0].split("(")[0].split("[")[0].lower()
    if head in _CODE_WORDS:
        return True
    if "(" in value or "[" in value:
        return True
    return bool(_IDENT_CHAIN.match(value))


def _secret_value(
    name: str,
    value: str,
    *,
    quoted: bool,
    op: str = "=",
    line_start: bool = False,
    prose: bool = False,
    tight: bool = False,
    code: Callable[[str], bool] | None = None,
) -> bool:
    """Whether `value`, assigned to a secret-named `name`, is a secret itself (not a
    reference, a null, a code expression or, in prose, an ordinary word)."""
    if not value or _ONLY_PLACEHOLDER.match(value) or _REFERENCE.match(value):
        return False
    if value.lower() in _NULLISH:
        return False
    if quoted:
        if any(c.isspace() for c in value):  # prose in a quoted string: only under a plain secret name
            last = [p.lower() for p in _CAMEL.split(name.strip("\"'\\")) if p][-1:]
            return bool(last) and (last[0] in _SECRET_WORDS or last[0] in _LAST_ONLY or last[0] == "key")
        return len(value) >= 3
    if value.isdigit() and len(value) < 4:
        return False
    if value.endswith(":"):  # the next key (`credential: DB_PASS: x`), not a value
        return False
    if code is not None and code(value):
        return False
    if _variable(name, value):  # `self.api_key = api_key`, `login(password=new_password)`
        return False
    bare_name = name.strip("\"'\\")
    if op in ("=", ":=") and bare_name.isupper():  # an environment name: `DB_PASS=hunter2 psql`
        return True
    if op == "=" and tight:  # `password=hunter the shell`, a query string, a flag: never prose
        return True
    if line_start and not (op == ":" and prose):
        return True  # a line of its own: .env, YAML, ini, properties
    return _looks_random(value)


def _assignment(match: re.Match[str], value: str) -> bool | str:
    name = match.group("name")
    if not _name_is_secret(name):
        return False
    prefix = _STRING_PREFIX.match(value)
    if prefix:  # Python's f"...", b'...', r"...": the literal is what is judged
        value = value[prefix.end() :]
        if "f" in prefix.group(0).lower() and "{" in value:
            return False  # an f-string: code, `f"{registry}-auth-token"`
    quoted = value[:1] in ("'", '"', "\\") and len(value) >= 2
    inner = value.strip("\\").strip("\"'").strip("\\") if quoted else value
    if value[:1] == "`" and len(value) >= 2:  # Markdown code (`Password: \`...\``), read as bare
        inner = value[1:-1]
        if "${" in inner:
            return False  # a template literal: `Bearer ${token}`
    before = match.string[max(0, match.start() - 200) : match.start()]
    bare = name.strip("\"'`\\")
    secret = _secret_value(
        name,
        inner,
        quoted=quoted,
        op=match.group("op").strip(),
        tight=match.group("op") == match.group("op").strip(),
        line_start=bool(_LINE_START.search(before)),
        prose=bool(_PROSE_AFTER.match(match.string, match.end())),
        code=lambda v: _code_like(match, v),
    )
    return ("env_secret" if bare.isupper() else True) if secret else False


# -- command lines ------------------------------------------------------------------------


_PORTS = _Lazy(r"\d+(?::\d+)*\Z")


def _named(group: int, *, quoted: bool = False) -> Check:
    """A value given apart from its name (in `group`): secret where the name says so and the
    value is one by the rules of `NAME=value` (not `45`, `true`, a reference or code).
    `quoted`: the pattern took the quotes off (an XML attribute)."""

    def check(match: re.Match[str], value: str) -> bool:
        name = match.group(group)
        inner = value.strip("\"'")
        return (
            _name_is_secret(name)
            and _not_reference(match, value)
            and _secret_value(name, inner, quoted=quoted or inner != value)
        )

    return check


_named_secret = _named(2)
_NAME_BEFORE = _Lazy(r"([A-Za-z_][A-Za-z0-9_]*)\Z")


def _annotated(match: re.Match[str], value: str) -> bool:
    """`password: str = "..."`: the name before the colon says whether the literal is a secret."""
    found = _NAME_BEFORE.search(match.string, max(0, match.start() - 100), match.start())
    if found is None or not _name_is_secret(found.group(1)):
        return False
    inner = value.strip("\"'")
    return _not_reference(match, value) and _secret_value(found.group(1), inner, quoted=True)


def _user_colon_password(value: str) -> bool:
    """Base64 that decodes to printable `user:password`."""
    import base64
    import binascii

    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    user, sep, password = raw.partition(":")
    return bool(sep and user and password) and raw.isprintable()


def _not_reference(match: re.Match[str], value: str) -> bool:
    inner = value.strip("\"'")
    return bool(inner) and not _ONLY_PLACEHOLDER.match(inner) and not _REFERENCE.match(inner)


_VALUE = r"""(?:"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s"'`]+)"""
_OPT_NAMES = (
    r"password|passwd|pass|token|secret|api[-_]?key|access[-_]?token|auth[-_]?token|client[-_]?secret|"
    r"private[-_]?key|secret[-_]?key|access[-_]?key|(?:db|admin|root|master|sasl|proxy|http|ftp|smtp)"
    r"[-_]?password|oauth[-_]?token|bearer[-_]?token|api[-_]?token|refresh[-_]?token|passphrase"
)


# A line break a terminal or an editor put inside a token, with the indentation (and the line
# number of a tool's Read output or `cat -n`) after it, or the spaces it became when the lines
# were joined.
_WRAP = r"[ \t]*(?:(?:\\?\r?\n|\\n)[ \t]*(?:\d+(?:→|\t)[ \t]*)?)?"


def _splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    """`text` with each (start, end) span replaced, the spans in order and apart."""
    if not edits:
        return text
    out: list[str] = []
    done = 0
    for start, end, new in edits:
        out += (text[done:start], new)
        done = end
    out.append(text[done:])
    return "".join(out)


def _mixed(tail: str) -> bool:
    """Upper case, lower case and digits: a generated token's tail, not a word or a name."""
    return (
        any(c.isupper() for c in tail) and any(c.islower() for c in tail) and any(c.isdigit() for c in tail)
    )


# -- commands whose arguments are secrets by what the command does ------------------------
# Flags before a subcommand (`kubectl -n prod create secret`, `fly -a app secrets set`).
_CMD_OPTS = r"(?:[ \t]+-{1,2}[A-Za-z][\w-]*(?:=\S*|[ \t]+(?![-\\])[^\s=]\S*)?)*?"
_CMD_SP = r"(?:[ \t]|\\\r?\n)+"  # a shell's line continuation is a space
_SECRETS_CMD = _Lazy(
    r"\b(?:"
    rf"(?P<gh>gh{_CMD_OPTS}{_CMD_SP}secret{_CMD_SP}set)"
    rf"|(?P<az>az{_CMD_SP}keyvault{_CMD_SP}secret{_CMD_SP}set)"
    rf"|(?P<ssm>aws\b[^\n|;&]{{0,200}}?{_CMD_SP}ssm{_CMD_SP}put-parameter)"
    rf"|(?P<sm>aws\b[^\n|;&]{{0,200}}?{_CMD_SP}secretsmanager{_CMD_SP}"
    r"(?:create-secret|put-secret-value|update-secret))"
    rf"|(?P<pairs>(?:fly|flyctl){_CMD_OPTS}{_CMD_SP}secrets{_CMD_SP}(?:set|import)"
    rf"|(?:supabase|doppler){_CMD_SP}secrets{_CMD_SP}set|vault{_CMD_SP}kv{_CMD_SP}(?:put|patch))"
    rf"|(?P<kube>(?:kubectl|oc|k){_CMD_OPTS}{_CMD_SP}create{_CMD_OPTS}{_CMD_SP}secret)"
    rf"|(?P<stdin>wrangler{_CMD_SP}secret{_CMD_SP}put|vercel{_CMD_SP}env{_CMD_SP}add"
    rf"|gcloud{_CMD_SP}secrets{_CMD_SP}(?:create|versions{_CMD_SP}add)|docker{_CMD_SP}secret{_CMD_SP}create)"
    r")(?![\w-])"
)
# A command's arguments: to the end of its line (or of its continued lines), a `;`, `|` or
# `&`, or a backtick that closes inline code in prose (`Run \`fly secrets set A=B\` and ...`);
# a value in backticks after `=` or a space is an argument.
_CMD_ARGS = _Lazy(r"(?:[^\n|;&`\\]|(?<=[=\s])`[^`\n]*`(?=\s|\Z)|\\\r?\n|\\(?!\r?\n))*+")
_CMD_KINDS = ("gh", "az", "ssm", "sm", "pairs", "kube", "stdin")
_CMD_VALUE = r"""(?:"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|`[^`\n]*`|[^\s"'`;|&]+)"""
_CMD_FLAG = {
    "gh": _Lazy(rf"(?:^|[ \t]|\\\n)(?:--body(?:=|[ \t]+)|-b(?:=|[ \t]+)?)(?!-)({_CMD_VALUE})"),
    "az": _Lazy(rf"(?:^|[ \t]|\\\n)--value(?:=|[ \t]+)(?!-)({_CMD_VALUE})"),
    "ssm": _Lazy(rf"(?:^|[ \t]|\\\n)--value(?:=|[ \t]+)(?!-)({_CMD_VALUE})"),
    "sm": _Lazy(rf"(?:^|[ \t]|\\\n)--secret-string(?:=|[ \t]+)(?!-)({_CMD_VALUE})"),
    "pairs": _Lazy(
        rf"""(?:^|[ \t]|\\\n)(?:"[A-Za-z_][\w.\-]*=((?:[^"\\\n]|\\.)*)"|'[A-Za-z_][\w.\-]*=([^'\n]*)'"""
        rf"""|[A-Za-z_][\w.\-]*=({_CMD_VALUE}))"""
    ),
    "kube": _Lazy(
        rf"""--from-literal(?:=|[ \t]+)(?:"[\w.\-]+=((?:[^"\\\n]|\\.)*)"|'[\w.\-]+=([^'\n]*)'"""
        rf"""|[\w.\-]+=({_CMD_VALUE}))"""
    ),
}
_HERE_STRING = _Lazy(rf"<<<[ \t]*({_CMD_VALUE})")
# A heredoc given to a command that reads its secret from standard input (`gh secret set N
# <<EOF`, `wrangler secret put N <<-END`): its lines, up to the delimiter's line (which a Read
# tool's line number may lead), are the secret.
_HEREDOC = _Lazy(r"<<(?!<)-?[ \t]*(['\"]?)([A-Za-z_][\w-]{0,40})\1")
_HEREDOC_READS = ("gh", "stdin")  # and any command given /dev/stdin, or vault's `name=-`
_STDIN_ARG = _Lazy(r"/dev/stdin|=-(?=\s|$)")
_PIPED_IN = _Lazy(r"\|[^|]*\Z")  # the line before the command ends in a pipe into it
_HEREDOC_MAX = 8000
_DURATION = _Lazy(r"\d{1,4}[smhdw]?")


def _command_lines(text: str) -> list[tuple[int, int]]:
    """The lines (with their continuations) that hold a word every secrets command has: the
    command pattern has no literal to search by, so it runs on these alone."""
    spans: list[tuple[int, int]] = []
    for word in ("secret", "kv", "put-parameter", "env"):
        at = text.find(word)
        while at != -1:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            while end != -1 and text[end - 1 : end] == "\\":
                end = text.find("\n", end + 1)
            end = len(text) if end == -1 else end
            spans.append((start, end))
            at = text.find(word, end)
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _args_end(text: str, start: int, end: int, stop: int) -> int:
    """Where a command's arguments from `start` end: `end` (_CMD_ARGS's, at `&`, `;` or `|`),
    or past it when that character is inside a quoted argument (`--body 'Tr0ub4dor&3'`): the
    quote is closed on the same line, and the arguments go on after it. A few quotes only,
    each looked for within the line, so a hostile line costs a few passes."""
    for _ in range(8):
        if end >= stop or text[end] not in "&;|":
            break
        part = text[start:end]
        quote = next((q for q in "'\"" if part.count(q) % 2), None)
        line_end = text.find("\n", end, stop)
        close = -1 if quote is None else text.find(quote, end, stop if line_end == -1 else line_end)
        if close == -1:
            break
        more = _CMD_ARGS.match(text, close + 1, stop)
        end = more.end() if more else close + 1
    return end


def _command_value(value: str) -> bool:
    """A command's argument that is a secret: not a reference (`$X`, `@file`, `file://`), a
    placeholder (`VALUE`, `<token>`), a boolean or a duration (`vault kv put ... ttl=30m`)."""
    inner = value.strip("\"'`")
    if not inner or _ONLY_PLACEHOLDER.match(inner) or _REFERENCE.match(inner) or inner.startswith("@"):
        return False
    if inner.startswith("file://") or inner.lower() in _NULLISH or _DURATION.fullmatch(inner):
        return False
    return not _placeholder(inner)


# A command's argument: quoted whole (`'Tr0ub4dor&3'`, `"two words"`), or up to a space or
# what ends a command.
_ARG = r"""(?:'[^'\n]*'|"(?:[^"\\\n]|\\.)*"|[^\s'"<>|;&]+)"""


def _htpasswd_value(match: re.Match[str], value: str) -> bool:
    """htpasswd's password in batch mode (`-b`): the third argument, or the second with `-n`
    (no file), and a value."""
    flags = match.group("flags")
    if "b" not in flags:
        return False
    given = len(re.findall(_ARG, match.group("args")))
    return given == (1 if "n" in flags else 2) and _flag_value(match, value)


_JAVA_TOOL = _Lazy(r"\b(?:keytool|jarsigner|apksigner)\b")


def _java_tool_value(match: re.Match[str], value: str) -> bool:
    """A store or key password given to Java's keytool or jarsigner on its line (not the
    flags named in prose: "use -storepass and -keypass"), and a value, not a placeholder."""
    text, reach = match.string, max(0, match.start() - 400)  # as far back as other commands' rules look
    start = text.rfind("\n", reach, match.start())
    while start > reach and text[start - 1] == "\\":  # a continued line: the command began before
        start = text.rfind("\n", reach, start)
    start = max(start + 1, reach)
    return _JAVA_TOOL.search(text, start, match.start()) is not None and _flag_value(match, value)


# Words a sentence puts after a flag or a field it names ("run zip -P to encrypt", "the zip
# -P option", "name: API_KEY value: in the dashboard"), never taken for the password. Not
# `secret` or `password`: `zip -P secret` is a password people use (a review, 2026-11-29).
_FUNCTION_WORDS = frozenset(
    {"a", "an", "and", "as", "at", "but", "by", "for", "if", "in", "is", "it", "of", "on", "or", "so"}
    | {"the", "then", "to", "when", "with"}
)
_PROSE_AFTER_FLAG = _FUNCTION_WORDS | {"option", "flag", "flags", "switch", "argument"}


def _flag_value(match: re.Match[str], value: str) -> bool:
    """A flag's value that is a secret: a value (_command_value), not a sentence's next word."""
    return _command_value(value) and value.lower() not in _PROSE_AFTER_FLAG


# Secrets told in a sentence: "my password is Tr0ub4dor3", "the door code is 4821",
# "密码是 84721203", "Passwort lautet ...", "パスワードは ...". The nouns and verbs are given for
# the languages memoryd reads; a bare `code`, `key`, `token` or `clave` needs a word before it,
# or in what follows it, that says which (_QUALIFIED), and the value must look like a secret
# (_prose_secret), so "the password is required", "exit code is 137", "the token was expired"
# and "the API key is OPENAI_API_KEY" stay. The finder runs on the lowercased text (an
# ignore-case search is eight times slower), as the assignment rule's does.
_SP = "[ \t\u00a0\u3000]"
_MARK = r"(?:\*\*|__|\*|</?[a-z]{1,6}>)?"  # Markdown or HTML emphasis around a label
_PROSE_NOUNS = (
    "mot de passe|parola d'ordine|code d'accès|code pin|pin code|pin number|pin码|password|passwd|"
    "passphrase|passcode|pin|code|key|token|secret|pat|pw|passwort|kennwort|geheimzahl|zugangscode|"
    "türcode|torcode|digicode|contraseña|clave|código|senha|пароль|пин-код|"
    "密码|密碼|口令|验证码|驗證碼|密钥|密鑰|令牌|暗号|暗號|パスワード|暗証番号|비밀번호|비번|암호"
)
_PROSE_VERBS = (
    rf"(?:{_MARK}{_SP}+(?:(?:has{_SP}+been|was|is){_SP}+(?:changed|set|reset|updated){_SP}+to|"
    rf"(?:changed|set|reset|updated){_SP}+to|is{_SP}+now|is{_SP}+still|is|was|became|"
    rf"ist|lautet|war|est|était|es|era|é|è|это){_SP}*[:：]?{_SP}+"
    rf"|{_MARK}{_SP}*[:=：]{_SP}*{_MARK}{_SP}*|{_MARK}{_SP}+(?:—|–|->|→|-|\|){_SP}+"
    rf"|{_SP}*(?:は|는|은){_SP}*|(?P<weak>{_SP}*(?:が|を|를|을){_SP}*)"
    rf"|{_SP}*(?:(?:已经|已|就)?(?:是|为|為|改成了?|改為|改为|设成|设为|设置为|設為|换成了?))"
    rf"{_SP}*[:：]?{_SP}*"
    r"|(?<=[^\x00-\x7f])"  # no verb: after a noun in Chinese, Japanese, Korean or Russian only
    rf"(?P<bare>{_SP}+))"
)
# What the secret is for, between the noun and the verb: "the password for the staging
# database is", "le mot de passe du routeur est", "das Passwort für das WLAN ist".
_PROSE_OF = (
    rf"(?:{_SP}+(?:for|of|to|on|at|du|de|des|del|für|vom|zum|zur|do|da|della|di|для|от)"
    rf"(?:{_SP}+[^\s:=：|]+){{1,5}}?|{_SP}*[(（][^()（）\n]{{1,30}}[)）])?"
)
# What a text must hold for the sentence rule to run: its nouns, the short ones with what
# follows them, so that a hook's payload (`"transcript_path": ...`) compiles nothing.
_PROSE_ON = tuple(
    n
    for n in _PROSE_NOUNS.split("|")
    if n not in ("pin", "code", "key", "token", "pat", "pw", "secret", "clave")
) + tuple(
    f"{n}{c}" for n in ("pin", "code", "key", "token", "pat", "pw", "secret", "clave") for c in " :=|*<"
)
_PROSE_FIND = _Lazy(f"(?:{_PROSE_NOUNS}){_PROSE_OF}{_PROSE_VERBS}")
_PROSE_OPEN = "\"'“‘「『`"
_PROSE_AT = _Lazy(
    rf"(?i)((?P<noun>{_PROSE_NOUNS}){_PROSE_OF}{_PROSE_VERBS}[{_PROSE_OPEN}]?)(?!\[REDACTED:)"
    rf"(?P<value>(?<=[{_PROSE_OPEN}])[^\"'”’」』`\n]{{1,200}}(?=[\"'”’」』`])"
    r"|[!-~\u00a1-\u024f]+?(?=[\"'”’」』`.,:;!?)\]}>|。，；！？、]*(?:\\[nrt]|&quot;|&#39;|\\&)*"
    r"(?:\s|\Z|<|[^!-~\u00a1-\u024f])))"
)
_QUALIFIED = {
    "code": frozenset(
        "door gate alarm garage lock safe entry access security unlock locker building pin recovery "  # noqa: SIM905
        "verification backup 2fa mfa otp confirmation porte portail puerta portal alarma tür".split()
    ),
    "key": frozenset(
        "api secret access private license licence product signing encryption master account "  # noqa: SIM905
        "client service deploy admin webhook hmac jwt session ssh gpg pgp stripe openai anthropic "
        "aws gcp azure twilio sendgrid mailgun github gitlab slack discord telegram".split()
    ),
    "token": frozenset(
        "api access auth bearer refresh bot personal github gitlab slack deploy session service "  # noqa: SIM905
        "webhook discord telegram npm pypi vault".split()
    ),
    "pat": frozenset(("github", "gitlab", "azure", "ado", "devops")),
    "clave": frozenset(("wifi", "acceso", "secreta", "bancaria", "red", "router", "cajero")),
    "código": frozenset(("puerta", "portal", "alarma", "acceso", "seguridad", "pin")),
}
# Words after the noun that say which (`the code for the garage is`, `la clave del wifi es`).
_QUALIFIED_AFTER = {
    "code": frozenset(
        "door gate garage safe alarm locker building entry front back porte portail puerta "  # noqa: SIM905
        "portal alarma tür".split()
    ),
    "clave": frozenset(("wifi", "red", "router", "acceso")),
    "código": frozenset(("puerta", "portal", "alarma", "acceso")),
}
_WORD_BEFORE = _Lazy(r"([^\W\d_]+)[ \t\u00a0]+\Z")
_WORDS = _Lazy(r"[^\W_]+")

# What a sentence says a secret is, or where it lives, rather than what it is: `SHA-256`,
# `AES256`, `UTF-8`, `base64-encoded`, `4-stellig`, `12-character`, `X-API-Key`, `argon2id`,
# `utf8mb4`, a file (`key.pem`, `.env.local`, `config/secrets.yml`, `id_ed25519`).
_TERM = _Lazy(
    r"^[A-Z]{2,6}-\d{1,4}$|^[A-Za-z]+(?:-[A-Za-z]+)+$"
    r"|^(?i:argon2(?:id|i|d)?|bcrypt|scrypt|pbkdf2|sha-?(?:1|224|256|384|512)|sha3(?:-\d+)?|md5"
    r"|base(?:64|32|58)|utf-?8(?:mb4)?|aes-?(?:128|192|256)|[hre]s(?:256|384|512)|ed25519|x25519"
    r"|rsa-?(?:1024|2048|3072|4096)|hmac(?:-sha\d+)?|latin-?1|ascii|secp\d+[rk]\d|chacha20(?:-poly1305)?"
    r"|poly1305|pkcs#?\d+|x509|curve25519|p-?(?:256|384|521)|blake[23][bs]?|hkdf|wpa[23]?(?:-psk)?"
    r"|id_(?:rsa|ed25519|ecdsa|dsa)|v?\d{1,3}(?:\.\d{1,3}){1,3}|\d+(?:bytes?|bits?|chars?))"
    r"(?:[-_]?[a-zà-ÿ]+)?$"
    r"|\.(?i:json|ya?ml|pem|key|env|txt|toml|ini|cfg|conf|p12|pfx|crt|cer|der|jks|keystore|local|gpg|asc"
    r"|py|js|ts|sh|rb|go|rs|java|md)$|^[^@\s]+@[^@\s]+\.[a-z]{2,}$|^[A-Za-z]+'s$"
)


def _term(value: str) -> bool:
    """What a sentence says a secret is rather than what it is (`SHA-256`, `argon2id`,
    `base64-encoded`, `4-stellig`, `12-character`, `X-API-Key`, `key.pem`, `v1.2.3`). A
    compound of two parts is a term when one part is a word of three letters or more and the
    other is short and plain; `blue-monkey-42` or `hunter2-prod` are what people choose."""
    if _TERM.search(value):
        return True
    parts = value.split("-")
    if len(parts) != 2:
        return False
    word = [x for x in parts if x.isalpha() and x.islower() and len(x) >= 3]
    if not word:
        return False
    other = [x for x in parts if x is not word[0]]
    rest = other[0] if other else word[-1]
    return len(rest) <= 6 and not _mixed(rest)


_PLACEHOLDER = _Lazy(
    r"^(?:<.*|\[.*|\{\{.*|\{[A-Za-z_]*\}|.*(?:…|\.\.\.|\*\*\*).*|(?:.*[^A-Za-z])?(?:x{3,}|X{3,})(?:[^A-Za-z].*)?"
    r"|[A-Z]+\d{0,2}(?:_(?:[A-Z]+\d{0,2}|\d{1,2}))+|[A-Z]{2,12})$"
)


def _placeholder(value: str) -> bool:
    """`<YOUR_API_KEY>`, `[hidden]`, `{{token}}`, `sk-proj-…`, `ghp_xxx`, `VALUE`, an
    environment name (`OPENAI_API_KEY`, `GPIO_15`): what stands for a secret in a document."""
    return bool(_PLACEHOLDER.match(value))


def _strong(value: str) -> bool:
    """Made up beyond doubt: letters and digits with both cases or a symbol other than `_-.`
    (`Tr0ub4dor3`, `p@ssw0rd1`), or six digits or more. Where no verb says the value is the
    secret (`WiFi密码 ...`, `パスワードを ...`, a table's next cell), an identifier
    (`captcha_v2`, `WPA2-PSK`) must not pass."""
    if value.isdigit():
        return len(value) >= 6
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    cases = any(c.isupper() for c in value) and any(c.islower() for c in value)
    symbol = any(not c.isalnum() and c not in "_-." for c in value)
    return letters and digits and (cases or symbol)


# A snake_case name (`captcha_v2`, `acct_id2`): parts of letters and at most two digits, so
# `hunter_2024` is a password.
_SNAKE = _Lazy(r"^[a-z]+\d{0,2}(?:_(?:[a-z]+\d{0,2}|\d{1,2}))+$")
_TRAIL = _Lazy(r"(?:\\[nrt]|&quot;|&#39;|&apos;|\\&|[.,:;!?])+$")


def _prose_secret(match: re.Match[str], value: str) -> bool:
    """A value told in a sentence is a secret when it looks made up (_looks_random), or is a
    number of four digits or more after a PIN, a code or a password (`#4821`, `4821#` on a
    keypad); not a name, a file, a term, code or a placeholder."""
    bare = value.strip(_PROSE_OPEN + "”’」』")
    bare = _TRAIL.sub("", bare) or bare  # `required:`, `incorrect.\n`, `incorrect&quot;`
    if not bare or _ONLY_PLACEHOLDER.match(bare) or _REFERENCE.match(bare):
        return False
    noun = match.group("noun").lower()
    said = match.group(1)[len(match.group("noun")) :]
    if not said.strip(" \t\u00a0\u3000") and noun.isascii():
        return False  # "password reset": an English noun needs its verb
    if noun in _QUALIFIED:
        before = _WORD_BEFORE.search(match.string, max(0, match.start() - 40), match.start())
        after = {w.lower() for w in _WORDS.findall(said)} & _QUALIFIED_AFTER.get(noun, frozenset())
        if not after and (before is None or before.group(1).lower() not in _QUALIFIED[noun]):
            return False
    head = match.group(1).rstrip(" \t" + _PROSE_OPEN)
    name = head[:-1].rstrip()
    if (
        head.endswith(("=", ":"))
        and not match.group(1).endswith(("`", ">"))
        and _IDENT.match(name)
        and _name_is_secret(name)
    ):
        return False  # `password=...`, `api_token: ...`: the assignment rule's to judge
    if match.string.startswith(("…", "..."), match.end()):
        return False  # `sk-proj-…`: a key shown cut, for its shape
    if any(c.isspace() for c in bare) and (
        match.group(1).endswith("`") or not _strong("".join(bare.split()))
    ):
        return False  # `openssl rand -base64 32`, "str | None": code or words, not one made-up value
    weak = match.group("weak") is not None or match.group("bare") is not None
    keypad = bare.strip("#*")
    if keypad.isdigit():
        return len(keypad) >= (6 if weak else 4)
    if bare.lower() in _NULLISH or _term(bare) or _placeholder(bare) or "=" in bare.rstrip("="):
        return False
    if (
        "(" in bare
        or "[" in bare
        or ("/" in bare and all(x == x.lower() or "." in x for x in bare.split("/")))
        or bare.startswith(("~", ".", "{"))
        or _IDENT_CHAIN.match(bare)
    ):
        return False  # code (`os.urandom(32)`, `settings.SECRET_KEY`, `{curve.name!r}`) or a path
    if _IDENT.match(bare) and (not any(c.isdigit() for c in bare) or _SNAKE.match(bare)):
        return False  # a name: `localStorage`, `_sentinel`, `MISSING`, `captcha_v2`
    if all(c.isalpha() or c == "_" for c in bare) and (
        _variable(noun.replace(" ", "_"), bare) or _name_is_secret(bare)
    ):
        return False  # `db_creds`, `new_password`: a name that holds the secret (`Password1` is one)
    if weak and ("-" in bare and not _mixed(bare)):
        return False  # `WPA2-PSK`, `a-z0-9` after a noun with no verb
    return _looks_random(bare)


# Up to three other fields of one JSON object, then the quote opening the next key.
# A line number as a Read tool or `cat -n` prints one before each line of a file.
_LINE_NO = r"(?:[ \t]*\d{1,7}(?:→|\t))?"
# JSON's quotes, or Python's in a dict's repr; after a comma, the next line under its number.
_Q = "[\"']"
_JSON_GAP = r"\s*(?:\d{1,7}(?:→|\t)\s*)?"
_JSON_FIELDS = (
    rf"\s*,{_JSON_GAP}(?:{_Q}[^\"'\\\n]{{1,60}}{_Q}[ \t]*:[ \t]*"
    rf"(?:\"(?:[^\"\\\n]|\\.){{0,300}}\"|'[^'\n]{{0,300}}'|[\w.\-]{{1,40}})\s*,{_JSON_GAP}){{0,3}}?{_Q}"
)
_PAIR_NAME = r"([A-Za-z_/][\w.\-/]{0,80})"  # SSM's names are paths: /prod/db/password
_JSON_NAME = rf"(?:name|key|parameterkey){_Q}[ \t]*:[ \t]*{_Q}{_PAIR_NAME}{_Q}"
_JSON_VALUE = rf"(?:value|parametervalue){_Q}[ \t]*:[ \t]*"
_QUOTED_VALUE = r"""("(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""
# Between HCL's or a call's `name = "..."` and `value = "..."`: a comma, or the next line.
_EQ_SEP = rf"[ \t]*[,;]?[ \t]*(?:\r?\n{_LINE_NO}[ \t]*)?"
# A YAML tag (CloudFormation's `!Ref X`, `!Sub`) or Kubernetes' `$(VAR)`: no value of its own.
_YAML_REF = _Lazy(r"![A-Za-z]|\$\(")


def _pair(group: int, *, flow: bool = False) -> Check:
    """`_named(group)` for a name and value given as two fields of one entry. In YAML an
    unquoted value is a string (`value: Sup3r.Secret`), unless it is a tag or a reference. On
    one line (`flow`), a quoted name says code (`{ name: 'DB_PASSWORD', value: props.pw }`,
    Go's `{Name: "API_TOKEN", Value: token}`), where an unquoted value is a variable; an
    unquoted name says YAML's flow style, where it is a string, unless a sentence's word."""
    named = _named(group)
    quoted_name = group - 1  # the quote the pattern took, in the group before the name's

    def check(match: re.Match[str], value: str) -> bool:
        if value[:1] not in "\"'":
            if _YAML_REF.match(value) or (flow and match.group(quoted_name)):
                return False
            if flow and value.lower() in _FUNCTION_WORDS:
                return False
        return named(match, value)

    return check


def _rules() -> list[Rule]:
    def r(
        kind: str,
        pattern: str,
        group: int = 0,
        check: Check | None = None,
        *,
        on: tuple[str, ...] = (),
        ci: bool = False,
        flags: int = 0,
    ) -> Rule:
        """`on`: the rule runs only on text holding one of these (lowercased with `ci`), so
        that most rules cost a substring search, not a regex pass."""
        # A leading \b defeats the regex engine's search for a literal prefix (a pass costs
        # five to ten times more): it goes, and _replace checks the match starts a word.
        lead = re.match(r"(\(\?i\))?(\(?)\\b(?=[A-Za-z0-9(])", pattern)
        word = lead is not None
        if lead is not None:
            pattern = (lead.group(1) or "") + lead.group(2) + pattern[lead.end() :]
            if group == 0:
                pattern = pattern.replace("|\\b", "|")
        return (kind, _Lazy(pattern, flags), group, check, (on, ci, word))  # type: ignore[return-value]

    return [
        # Blocks first: what the user marks private, then key material (an unterminated
        # block is a cut-off key: everything key-shaped after its BEGIN goes).
        # An innermost block (no <private> opens inside it), closed, or running to the end
        # when unclosed; __call__ applies it until none is left, so a nested block goes as a
        # whole. Attributes and spaces in the tags count (`<private reason="pii">`, `</ private >`).
        r(
            "private",
            r"<private\b[^>]*>(?:(?!<private\b).)*?(?:</\s*private\s*>|\Z)",
            on=("<private",),
            ci=True,
            flags=re.S | re.I,
        ),
        r(
            "private_key",
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,.()\-]*)",
            on=("PRIVATE KEY",),
            flags=re.S,
        ),
        r(
            "private_key",
            r"(?m)^Private-Lines:\s*\d+(?:\s|\\[nr])+(?:[A-Za-z0-9+/=]+(?:\s|\\[nr])*)+",
            on=("Private-Lines",),
        ),
        r("private_key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{20,}", on=("AGE-SECRET-KEY-",)),
        # A JWT, also where a terminal or an editor wrapped it at its dots (an outside test,
        # 2026-11-28: `Bearer eyJ...\n  eyJ...\n  sig` kept the payload and the signature). It
        # goes first, so no rule that takes a line's value leaves the rest of it behind.
        r(
            "jwt",
            rf"\beyJ[A-Za-z0-9_-]{{8,}}\.{_WRAP}eyJ[A-Za-z0-9_-]{{8,}}\.{_WRAP}[A-Za-z0-9_-]{{8,}}"
            rf"(?:\.{_WRAP}[A-Za-z0-9_-]{{8,}}){{0,2}}",
            on=("eyJ",),
        ),
        # Credentials in URLs: scheme://user:PASSWORD@host (a password may hold '@').
        r(
            "url_password",
            r"(://[^\s:/@'\"<>\[\]]*:)(?!\[REDACTED:)([^\s/'\"<>]+)(@[^\s@/'\"<>]+)",
            2,
            _not_reference,
            on=("://",),
        ),
        r("azure_sas", r"([?&]sig=)([A-Za-z0-9%/+=]{16,})", 2, on=("sig=",)),
        # A presigned URL's signature and session token (S3, Google Cloud Storage, CloudFront):
        # the URL is a credential until it expires.
        r(
            "url_signature",
            r"(?i)((?:[?&]|&amp;)(?:x-amz-signature|x-goog-signature|signature|x-amz-security-token)(?:=|%3D)"
            r"|\b(?:x-amz-signature|x-goog-signature|x-amz-security-token)[\"']?[ \t]*[:=][ \t]*[\"']?)"
            r"(?!\[REDACTED:)([A-Za-z0-9%/+=~_.\-]{16,})",
            2,
            lambda m, v: any(c.isdigit() for c in v),
            on=("signature", "security-token"),
            ci=True,
        ),
        # Command lines.
        r(
            "cli_password",
            rf"(?i)(--(?:{_OPT_NAMES})(?:=|[ \t]+))(?!-)(?!\[REDACTED:)({_VALUE})",
            2,
            _not_reference,
            on=("--",),
        ),
        r(
            "cli_password",
            r"(\b(?:mysql|mariadb)[\w-]*\b[^\n|;&]{0,400}?[ \t]-p)(?![\s\-])(\S+)",
            2,
            _not_reference,
            on=("mysql", "mariadb"),
        ),
        r(
            "cli_password",
            r"(\bsshpass\b[^\n|;&]{0,400}?[ \t]-p[ \t]*)(?!-)(\S+)",
            2,
            _not_reference,
            on=("sshpass",),
        ),
        r(
            "cli_password",
            r"(\blogin\b[^\n|;&]{0,400}?[ \t]-p(?:=|[ \t]+))(?!-)(\S+)",
            2,
            _not_reference,
            on=("login",),
        ),
        r(
            "cli_password",
            r"(\bredis-cli\b[^\n|;&]{0,400}?[ \t]-a[ \t]+)(?!-)(\S+)",
            2,
            _not_reference,
            on=("redis-cli",),
        ),
        r(
            "cli_password",
            r"""(\b(?:curl|wget|http|https|xh)\b[^\n|;&]{0,400}?[ \t](?:-u|--user)(?:=|[ \t]*)"""
            r"""['"]?[^\s:'"]*:)([^\s'"]+)""",
            2,
            _not_reference,
            on=("-u", "--user"),
        ),
        r("cli_password", r"""(-pass(?:in|out)?[ \t]+pass:)([^\s'"]+)""", 2, _not_reference, on=("pass:",)),
        r(
            "cli_password",
            r"""(\bsmbclient\b[^\n|;&]{0,400}?[ \t]-U[ \t]*['"]?[^\s%'"]+%)([^\s'"]+)""",
            2,
            on=("smbclient",),
        ),
        # htpasswd's batch mode takes the password as its last argument (`-b FILE USER PASS`,
        # `-nb USER PASS`; _htpasswd_value counts them); openssl enc's `-k`/`-K`; Java's
        # keytool and jarsigner store and key passwords; zip's and unzip's `-P` and 7-Zip's
        # `-pPASS` (a bare `-p` asks for it). Flags are read possessively: a line of a
        # thousand flags costs one pass, not one per flag.
        r(
            "cli_password",
            r"""(\bhtpasswd(?P<flags>(?:[ \t]+-[A-Za-z]+(?:[ \t]+\d{1,2}(?=[ \t]))?)*+)"""
            rf"""(?P<args>(?:[ \t]+{_ARG}){{1,2}}?)[ \t]+)(?!-)({_ARG})(?=[ \t]*(?:$|\d?[<>|;&`#]))""",
            4,
            _htpasswd_value,
            on=("htpasswd",),
            flags=re.M,
        ),
        r(
            "cli_password",
            r"""(\bopenssl(?:\.exe)?[ \t]+[a-z][\w-]*"""
            rf"""\b[^\n|;&]{{0,400}}?[ \t]-[kK][ \t]+)(?!-)({_ARG})""",
            2,
            _flag_value,
            on=("openssl",),
        ),
        r(
            "cli_password",
            rf"""((?<![\w-])-(?:src|dest)?(?:store|key)pass[ \t]+)(?!-)({_ARG})""",
            2,
            _java_tool_value,
            on=("storepass", "keypass"),
        ),
        r(
            "cli_password",
            rf"""(\b(?:un)?zip\b[^\n|;&]{{0,400}}?[ \t]-[A-Za-z]*P[ \t]+)(?!-)({_ARG})""",
            2,
            _flag_value,
            on=("zip",),
        ),
        r(
            "cli_password",
            rf"""(\b7z[arz]?\b[^\n|;&]{{0,400}}?[ \t]-p)(?![\s\-])({_ARG})""",
            2,
            _flag_value,
            on=("7z",),
        ),
        # `npm|yarn|pnpm config set NAME VALUE` (npm's auth token under its registry's path);
        # rclone's remotes get their credentials as `NAME VALUE` pairs.
        r(
            "secret_assignment",
            r"""(\b(?:npm|yarn|pnpm)(?:[ \t]+config)?[ \t]+set(?:[ \t]+--?\w[\w-]*(?:=\S+)?)*+"""
            r"""[ \t]+(['"]?)([^\s'"=\-][^\s'"=]*)\2[ \t]+)"""
            rf"""(?!-)({_ARG})""",
            4,
            _named(3),
            on=("set",),
        ),
        r(
            "secret_assignment",
            r"""(\brclone[ \t]+config[ \t]+(?:create|update)\b[^\n|;&]{0,400}?[ \t]"""
            r"""((?:secret_access_key|client_secret|pass|password|token|key|account_key|sas_url|"""
            rf"""api_key|app_key|access_token|bearer_token)=?)[ \t]*)(?!-)({_ARG})""",
            3,
            _flag_value,
            on=("rclone",),
        ),
        # PowerShell's variables: Set-Variable / New-Variable -Name NAME -Value VALUE, a
        # literal only (`$x`, `(Get-Secret ...)` hold none).
        r(
            "secret_assignment",
            r"""(?i)(\b(?:set|new)-variable\b[^\n|;]{0,80}?-name[ \t]+(['"]?)([A-Za-z_]\w*)\2"""
            r"""[^\n|;]{0,80}?-value[ \t]+)('[^'\n]+'|"[^"\n]+"|[^\s'"$(@][^\s'"]*)""",
            4,
            _named(3),
            on=("-variable",),
            ci=True,
        ),
        r(
            "cli_password",
            r"""(ConvertTo-SecureString[ \t]+(?:-String[ \t]+)?)("[^"\n]+"|'[^'\n]+')"""
            r"""(?=[^\n]*-AsPlainText)""",
            2,
            _not_reference,
            on=("convertto-securestring",),
            ci=True,
        ),
        r(
            "cli_password",
            r"""(\b(?:echo|printf)[ \t]+(?:-[neE]+[ \t]+)?"""
            r"""(?:'%s(?:\\n)?'[ \t]+|"%s(?:\\n)?"[ \t]+|%s[ \t]+)?)"""
            r"""("[^"\n]+"|'[^'\n]+'|[^\s|'"]+)(?=[ \t]*\|[ \t]*(?:sudo[ \t]+)?[^\n|]*?"""
            r"""(?:--password-stdin|--pass(?:word)?-stdin|\bsudo[ \t]+-\w*S|\bchpasswd\b|\bpasswd\b"""
            r"""|--stdin|\bgh[ \t]+secret[ \t]+set\b|\bwrangler[ \t]+secret[ \t]+put\b"""
            r"""|\bvercel[ \t]+env[ \t]+add\b|\bgcloud[ \t]+secrets\b|\bdocker[ \t]+secret[ \t]+create\b"""
            r"""|\bfly(?:ctl)?[ \t]+secrets[ \t]+import\b))""",
            2,
            _not_reference,
            on=("stdin", "sudo", "passwd", "secret", "env add"),
        ),
        # Commands whose arguments are secrets by what the command does, whatever their names
        # (a review, 2026-11-28: `gh secret set DEPLOY_TOKEN --body ...` was kept): GitHub's,
        # Azure Key Vault's, Secrets Manager's and SSM's SecureString values, `NAME=value`
        # pairs given to Fly, Supabase, Doppler, Vault's kv store and kubectl's secrets, and a
        # here-string (`<<< value`) fed to any of them; the command runs on over a shell's
        # line continuations (Redactor._commands).
        r(
            "cli_secret",
            _SECRETS_CMD.source,
            0,
            _command_value,
            on=("secret", "kv put", "kv patch", "put-parameter", "env add"),
        ),
        # HTTP authorization.
        r(
            "auth_header",
            r"(?i)(\bauthorization[\"']?[ \t]*[:=][ \t]*[\"']?(?:bearer|basic|token|bot|digest)[ \t]+)"
            r"(?!\[REDACTED:)([A-Za-z0-9._~+/=\-]{6,})",
            2,
            on=("authorization",),
            ci=True,
        ),
        r(
            "auth_header",
            r"(?i)(\bbearer[ \t]+)(?!\[REDACTED:)([A-Za-z0-9._~+/\-]{16,}=*)",
            2,
            on=("bearer",),
            ci=True,
        ),
        r(
            "netrc_password",
            r"(\bmachine\s+\S+\s+login\s+\S+\s+password[ \t]+)(\S+)",  # one line, or one per field
            2,
            _not_reference,
            on=("machine",),
        ),
        # Configuration and shells where the name is given apart from its value (a review,
        # 2026-11-28): PHP's define('DB_PASSWORD', '...'), .NET's <add key="DbPassword"
        # value="..."/>, fish's `set -gx OPENAI_API_KEY ...` and csh's `setenv`.
        r(
            "secret_assignment",
            r"""(\bdefine[ \t]*\([ \t]*['"]([A-Za-z0-9_]+)['"][ \t]*,\s*)"""
            r"""('(?:[^'\\\n]|\\.)+'|"(?:[^"\\\n]|\\.)+")""",
            3,
            _named_secret,
            on=("define",),
        ),
        # An XML element naming a secret by one attribute and holding it in another, in either
        # order and across lines (.NET's <add key= value=>, Spring's and Ant's <property
        # name= value=>, <setting name= value=>), or as its text (<entry key="db.password">).
        r(
            "secret_assignment",
            r"""(?i)(<[a-z][\w:.\-]*\s[^<>]{0,300}?\b(?:key|name)\s*=\s*["']([^"'<>\n]+)["'][^<>]{0,300}?"""
            r"""\bvalue\s*=\s*["'])([^"'<>\n]+)""",
            3,
            _named(2, quoted=True),
            on=("value",),
            ci=True,
        ),
        r(
            "secret_assignment",
            r"""(?i)(<[a-z][\w:.\-]*\s[^<>]{0,300}?\bvalue\s*=\s*["'])([^"'<>\n]+)"""
            r"""(["'][^<>]{0,300}?\b(?:key|name)\s*=\s*["']([^"'<>\n]+)["'])""",
            2,
            _named(4, quoted=True),
            on=("value",),
            ci=True,
        ),
        r(
            "secret_assignment",
            r"""(?i)(<([a-z][\w:.\-]*)\s[^<>]{0,300}?\b(?:key|name)\s*=\s*["']([^"'<>\n]+)["'][^<>/]*>)"""
            r"""([^<\n]{1,300})(</\2\s*>)""",
            4,
            _named(3, quoted=True),
            on=("</",),
        ),
        # A secret's name and value as two fields of one entry: Kubernetes' `env` list in YAML
        # (`- name: DB_PASSWORD` then `value: ...`, up to three other fields, comments or blank
        # lines between, none starting another entry), CloudFormation's ParameterKey /
        # ParameterValue, ECS's `{"name": ..., "value": ...}` in either order, AWS's Key /
        # Value, Terraform's and a call's `name = "..."` then `value = "..."`.
        r(
            "secret_assignment",
            r"""(?im)(^"""
            + _LINE_NO
            + r"""[ \t]*(?:-[ \t]+)?(?:name|key|parameterkey)[ \t]*:[ \t]*(["']?)"""
            + _PAIR_NAME
            + r"""\2[ \t]*(?:#[^\n]*)?\r?\n"""
            + rf"""(?:{_LINE_NO}[ \t]*(?:#[^\n]{{0,300}})?\r?\n"""
            + rf"""|{_LINE_NO}[ \t]+(?!(?:parameter)?value[ \t]*:)[A-Za-z_][\w\-]*[ \t]*:"""
            + r"""[^\n]{0,300}\n){0,3}?"""
            + rf"""{_LINE_NO}[ \t]+(?:parameter)?value[ \t]*:[ \t]*)"""
            + r"""("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s"'#][^\n]*?)(?=[ \t]+#|[ \t]*\r?$)""",
            4,
            _pair(3),
            on=("value",),
            ci=True,
        ),
        # The same entry on one line: YAML's flow style (`- {name: DB_PASSWORD, value: x}`), or
        # a list flattened into a line of notes.
        r(
            "secret_assignment",
            r"""(?i)(\b(?:name|key)[ \t]*:[ \t]*(["']?)""" + _PAIR_NAME + r"""\2[ \t]*,?[ \t]+"""
            r"""(?:[A-Za-z_][\w\-]{0,40}[ \t]*:[ \t]*[^\s,{}]{1,80}[ \t]*,?[ \t]+){0,3}?value[ \t]*:[ \t]*)"""
            r"""("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s,{}#"']+)""",
            4,
            _pair(3, flow=True),
            on=("value",),
            ci=True,
        ),
        r(
            "secret_assignment",
            r"(?i)(" + _Q + _JSON_NAME + _JSON_FIELDS + _JSON_VALUE + ")" + _QUOTED_VALUE,
            3,
            _named(2),
            on=("value",),
            ci=True,
        ),
        r(
            "secret_assignment",
            r"(?i)(" + _Q + _JSON_VALUE + ")" + _QUOTED_VALUE + "(" + _JSON_FIELDS + _JSON_NAME + ")",
            2,
            _named(4),
            on=("value",),
            ci=True,
        ),
        r(
            "secret_assignment",
            r"""(?i)(\b(?:name|key)[ \t]*=[ \t]*(["'])"""
            + _PAIR_NAME
            + r"\2"
            + _EQ_SEP
            + r"""(?:[A-Za-z_]\w{0,40}[ \t]*=[ \t]*(?:"[^"\n]{0,200}"|'[^'\n]{0,200}'|[\w.\-]{1,60})"""
            + _EQ_SEP
            + "){0,3}?"
            + r"""value[ \t]*=[ \t]*)"""
            + _QUOTED_VALUE,
            4,
            _named(3),
            on=("value",),
            ci=True,
        ),
        r(
            "secret_assignment",
            r"""(\b(?:set(?:[ \t]+--?[A-Za-z]+)+|setenv|env:set|user-secrets[ \t]+set)[ \t]+"""
            r"""([A-Za-z_][A-Za-z0-9_]*)[ \t]+)"""
            r"""(?!\[REDACTED:)('[^'\n]+'|"[^"\n]+"|[^\s;|&'"()]+(?![^\s;|&]))""",
            3,
            _named_secret,
            on=("set",),
        ),
        # A literal assigned with a type between (`password: str = "..."`, TypeScript's
        # `const apiKey: string = "..."`, Kotlin's `val password: String = "..."`).
        # The pattern starts at the colon (a search for a name first cost twenty times more);
        # the name is read back from there (_annotated).
        r(
            "secret_assignment",
            r"""(:(?<=[A-Za-z0-9_]:)[ \t]*[A-Za-z_][\w.]*(?:\[[^\]\n]*\])?"""
            r"""(?:[ \t]*\|[ \t]*[A-Za-z_][\w.]*)*[ \t]*=[ \t]*(?:[fFbBrRuU]{1,2})?)"""
            r"""("(?:[^"\\\n]|\\.)+"|'(?:[^'\\\n]|\\.)+')""",
            2,
            _annotated,
            on=('= "', "= '"),
        ),
        # Base64 of user:password under an "auth" key: ~/.docker/config.json, .npmrc `_auth=`.
        r(
            "basic_auth",
            r"""((?:"auth"|\b_auth)[ \t]*[:=][ \t]*"?(?:Basic[ \t]+)?)([A-Za-z0-9+/]{8,}={0,2})""",
            2,
            lambda m, v: _user_colon_password(v),
            on=('"auth"', "_auth"),
        ),
        r(
            "cli_password",
            r"((?:^|[;&|(]|\bsudo)[ \t]*(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)"
            r"[ \t][^\n|;&]{0,400}?[ \t]-p[ \t]+)(?!-)(\S+)",
            2,
            lambda m, v: _not_reference(m, v) and _looks_random(v) and not _PORTS.match(v),
            on=("mongo",),
            flags=re.M,
        ),
        r(
            "cli_password",
            r"""(\bsecurity[ \t]+add-(?:generic|internet)-password\b[^\n|;&]{0,400}?[ \t]-w[ \t]+)"""
            r"""(?!-)(\S+)""",
            2,
            _not_reference,
            on=("-password",),
        ),
        r(
            "cli_password",
            r"""(\b(?:keytool|jarsigner)\b[^\n|;&]{0,400}?[ \t]"""
            r"""-(?:src|dest|new)?(?:storepass|keypass)[ \t]+)"""
            r"""(?!-)('[^'\n]*'|"[^"\n]*"|\S+)""",
            2,
            lambda m, v: _not_reference(m, v) and not v.strip("'\"").startswith("<"),
            on=("storepass", "keypass"),
        ),
        r(
            "connection_key",
            r"(?i)(\b(?:AccountKey|SharedAccessKey|SharedSecret)=)([^;\s\"']+)",
            2,
            on=("accountkey", "sharedaccesskey", "sharedsecret"),
            ci=True,
        ),
        r(
            "xml_secret",
            r"(?i)(<(password|passwd|secret|token|api_?key|apikey|access_?key|secret_?key|client_?secret)>)"
            r"([^<\n]{1,300})(</\2>)",
            3,
            _not_reference,
            on=("</",),
        ),
        # A connection string's Pwd= (ODBC, ADO: `Server=db;Uid=app;Pwd=...;`), which the
        # assignment rule leaves to the shell's $PWD elsewhere.
        r(
            "connection_password",
            r"(?i)((?:^|[;\s\"'])pwd[ \t]*=[ \t]*)(?!\[REDACTED:)([^;\s\"']+)",
            2,
            _not_reference,
            on=("uid=", "user id=", "server=", "data source=", "database="),
            ci=True,
        ),
        # SQL: ALTER USER ... WITH PASSWORD '...', CREATE USER ... IDENTIFIED BY '...'.
        r(
            "sql_password",
            r"""(?i)(\b(?:password|identified[ \t]+by)[ \t]+)(?!\[REDACTED:)"""
            r"""('[^'\s]{1,200}'|"[^"\s]{1,200}")""",
            2,
            _not_reference,
            on=("password", "identified"),
            ci=True,
        ),
        # A Cookie or Set-Cookie header's value (session ids), when it holds name=value.
        r(
            "cookie",
            r"""(?i)(\b(?:set-)?cookie[ \t]*:[ \t]*)(?!\[REDACTED:)([^\s'"=;]+=[^\s;'"][^\n'"]*)""",
            2,
            on=("cookie",),
            ci=True,
        ),
        # Secret-named assignments: env lines (`     3→DB_PASS=...`, `export X_TOKEN=...`),
        # command prefixes (`PGPASSWORD=... psql`), YAML/JSON/ini/code keys. The name is
        # found by a lookahead at a word's start (no backtracking through long words).
        r(
            "secret_assignment",
            "(?i)" + _FIND.replace("[a-z0-9_", "[A-Za-z0-9_"),
            3,
            _assignment,
            on=("=", ":"),
        ),
        r(
            "prose_secret",
            _PROSE_AT.source,
            1,  # unused: Redactor._prose replaces the group named `value`
            _prose_secret,
            on=_PROSE_ON,
            ci=True,
        ),
        # Known token shapes (prefixes let a cut-off one be recognised too).
        r("anthropic_key", r"\bsk-ant-[A-Za-z0-9_\-]{8,}", on=("sk-ant-",)),
        r(
            "openai_key",
            r"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{8,}|\bsk-[A-Za-z0-9]{20,}(?:T3BlbkFJ[A-Za-z0-9]+)?",
            on=("sk-",),
        ),
        r("stripe_key", r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{8,}", on=("_live_", "_test_")),
        r("stripe_key", r"\bwhsec_[A-Za-z0-9+/=]{16,}", on=("whsec_",)),
        r(
            "github_token",
            r"\b(?:gh[pousr]_[A-Za-z0-9]{36}(?=gh[pousr]_)|gh[pousr]_[A-Za-z0-9]{8,}|github_pat_[A-Za-z0-9_]{8,})",
            on=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        ),
        # A GitHub token glued to the word before it (`cccghp_...`): its fixed length and
        # mixed tail tell it apart from a name that happens to hold `ghp_`.
        r(
            "github_token",
            r"gh[pousr]_[A-Za-z0-9]{36}(?=gh[pousr]_|[^A-Za-z0-9]|\Z)",
            check=lambda m, v: _mixed(v[4:]),
            on=("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        ),
        r(
            "gitlab_token",
            r"\bgl(?:pat|dt|rt|ptt|ft|soat|cbt)-[A-Za-z0-9_\-]{12,}",
            on=("glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glsoat-", "glcbt-"),
        ),
        r(
            "aws_access_key",
            r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA)[0-9A-Z]{16}\b",
            on=("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA", "ABIA", "ACCA"),
        ),
        r(
            "aws_secret_key",
            r"(?i)(aws_?secret_?access_?key|aws_?secret_?key|secretaccesskey)(\W{1,4})([A-Za-z0-9/+=]{40})",
            3,
            on=("aws_secret", "awssecret", "secretaccesskey"),
            ci=True,
        ),
        r(
            "aws_session_token",
            r"\b(?:FwoGZXIvYXdzE|IQoJb3JpZ2luX2Vj|FQoGZXIvYXdzE)[A-Za-z0-9/+=]{16,}",
            on=("FwoGZXIvYXdzE", "IQoJb3JpZ2luX2Vj", "FQoGZXIvYXdzE"),
        ),
        r(
            "slack_token",
            r"\bxox[abposre]-[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Za-z0-9-]{10,}",
            on=("xox", "xapp-"),
        ),
        r(
            "webhook_url",
            r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]+"
            r"|https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]+"
            r"|https://[a-z0-9.\-]*webhook\.office\.com/webhookb2/[A-Za-z0-9@/_\-]+",
            on=("hooks.slack.com", "/api/webhooks/", "webhook.office.com"),
        ),
        r("google_api_key", r"\bAIza[0-9A-Za-z_\-]{30,}", on=("AIza",)),
        r(
            "google_oauth",
            r"\bGOCSPX-[A-Za-z0-9_\-]{20,}|\bya29\.[A-Za-z0-9_\-]{20,}|\b1//0[A-Za-z0-9_\-]{30,}",
            on=("GOCSPX-", "ya29.", "1//0"),
        ),
        r("sendgrid_key", r"\bSG\.[A-Za-z0-9_\-]{16,}(?:\.[A-Za-z0-9_\-]*)?", on=("SG.",)),
        r("twilio_key", r"\bSK[0-9a-f]{32}\b", on=("SK",)),
        r("mailgun_key", r"\bkey-[0-9a-zA-Z]{32}\b", on=("key-",)),
        r("mailchimp_key", r"\b[0-9a-f]{32}-us\d{1,2}\b", on=("-us",)),
        r("npm_token", r"\bnpm_[A-Za-z0-9]{20,}", on=("npm_",)),
        r("pypi_token", r"\bpypi-AgE[A-Za-z0-9_\-]{16,}", on=("pypi-AgE",)),
        r("huggingface_token", r"\bhf_[A-Za-z0-9]{30,}", on=("hf_",)),
        # Further providers' documented key prefixes (OpenRouter, Groq, xAI, Replicate,
        # Perplexity, Docker Hub, Tailscale, Pulumi, Sentry, Supabase).
        r(
            "provider_key",
            r"\b(?:sk-or-v1-[0-9a-f]{32,}|gsk_[A-Za-z0-9]{20,}|xai-[A-Za-z0-9]{20,}|r8_[A-Za-z0-9]{20,}"
            r"|pplx-[A-Za-z0-9]{20,}|dckr_pat_[A-Za-z0-9_\-]{20,}|tskey-[a-z]+-[A-Za-z0-9]+-[A-Za-z0-9]{8,}"
            r"|pul-[0-9a-f]{40}|sntry[su]_[A-Za-z0-9+/=_]{20,}|sb_secret_[A-Za-z0-9_\-]{16,})",
            on=(
                *("sk-or-v1-", "gsk_", "xai-", "r8_", "pplx-", "dckr_pat_"),
                *("tskey-", "pul-", "sntrys_", "sntryu_", "sb_secret_"),
            ),
        ),
        r(
            "shopify_token",
            r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",
            on=("shpat_", "shpss_", "shpca_", "shppa_"),
        ),
        r("digitalocean_token", r"\bdo[opr]_v1_[a-f0-9]{64}", on=("_v1_",)),
        r("databricks_token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b", on=("dapi",)),
        r("vault_token", r"\bhv[sbr]\.[A-Za-z0-9_\-]{24,}", on=("hvs.", "hvb.", "hvr.")),
        # Vault's tokens before 1.10: `s.` and 24 characters (service), `b.` and a long tail
        # (batch); mixed case and digits, so `s.ThisIsAnOrdinaryName` is not one.
        r(
            "vault_token",
            r"\b(?<!\.)(?:s\.[A-Za-z0-9]{24}|b\.[A-Za-z0-9_\-]{80,})(?![A-Za-z0-9_(\-]|\.[A-Za-z0-9_])",
            check=lambda m, v: _mixed(v[2:]),
            on=("s.", "b."),
        ),
        r("doppler_token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{20,}", on=("dp.",)),
        r("linear_key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{32,}", on=("lin_",)),
        r("notion_token", r"\bsecret_[A-Za-z0-9]{43}\b|\bntn_[A-Za-z0-9]{40,}", on=("secret_", "ntn_")),
        r("postman_key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}", on=("PMAK-",)),
        r("newrelic_key", r"\bNRAK-[A-Z0-9]{27}\b", on=("NRAK-",)),
        r(
            "grafana_token",
            r"\bglsa_[A-Za-z0-9]{32}_[a-f0-9]{8}\b|\bglc_[A-Za-z0-9+/=]{32,}",
            on=("glsa_", "glc_"),
        ),
        r("atlassian_token", r"\bATATT3[A-Za-z0-9_\-=]{50,}", on=("ATATT3",)),
        r("telegram_token", r"(?:\b|(?<=bot))\d{8,10}:AA[A-Za-z0-9_\-]{33}(?![A-Za-z0-9_\-])", on=(":AA",)),
        r(
            "square_token",
            r"\b(?:sq0atp|sq0csp)-[A-Za-z0-9_\-]{22,}|\bEAAA[A-Za-z0-9_\-]{60}",
            on=("sq0atp-", "sq0csp-", "EAAA"),
        ),
        # A cut-off token: a known prefix and what is left of it where the text was cut.
        r(
            "truncated_secret",
            r"\b(?:gh[pousr]_|github_pat_|sk-ant-|sk-proj-|sk_live_|sk_test_|rk_live_|xox[abposr]-|glpat-|"
            r"npm_|pypi-|hf_|AKIA|ASIA|SG\.|whsec_|shpat_|dop_v1_|hvs\.|AIza|GOCSPX-|eyJ)[A-Za-z0-9_\-.+/=]*"
            r"(?=[ \t]*(?:…|\.\.\.|\[truncated\]|\\?\Z))",
            check=lambda m, v: not _placeholder(v),
            on=_CUT_PREFIXES,
        ),
        r("private_key", r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-{0,5}\Z", on=("-----BEGIN",)),
    ]


_CUT_PREFIXES = (
    "gho_", "ghp_", "ghu_", "ghs_", "ghr_", "github_pat_", "sk-ant-", "sk-proj-", "sk_live_", "sk_test_",
    "rk_live_", "xox", "glpat-", "npm_", "pypi-", "hf_", "AKIA", "ASIA", "SG.", "whsec_", "shpat_",
    "dop_v1_", "hvs.", "AIza", "GOCSPX-", "eyJ",
)  # fmt: skip


_NAME_CHARS = frozenset(string.ascii_letters + string.digits + "_.-")
_QUOTED = r"""\\"(?:[^"\\\n]|\\[^"\n])*\\"|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`\s]+`"""
# A bare value ends at `&` only where a URL's next parameter (`&user=`, `&amp;user=`) or a
# shell's `&&` follows: `DB_PASSWORD=Tr0ub4dor&3Horse` is one value (a red-team test, 2026-11-28, found
# `&3Horse` kept).
_BARE = r"""[^\s"'`&<>,;]+(?:(?:[,;]|&(?!amp;|[^\s"'`&<>,;=]*=))[^\s"'`&<>,;]+)*"""
_ASSIGN_AT_SOURCE = (
    r"""(?P<name>(?:\\?["'`])?(?:\$env:)?[A-Za-z0-9_.\-]++(?:\\?["'`])?\]?)"""
    r"""(?P<op>[ \t]*+(?::=|=>|=(?![=~>])|:(?![:/]|\\(?![\"'])))[ \t]*+)"""
    rf"""(?P<value>(?:[fFbBrRuU]{{1,2}}(?=["']))?(?:{_QUOTED})|{_BARE})"""
)
_FIND = (
    r"(?:pass|pwd|pw|secret|token|key|cred|auth|sasl|pin)[a-z0-9_.\-]*+(?:\\?[\"'`])?\]?"
    r"[ \t]*+(?::=|=>|=(?![=~>])|:(?![:/]|\\(?![\"'])))"
)
_ASSIGN_AT = _Lazy(_ASSIGN_AT_SOURCE)
_QUOTED_AFTER = _Lazy(r"""[ \t]*["']""")
_FIND_LOWER = _Lazy(_FIND)

_ANSI_END = _Lazy(r"\x1b\[[0-9;?]*[A-Za-z]\Z")
# A string literal, or an unclosed one to its line's end (skipped whole: a quote inside it is
# not the start of another, so a truncated double-encoded line costs one pass, not one per quote).
_JSON_STRING = _Lazy(r'"(?:[^"\\\n]|\\.?)*+(?:"|(?=\n)|\Z)')

_COMPILED: list[Rule] | None = None


_SHAPES: list[Rule] | None = None


def _shape_of(value: str) -> str | None:
    """The kind of token `value` is, when one of the shape rules covers all of it."""
    global _SHAPES
    if _SHAPES is None:
        _SHAPES = [
            r for r in rules() if r[2] == 0 and r[3] is None and r[0] not in ("private", "truncated_secret")
        ]
    low = value.lower()
    for name, pattern, _group, _check, (on, ci, _word) in _SHAPES:
        if on and not any(t in (low if ci else value) for t in on):
            continue
        m = pattern.match(value)
        if m and m.end() == len(value):
            return name
    return None


def rules() -> list[Rule]:
    """The rules; each pattern is compiled when a text first holds its trigger."""
    global _COMPILED
    if _COMPILED is None:
        _COMPILED = _rules()
    return _COMPILED


def _word_start(text: str, at: int) -> bool:
    """No letter, digit or _ before `at`, or an escaped newline or tab (`\\n`) right before it."""
    if at == 0:
        return True
    before = text[at - 1]
    if not (before.isalnum() or before == "_"):
        return True
    if "\x1b" in text[max(0, at - 16) : at] and _ANSI_END.search(text, max(0, at - 16), at):
        return True  # coloured terminal output: `\x1b[32mghp_...`
    if at >= 3 and text[at - 3 : at] in ("%3D", "%3d"):
        return True  # URL-encoded `=`: `token%3Dghp_...`
    return at >= 2 and before in "ntr" and text[at - 2] == "\\"


def _in_placeholder(match: re.Match[str], group: int) -> bool:
    """The value starts or ends inside a placeholder an earlier rule wrote."""
    start, end = match.span(group)
    head = match.string[max(0, start - 40) : start]
    opened = head.rfind("[REDACTED:")
    if opened != -1 and "]" not in head[opened:]:
        return True
    value = match.string[start:end]
    last = value.rfind("[REDACTED:")
    return last != -1 and "]" not in value[last:]


# Characters that show as nothing (or as a blank) next to a printable ASCII character:
# inside or right before a token nobody types them, so a key split by them is still a key.
_HIDDEN = (
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\U0001bca0-\U0001bca3\U000e0000-\U000e0fff]+"
)
_HIDDEN_IN_TOKEN = _Lazy(f"(?<=[!-~]){_HIDDEN}|{_HIDDEN}(?=[!-~])")
_CUT_TAIL = _Lazy(rf"(\[REDACTED:[a-z0-9_]+\]){_HIDDEN}[A-Za-z0-9_\-+/=.]+")
_CUT_HEAD = _Lazy(rf"[A-Za-z0-9_\-+/=.]+{_HIDDEN}(?=\[REDACTED:[a-z0-9_]+\])")

_USER_PATTERNS: dict[tuple[str, int, int], tuple[str, ...]] = {}


def user_patterns() -> tuple[str, ...]:
    """The user's own secret shapes, `[capture] extra_secret_patterns` of config.toml, for
    every redaction whatever process runs it: the store's pass, the hook, importers and
    sync took only the built-in rules while the worker alone read them (an outside test,
    2026-11-28). Read again when the file changes; a file that does not name the key is not
    parsed, so the hook pays a stat and a read. A broken file raises UsageError, as
    loading it anywhere else does."""
    import os

    from memoryd import envpaths

    path = envpaths.config_file()
    try:
        st = os.stat(path)
        key = (path, st.st_mtime_ns, st.st_size)
        if key in _USER_PATTERNS:
            return _USER_PATTERNS[key]
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:  # no config file: defaults
        return ()
    found: tuple[str, ...] = ()
    if b"extra_secret_patterns" in data:
        from pathlib import Path

        from memoryd import config
        from memoryd.errors import UsageError

        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UsageError(f"{path}: not valid TOML ({exc})") from None
        found = tuple(config.from_text(text, Path(path)).capture.extra_secret_patterns)
    _USER_PATTERNS.clear()
    _USER_PATTERNS[key] = found
    return found


class Redactor:
    """Counts what it replaced (never the secrets) so the audit can say how many. Without
    `extra_patterns`, the user's own (user_patterns) join the built-in rules."""

    def __init__(self, extra_patterns: Iterable[str] | None = None) -> None:
        self.patterns: list[Rule] = list(rules())
        self._extra = tuple(user_patterns() if extra_patterns is None else extra_patterns)
        for i, pattern in enumerate(self._extra):
            self.patterns.append((f"custom_{i}", re.compile(pattern), 0, None, ((), False, False)))
        self.counts: Counter[str] = Counter()
        self._depth = 0

    def __call__(self, text: str) -> str:
        if not text:
            return text
        out = self._redact(text)
        if _HIDDEN_IN_TOKEN.search(out) is None:
            return out
        if "[REDACTED:" in out:  # a key cut by a hidden character: its other part goes too
            out = _CUT_TAIL.sub(r"\1", _CUT_HEAD.sub("", out))
        # A soft hyphen, a zero-width space, a Hangul filler or a braille blank inside or
        # before a key hides all or part of it from every shape (an outside test,
        # 2026-11-28). What the text as typed gives is read again without them; where that
        # finds more it is kept, else the text stays as it came (those characters are what
        # memoryd.poison reads a hidden instruction by).
        before = self.counts.copy()
        joined = self._redact(_HIDDEN_IN_TOKEN.sub("", out))
        if self.counts.total() > before.total():
            return joined
        self.counts = before
        return out

    def _redact(self, text: str) -> str:
        if "\\" in text and ("\\n" in text or '\\"' in text or "\\/" in text or "\\u" in text):
            text = self._json_strings(text)
        lowered: str | None = None
        for name, pattern, group, check, (on, ci, word) in self.patterns:
            if on:
                if ci:
                    if lowered is None:
                        lowered = text.lower()
                    if not any(t in lowered for t in on):
                        continue
                elif not any(t in text for t in on):
                    continue
            if check is _command_value:
                new = self._commands(text, pattern)
            elif check is _assignment or check is _prose_secret:
                if lowered is None:
                    lowered = text.lower()
                new = (self._assignments if check is _assignment else self._prose)(text, lowered, pattern)
            else:
                new = pattern.sub(
                    lambda m, n=name, g=group, c=check, w=word: self._replace(m, n, g, c, w), text
                )
                last = text
                # The enclosing <private> blocks; a command's next NAME=value.
                while name == "private" and new != last and "<" in new:
                    last, new = (
                        new,
                        pattern.sub(
                            lambda m, n=name, g=group, c=check, w=word: self._replace(m, n, g, c, w), new
                        ),
                    )
            if new != text:
                text, lowered = new, None
        return text

    def _json_strings(self, text: str) -> str:
        """JSON inside text (a Codex tool output, a .json file a tool printed) holds its lines
        as `\\n` and its quotes as `\\"`, which no line rule sees: each such string literal is
        decoded, redacted, and written back encoded when something in it was a secret."""
        if self._depth >= 3:
            return text
        edits: list[tuple[int, int, str]] = []
        self._depth += 1
        try:
            for m in _JSON_STRING.finditer(text):
                literal = m.group(0)
                if "\\" not in literal or len(literal) < 2 or not literal.endswith('"'):
                    continue
                try:
                    decoded = json.loads(literal)
                except ValueError:
                    continue
                redacted = self(decoded)
                if redacted != decoded:
                    # A lone surrogate (an emoji cut in half) stays escaped: it is not UTF-8.
                    lone = any("\ud800" <= c <= "\udfff" for c in redacted)
                    edits.append((m.start(), m.end(), json.dumps(redacted, ensure_ascii=lone)))
        finally:
            self._depth -= 1
        return _splice(text, edits)

    def _assignments(self, text: str, lowered: str, finder: re.Pattern[str]) -> str:
        """`name = value` where the name holds a secret word: the finder spots the word and
        its operator, the name is taken back to its start, then matched whole from there.
        The finder runs on the lowercased text (an ignore-case search is five times
        slower) when lowercasing kept every offset."""
        edits: list[tuple[int, int, str]] = []
        done = 0
        hits = _FIND_LOWER.finditer(lowered) if len(lowered) == len(text) else finder.finditer(text)
        for hit in hits:
            start = hit.start()
            while start > 0 and text[start - 1] in _NAME_CHARS:
                if start >= 2 and text[start - 2] == "\\" and text[start - 1] in "ntr":
                    break  # an escaped newline (`\\nDB_PASS=`) is not part of the name
                start -= 1
            if start < done:
                continue
            if start > 0 and text[start - 1] in "/@":
                continue
            if start > 0 and text[start - 1] == "$" and not _QUOTED_AFTER.match(text, hit.end()):
                continue  # `$DB_PASS` is a reference; PHP's and Perl's `$db_password = "..."` is not
            if start > 0 and text[start - 1] in "\"'`":  # a quoted key: "password": ...
                start -= 1
                if start > 0 and text[start - 1] == "\\":
                    start -= 1
            if start >= 5 and text[start - 5 : start] == "$env:":
                start -= 5
            m = _ASSIGN_AT.match(text, start)
            if m is None or m.start("value") < hit.end() - 1:
                continue
            replaced = self._replace(m, "secret_assignment", 3, _assignment)
            if replaced == m.group(0):
                continue  # not a secret: its value may hold the next name (`note: DB_PASS=x`)
            edits.append((m.start(), m.end(), replaced))
            done = m.end()
        return _splice(text, edits)

    def _prose(self, text: str, lowered: str, at: re.Pattern[str]) -> str:
        """A secret told in a sentence: the finder spots a noun and its verb in the lowercased
        text, the whole is matched from there in the text as written."""
        if len(lowered) != len(text):
            hits: Iterable[re.Match[str]] = at.finditer(text)
        else:
            hits = _PROSE_FIND.finditer(lowered)
        edits: list[tuple[int, int, str]] = []
        done = 0
        for hit in hits:
            start = hit.start()
            prev = text[start - 1] if start else " "
            if start < done or (prev.isascii() and (prev.isalnum() or prev == "_") and text[start].isascii()):
                continue  # inside a word: `bypass is`, `opcode: 12`
            m = at.match(text, start)
            if m is None:
                continue
            replaced = self._replace(m, "prose_secret", m.re.groupindex["value"], _prose_secret)
            if replaced == m.group(0):
                continue
            edits.append((m.start(), m.end(), replaced))
            done = m.end()
        return _splice(text, edits)

    def _commands(self, text: str, finder: re.Pattern[str]) -> str:
        """A secrets command's values: the command is found once with all its arguments (to
        the end of its line, or of its continued lines), and each value its kind names goes."""
        edits: list[tuple[int, int, str]] = []
        done = 0
        # A heredoc's delimiter: how far it was looked for in vain; and what all such looks
        # may still read, so that a hostile text of many delimiters costs a few passes at most.
        unended: dict[str, int] = {"": 2 * len(text) + _HEREDOC_MAX}
        heads = [
            m
            for start, end in _command_lines(text)
            for m in finder.finditer(text, start, end)
            if _word_start(text, m.start())  # not `doc create secret`
        ]
        for i, m in enumerate(heads):
            # The arguments end where the next secrets command starts, if one does on this line.
            stop = heads[i + 1].start() if i + 1 < len(heads) else len(text)
            found = _CMD_ARGS.match(text, m.end(), stop)
            base = m.end()
            args = text[base : _args_end(text, base, found.end() if found else base, stop)]
            kind = next(k for k in _CMD_KINDS if m.group(k) is not None)
            spans: list[tuple[int, int]] = []
            flag = _CMD_FLAG.get(kind)
            if flag is not None and (kind != "ssm" or "SecureString" in args):
                for f in flag.finditer(args):
                    g = next(k for k in range(1, (f.lastindex or 1) + 1) if f.group(k) is not None)
                    spans.append(f.span(g))
            spans += [h.span(1) for h in _HERE_STRING.finditer(args)]
            body = None
            if kind in _HEREDOC_READS or _STDIN_ARG.search(args):
                # `cat <<EOF | gh secret set X`: the heredoc before the pipe (within the reach
                # every command rule has, so a line of many heads is not read once per head).
                reach = max(0, m.start() - 400, heads[i - 1].end() if i else 0)
                line = text[text.rfind("\n", reach, m.start()) + 1 or reach : m.start()]
                given = args if _HEREDOC.search(args) else line if _PIPED_IN.search(line) else ""
                body = self._heredoc(text, base + len(args), given, unended)
            for start, end in sorted(spans):
                value = args[start:end]
                if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'`":
                    start, end, value = start + 1, end - 1, value[1:-1]
                if not _command_value(value) or base + start < done:
                    continue
                self.counts["cli_secret"] += 1
                edits.append((base + start, base + end, "[REDACTED:cli_secret]"))
                done = base + end
            if body is not None and body[0] >= done:
                self.counts["cli_secret"] += 1
                edits.append((*body, "[REDACTED:cli_secret]"))
                done = body[1]
        return _splice(text, edits)

    @staticmethod
    def _heredoc(text: str, after: int, args: str, unended: dict[str, int]) -> tuple[int, int] | None:
        """The span of the lines a heredoc in `args` (a command's arguments, ending at `after`)
        gives the command, when they are a value (_command_value) and their end is found.
        `unended` keeps how far each delimiter was looked for in vain, so that many heads
        with no end (a hostile text) are not each searched to _HEREDOC_MAX again."""
        found = _HEREDOC.search(args)
        start = text.find("\n", after) + 1
        if found is None or start == 0 or unended[""] <= 0:
            return None
        word = found.group(2)
        end_line = re.compile(rf"^{_LINE_NO}[ \t]*{re.escape(word)}[ \t]*\r?$", re.M)
        begin = max(start, unended.get(word, 0))
        end = end_line.search(text, begin, start + _HEREDOC_MAX)
        unended[""] -= (end.end() if end else min(len(text), start + _HEREDOC_MAX)) - begin
        if end is None:
            unended[word] = max(unended.get(word, 0), start + _HEREDOC_MAX)
            return None
        if end.start() <= start:
            return None
        stop = end.start() - 1 - (text[end.start() - 2 : end.start() - 1] == "\r")
        value = text[start:stop].strip()
        return (start, stop) if value and _command_value(value) else None

    def _replace(
        self, match: re.Match[str], name: str, group: int, check: Check | None, word: bool = False
    ) -> str:
        if word and not _word_start(match.string, match.start()):
            return match.group(0)  # not at a word's start
        value = match.group(group)
        if not value or _ONLY_PLACEHOLDER.match(value.strip("\"'\\")):
            return match.group(0)
        if name != "private" and _in_placeholder(match, group):  # what the person marks goes always
            return match.group(0)
        if check is not None:
            verdict = check(match, value)
            if not verdict:
                return match.group(0)
            if isinstance(verdict, str):
                name = verdict
        start, end = match.span(group)
        if group:
            # Quotes stay (the text keeps its shape); a value of a known shape is named by it.
            for q in ('\\"', '"', "'", "`"):
                if len(value) >= 2 * len(q) and value.startswith(q) and value.endswith(q):
                    start, end, value = start + len(q), end - len(q), value[len(q) : -len(q)]
                    break
            name = _shape_of(value) or name
        self.counts[name] += 1
        placeholder = f"[REDACTED:{name}]"
        if group == 0:
            return placeholder
        base = match.start(0)
        whole = match.group(0)
        return whole[: start - base] + placeholder + whole[end - base :]

    def redact_obj(self, value: Any) -> Any:
        """Redact every string inside a JSON-like value (keys too: a dict can be keyed by a
        secret)."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, list):
            if len(value) >= 2 and all(isinstance(v, str) for v in value):
                return self._argv(value)
            return [self.redact_obj(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self.redact_obj(v) for v in value)
        if isinstance(value, dict):
            return self._redact_dict(value)
        return value

    def _argv(self, words: list[str]) -> list[str]:
        """A list of strings may be a command's argv (a Codex rollout's `["mysql", "-uroot",
        "-pSECRET"]`), where a flag and its value stand in separate elements and no rule
        sees them alone: the command is checked as one line too, and an element whose text
        that check took out is replaced whole (an outside test, 2026-11-28)."""
        out = [self(w) for w in words]
        line = " ".join(words)
        red = Redactor(self._extra)(line)
        if red == line:
            return out
        for i, w in enumerate(words):
            if out[i] == w and w.strip() and w not in red:
                self.counts["cli_password"] += 1
                out[i] = "[REDACTED:cli_password]"
        return out

    def _redact_dict(self, value: dict[Any, Any]) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for k, v in value.items():
            key = self(k) if isinstance(k, str) else k
            if (
                isinstance(k, str)
                and isinstance(v, str)
                and _name_is_secret(k)
                and _secret_value(k, v.strip(), quoted=True)
            ):
                # {"password": "hunter2"}: the key names its value a secret.
                self.counts["secret_assignment"] += 1
                out[key] = "[REDACTED:secret_assignment]"
                continue
            out[key] = self.redact_obj(v)
        return out

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def redact(text: str) -> str:
    """One-off redaction with the built-in rules."""
    return Redactor()(text)
