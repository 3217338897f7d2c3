"""Secrets never enter memory: known key and token shapes, credentials in URLs and command
lines, secret-named assignments (`DB_PASS=...`, `"password": "..."`, `PGPASSWORD=... psql`),
private key blocks, and anything the user wraps in <private>...</private> become typed
placeholders (`[REDACTED:kind]`) before a byte is written.

Idempotent: a placeholder is left alone, so redacting redacted text changes nothing (sync
versions do not flip-flop, and the store's pass after the capture worker's finds nothing).
Counts are kept per kind, never the secrets. Standard library only, because the capture hook
runs it (and the patterns are compiled on first use, not at import)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

PLACEHOLDER = re.compile(r"\[REDACTED:[a-z0-9_]+\]")
_ONLY_PLACEHOLDER = re.compile(r"^\[REDACTED:[a-z0-9_]+\]$")

# A rule: (kind, pattern, group to replace (0: the whole match), check). `check(match,
# value)` says whether this match is a secret (a string: yes, of that kind); None: always.
Check = Callable[["re.Match[str]", str], "bool | str"]
Rule = tuple[str, "re.Pattern[str]", int, Check | None]

# -- secret-named assignments -------------------------------------------------------------

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[_\-.\s]+")
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
    """path file filename files dir directory name names id ids type types length len size count min
    max ttl expiry expires expiration exp at on env var variable vars header headers field fields prefix
    suffix algorithm alg algo mode format url uri endpoint host hostname port user username login email
    region arn version enabled enable disabled disable required policy rotation limit limits timeout
    method provider domain server scope scopes audience issuer redirect callback strategy backend
    engine class module sock socket label hint help text message msg prompt placeholder description
    desc title error errors rules regex pattern input widget form column col table location source
    store storage manager helper handler validator reset changed updated created age days kind flag
    flags option options opts param params schema spec config conf settings template query ref
    reference index idx bytes bits chars lifetime retries attempts used usage count counter mask
    masked visible visibility strength confirm_label dialog button link page screen view route
    endpoint_url generator factory cache class_name encoding charset lookup store_path estimator
    budget window rate uses type_hint""".split()
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
_REFERENCE = re.compile(
    r"""^(?:\$|%[A-Za-z_(]|\{\{|<[^>]*>$|\*{3,}|x{6,}$|X{6,}$|\.{3}|…|!vault|\||>-?$|&|ENC\[)"""
)
_IDENT_CHAIN = re.compile(r"^[A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_][A-Za-z_]*)+$")
_LINE_START = re.compile(
    r"""(?:^|\n|\\n)[ \t]*(?:\d+(?:→|\t|:[ \t]?|\|)[ \t]*)?(?:[-*+][ \t]+)?"""
    r"""(?:(?:export|set|setx|ENV|declare(?:[ \t]+-\w+)*|readonly|local|typeset)[ \t]+|\$env:)?"""
    r"""(?:\\?["'])?$"""
)


def _name_is_secret(name: str) -> bool:
    bare = name.strip("\"'\\").lstrip("$")
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


def _code_like(match: re.Match[str], value: str) -> bool:
    """`token = get_token()`, `password = request.form["pw"]`, `key = settings.API_KEY`."""
    after = match.string[match.end() : match.end() + 1]
    if after in ("(", "[") or value.endswith(("(", ")", "[", "]", "()", ",")) and "(" in value:
        return True
    head = value.split(".")[0].split("(")[0].split("[")[0].lower()
    if head in _CODE_WORDS:
        return True
    if "(" in value or "[" in value:
        return True
    return bool(_IDENT_CHAIN.match(value))


def _secret_value(name: str, value: str, *, quoted: bool, op: str = "=", line_start: bool = False,
                  code: Callable[[str], bool] | None = None) -> bool:
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
    if code is not None and code(value):
        return False
    bare_name = name.strip("\"'\\")
    if op in ("=", ":=") and bare_name.isupper():  # an environment name: `DB_PASS=hunter2 psql`
        return True
    if line_start and not (op == ":" and " " in value):
        return True  # a line of its own: .env, YAML, ini, properties
    return _looks_random(value)


def _assignment(match: re.Match[str], value: str) -> bool | str:
    name = match.group("name")
    if not _name_is_secret(name):
        return False
    quoted = value[:1] in ("'", '"', "\\") and len(value) >= 2
    inner = value.strip("\\").strip("\"'").strip("\\") if quoted else value
    before = match.string[max(0, match.start() - 200) : match.start()]
    bare = name.strip("\"'\\")
    secret = _secret_value(
        name,
        inner,
        quoted=quoted,
        op=match.group("op").strip(),
        line_start=bool(_LINE_START.search(before)),
        code=lambda v: _code_like(match, v),
    )
    return ("env_secret" if bare.isupper() else True) if secret else False


# -- command lines ------------------------------------------------------------------------


def _not_reference(match: re.Match[str], value: str) -> bool:
    inner = value.strip("\"'")
    return bool(inner) and not _ONLY_PLACEHOLDER.match(inner) and not _REFERENCE.match(inner)


_VALUE = r"""(?:"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s"'`]+)"""
_OPT_NAMES = (
    r"password|passwd|pass|token|secret|api[-_]?key|access[-_]?token|auth[-_]?token|client[-_]?secret|"
    r"private[-_]?key|secret[-_]?key|access[-_]?key|(?:db|admin|root|master|sasl|proxy|http|ftp|smtp)"
    r"[-_]?password|oauth[-_]?token|bearer[-_]?token|api[-_]?token|refresh[-_]?token|passphrase"
)


def _rules() -> list[Rule]:
    c = re.compile
    env = r"(?<![A-Za-z0-9_.\-/$@])"
    return [
        # Blocks first: what the user marks private, then key material (an unterminated
        # block is a cut-off key: everything key-shaped after its BEGIN goes).
        ("private", c(r"<private>(?:.*?</private>|.*\Z)", re.S | re.I), 0, None),
        (
            "private_key",
            c(
                r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
                r"(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,.()\-]*)",
                re.S,
            ),
            0,
            None,
        ),
        ("private_key", c(r"(?m)^Private-Lines:\s*\d+(?:\s|\\[nr])+(?:[A-Za-z0-9+/=]+(?:\s|\\[nr])*)+"), 0, None),
        ("private_key", c(r"\bAGE-SECRET-KEY-1[0-9A-Z]{20,}"), 0, None),
        # Credentials in URLs: scheme://user:PASSWORD@host (a password may hold '@').
        (
            "url_password",
            c(r"(?i)\b([a-z][a-z0-9+.\-]{1,30}://[^\s:/@'\"<>]*:)(?!\[REDACTED:)([^\s/'\"<>]+)(@[^\s@/'\"<>]+)"),
            2,
            _not_reference,
        ),
        ("azure_sas", c(r"([?&]sig=)([A-Za-z0-9%/+=]{16,})"), 2, None),
        # Command lines.
        (
            "cli_password",
            c(rf"(?i)(--(?:{_OPT_NAMES})(?:=|[ \t]+))(?!-)(?!\[REDACTED:)({_VALUE})"),
            2,
            _not_reference,
        ),
        ("cli_password", c(r"(\b(?:mysql|mariadb)[\w-]*\b[^\n|;&]*?[ \t]-p)(?![\s\-])(\S+)"), 2, _not_reference),
        ("cli_password", c(r"(\bsshpass\b[^\n|;&]*?[ \t]-p[ \t]*)(?!-)(\S+)"), 2, _not_reference),
        ("cli_password", c(r"(\blogin\b[^\n|;&]*?[ \t]-p(?:=|[ \t]+))(?!-)(\S+)"), 2, _not_reference),
        ("cli_password", c(r"(\bredis-cli\b[^\n|;&]*?[ \t]-a[ \t]+)(?!-)(\S+)"), 2, _not_reference),
        (
            "cli_password",
            c(r"""(\b(?:curl|wget|http|https|xh)\b[^\n|;&]*?[ \t](?:-u|--user)(?:=|[ \t]*)['"]?[^\s:'"]*:)([^\s'"]+)"""),
            2,
            _not_reference,
        ),
        ("cli_password", c(r"""(-pass(?:in|out)?[ \t]+pass:)([^\s'"]+)"""), 2, _not_reference),
        ("cli_password", c(r"""(\bsmbclient\b[^\n|;&]*?[ \t]-U[ \t]*['"]?[^\s%'"]+%)([^\s'"]+)"""), 2, None),
        (
            "cli_password",
            c(r"""(ConvertTo-SecureString[ \t]+(?:-String[ \t]+)?)("[^"\n]+"|'[^'\n]+')(?=[^\n]*-AsPlainText)"""),
            2,
            _not_reference,
        ),
        (
            "cli_password",
            c(
                r"""(\b(?:echo|printf)[ \t]+(?:-[neE]+[ \t]+)?(?:'%s(?:\\n)?'[ \t]+|"%s(?:\\n)?"[ \t]+)?)"""
                r"""("[^"\n]+"|'[^'\n]+'|[^\s|'"]+)(?=[ \t]*\|[ \t]*(?:sudo[ \t]+)?[^\n|]*?"""
                r"""(?:--password-stdin|--pass(?:word)?-stdin|\bsudo[ \t]+-\w*S|\bchpasswd\b|\bpasswd\b|--stdin))"""
            ),
            2,
            _not_reference,
        ),
        # HTTP authorization.
        (
            "auth_header",
            c(r"(?i)(\bauthorization[\"']?[ \t]*[:=][ \t]*[\"']?(?:bearer|basic|token|bot|digest)[ \t]+)(?!\[REDACTED:)([A-Za-z0-9._~+/=\-]{6,})"),
            2,
            None,
        ),
        ("auth_header", c(r"(?i)(\bbearer[ \t]+)(?!\[REDACTED:)([A-Za-z0-9._~+/\-]{16,}=*)"), 2, None),
        ("connection_key", c(r"(?i)(\b(?:AccountKey|SharedAccessKey|SharedSecret)=)([^;\s\"']+)"), 2, None),
        (
            "xml_secret",
            c(
                r"(?i)(<(password|passwd|secret|token|api_?key|apikey|access_?key|secret_?key|client_?secret)>)"
                r"([^<\n]{1,300})(</\2>)"
            ),
            3,
            _not_reference,
        ),
        # Secret-named assignments: env lines (`     3→DB_PASS=...`, `export X_TOKEN=...`),
        # command prefixes (`PGPASSWORD=... psql`), YAML/JSON/ini/code keys.
        (
            "secret_assignment",
            c(
                env + r"""(?P<name>(?:\\?["'])?(?:\$env:)?(?i:[A-Za-z0-9_.\-]*(?:pass|pwd|pw|secret|token|key|cred|auth|sasl|pin)[A-Za-z0-9_.\-]*)(?:\\?["'])?)"""
                r"""(?P<op>[ \t]*(?::=|=>|=(?![=~>])|:(?![:/\\]))[ \t]*)"""
                r"""(?P<value>\\"(?:[^"\\\n]|\\[^"\n])*\\"|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[^\s"'`&<>,;]+(?:[,;][^\s"'`&<>,;]+)*)"""
            ),
            3,
            _assignment,
        ),
        # Known token shapes (prefixes let a cut-off one be recognised too).
        ("anthropic_key", c(r"\bsk-ant-[A-Za-z0-9_\-]{8,}"), 0, None),
        (
            "openai_key",
            c(r"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{8,}|\bsk-[A-Za-z0-9]{20,}(?:T3BlbkFJ[A-Za-z0-9]+)?"),
            0,
            None,
        ),
        ("stripe_key", c(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{8,}"), 0, None),
        ("stripe_key", c(r"\bwhsec_[A-Za-z0-9+/=]{16,}"), 0, None),
        ("github_token", c(r"\b(?:gh[pousr]_[A-Za-z0-9]{8,}|github_pat_[A-Za-z0-9_]{8,})"), 0, None),
        ("gitlab_token", c(r"\bgl(?:pat|dt|rt|ptt|ft|soat|cbt)-[A-Za-z0-9_\-]{12,}"), 0, None),
        ("aws_access_key", c(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA)[0-9A-Z]{16}\b"), 0, None),
        (
            "aws_secret_key",
            c(r"(?i)(aws_?secret_?access_?key|aws_?secret_?key|secretaccesskey)(\W{1,4})([A-Za-z0-9/+=]{40})"),
            3,
            None,
        ),
        ("aws_session_token", c(r"\b(?:FwoGZXIvYXdzE|IQoJb3JpZ2luX2Vj|FQoGZXIvYXdzE)[A-Za-z0-9/+=]{16,}"), 0, None),
        ("slack_token", c(r"\bxox[abposre]-[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Za-z0-9-]{10,}"), 0, None),
        (
            "webhook_url",
            c(
                r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]+"
                r"|https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]+"
                r"|https://[a-z0-9.\-]*webhook\.office\.com/webhookb2/[A-Za-z0-9@/_\-]+"
            ),
            0,
            None,
        ),
        ("google_api_key", c(r"\bAIza[0-9A-Za-z_\-]{30,}"), 0, None),
        ("google_oauth", c(r"\bGOCSPX-[A-Za-z0-9_\-]{20,}|\bya29\.[A-Za-z0-9_\-]{20,}|\b1//0[A-Za-z0-9_\-]{30,}"), 0, None),
        ("jwt", c(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), 0, None),
        ("sendgrid_key", c(r"\bSG\.[A-Za-z0-9_\-]{16,}(?:\.[A-Za-z0-9_\-]*)?"), 0, None),
        ("twilio_key", c(r"\bSK[0-9a-f]{32}\b"), 0, None),
        ("mailgun_key", c(r"\bkey-[0-9a-zA-Z]{32}\b"), 0, None),
        ("mailchimp_key", c(r"\b[0-9a-f]{32}-us\d{1,2}\b"), 0, None),
        ("npm_token", c(r"\bnpm_[A-Za-z0-9]{20,}"), 0, None),
        ("pypi_token", c(r"\bpypi-AgE[A-Za-z0-9_\-]{16,}"), 0, None),
        ("huggingface_token", c(r"\bhf_[A-Za-z0-9]{30,}"), 0, None),
        ("shopify_token", c(r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"), 0, None),
        ("digitalocean_token", c(r"\bdo[opr]_v1_[a-f0-9]{64}"), 0, None),
        ("databricks_token", c(r"\bdapi[a-f0-9]{32}(?:-\d)?\b"), 0, None),
        ("vault_token", c(r"\bhv[sbr]\.[A-Za-z0-9_\-]{24,}"), 0, None),
        ("doppler_token", c(r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{20,}"), 0, None),
        ("linear_key", c(r"\blin_(?:api|oauth)_[A-Za-z0-9]{32,}"), 0, None),
        ("notion_token", c(r"\bsecret_[A-Za-z0-9]{43}\b|\bntn_[A-Za-z0-9]{40,}"), 0, None),
        ("postman_key", c(r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}"), 0, None),
        ("newrelic_key", c(r"\bNRAK-[A-Z0-9]{27}\b"), 0, None),
        ("grafana_token", c(r"\bglsa_[A-Za-z0-9]{32}_[a-f0-9]{8}\b|\bglc_[A-Za-z0-9+/=]{32,}"), 0, None),
        ("atlassian_token", c(r"\bATATT3[A-Za-z0-9_\-=]{50,}"), 0, None),
        ("telegram_token", c(r"\b\d{8,10}:AA[A-Za-z0-9_\-]{33}\b"), 0, None),
        ("square_token", c(r"\b(?:sq0atp|sq0csp)-[A-Za-z0-9_\-]{22,}|\bEAAA[A-Za-z0-9_\-]{60}"), 0, None),
        ("age_key", c(r"\bAGE-SECRET-KEY-1[0-9A-Z]{20,}"), 0, None),
        # A cut-off token: a known prefix and what is left of it where the text was cut.
        (
            "truncated_secret",
            c(
                r"\b(?:gh[pousr]_|github_pat_|sk-ant-|sk-proj-|sk_live_|sk_test_|rk_live_|xox[abposr]-|glpat-|"
                r"npm_|pypi-|hf_|AKIA|ASIA|SG\.|whsec_|shpat_|dop_v1_|hvs\.|AIza|GOCSPX-|eyJ)[A-Za-z0-9_\-.+/=]*"
                r"(?=[ \t]*(?:…|\.\.\.|\[truncated\]|\\?\Z))"
            ),
            0,
            None,
        ),
        ("private_key", c(r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-{0,5}\Z"), 0, None),
    ]


_COMPILED: list[Rule] | None = None


def _shape_of(value: str) -> str | None:
    """The kind of token `value` is, when one of the shape rules covers all of it."""
    for name, pattern, group, check in rules():
        if group == 0 and check is None and name not in ("private", "truncated_secret"):
            m = pattern.match(value)
            if m and m.end() == len(value):
                return name
    return None



def rules() -> list[Rule]:
    global _COMPILED
    if _COMPILED is None:
        _COMPILED = _rules()
    return _COMPILED


class Redactor:
    """Counts what it replaced (never the secrets) so the audit can say how many."""

    def __init__(self, extra_patterns: Iterable[str] = ()) -> None:
        self.patterns: list[Rule] = list(rules())
        for i, pattern in enumerate(extra_patterns):
            self.patterns.append((f"custom_{i}", re.compile(pattern), 0, None))
        self.counts: Counter[str] = Counter()

    def __call__(self, text: str) -> str:
        if not text:
            return text
        for name, pattern, group, check in self.patterns:
            text = pattern.sub(lambda m, n=name, g=group, c=check: self._replace(m, n, g, c), text)
        return text

    def _replace(self, match: re.Match[str], name: str, group: int, check: Check | None) -> str:
        value = match.group(group)
        if not value or _ONLY_PLACEHOLDER.match(value.strip("\"'\\")):
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
            for q in ('\\"', '"', "'"):
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
            return [self.redact_obj(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self.redact_obj(v) for v in value)
        if isinstance(value, dict):
            return self._redact_dict(value)
        return value

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
