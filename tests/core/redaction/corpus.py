"""The redaction corpus: realistic (fake but well-formed) secrets, each in the line a person or
an agent would write it in, and ordinary text that must come through untouched.

The secrets are made at run time from a fixed seed, so none is written in this repository (a
well-formed token in a source file trips secret scanners, and one that looked real could be
taken for a leak), and every run checks the same ones."""

from __future__ import annotations

import base64
import hashlib
import random
import string
import textwrap
import uuid
from dataclasses import dataclass, field

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


@dataclass(frozen=True)
class Secret:
    kind: str  # what it is (a shape, not necessarily the placeholder's kind)
    line: str  # the text as it is written: an env line, a command, a config line, prose
    needles: tuple[str, ...]  # what must never be found on disk (the secret, or its parts)
    command: str | None = None  # how a shell command holds it, when not `line` itself
    multiline: bool = False

    def shell(self) -> str:
        """The line inside a Bash tool call."""
        if self.command is not None:
            return self.command
        if self.multiline:
            return f"cat > secret.txt <<'EOF'\n{self.line}\nEOF"
        return self.line


@dataclass
class _Gen:
    rng: random.Random = field(default_factory=lambda: random.Random(20261126))

    def s(self, n: int, alphabet: str = ALNUM) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def password(self, n: int = 14) -> str:
        """A password a person picks: letters, digits and a symbol or two, no quote or space."""
        while True:
            core = self.s(n - 2) + self.rng.choice("!*_-.~") + self.rng.choice(string.digits)
            chars = list(core)
            self.rng.shuffle(chars)
            pw = "".join(chars)
            if pw[0].isalnum() and any(c.isupper() for c in pw) and any(c.islower() for c in pw):
                return pw

    def urlpass(self, n: int = 16) -> str:
        while True:
            pw = self.s(n, ALNUM)
            if any(c.isdigit() for c in pw) and any(c.isupper() for c in pw):
                return pw

    def pem_body(self, lines: int = 8) -> list[str]:
        raw = bytes(self.rng.randrange(256) for _ in range(48 * lines))
        text = base64.b64encode(raw).decode()
        return [text[i : i + 64] for i in range(0, len(text), 64)]


def secrets_corpus() -> list[Secret]:
    g = _Gen()
    out: list[Secret] = []

    def add(kind: str, line: str, *needles: str, command: str | None = None, multiline: bool = False) -> None:
        out.append(Secret(kind, line, tuple(needles), command, multiline))

    # -- provider keys and tokens -------------------------------------------------------------
    v = "sk-ant-api03-" + g.s(93, URLSAFE) + "AA"
    add("anthropic", f"export ANTHROPIC_API_KEY={v}", v)
    v = "sk-proj-" + g.s(74, URLSAFE) + "T3BlbkFJ" + g.s(74, URLSAFE)
    add("openai project key", f"OPENAI_API_KEY={v}", v)
    v = "sk-" + g.s(20) + "T3BlbkFJ" + g.s(20)
    add("openai legacy key in code", f'client = OpenAI(api_key="{v}")', v)
    v = "ghp_" + g.s(36)
    add("github token in a remote URL", f"git remote set-url origin https://{v}@github.com/acme/api.git", v)
    v = "github_pat_" + g.s(22) + "_" + g.s(59)
    add("github fine-grained token", f"GITHUB_TOKEN={v}", v)
    v = "gho_" + g.s(36)
    add(
        "github oauth token in a header", f'curl -H "Authorization: token {v}" https://api.github.com/user', v
    )
    v = "ghs_" + g.s(36)
    add(
        "github app token as URL password",
        f"git clone https://x-access-token:{v}@github.com/acme/infra.git",
        v,
    )
    v = "glpat-" + g.s(20, URLSAFE)
    add(
        "gitlab token in a header",
        f'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.example.com/api/v4/projects',
        v,
    )
    v = "AKIA" + g.s(16, string.ascii_uppercase + "234567")
    add("aws access key id", f"aws_access_key_id = {v}", v)
    v = g.s(40, B64)
    add("aws secret access key", f"aws_secret_access_key = {v}", v)
    v = "FwoGZXIvYXdzE" + g.s(300, B64)
    add("aws session token in a command", f"AWS_SESSION_TOKEN={v} aws s3 ls s3://acme-backups", v)
    v = "sk_live_" + g.s(99)
    add("stripe secret key", f"STRIPE_SECRET_KEY={v}", v)
    v = "rk_live_" + g.s(99)
    add(
        "stripe restricted key in prose",
        f"Rotated the restricted key, the new one is {v} (old one revoked).",
        v,
    )
    v = "whsec_" + g.s(32)
    add("stripe webhook secret", f"STRIPE_WEBHOOK_SECRET={v}", v)
    v = "SG." + g.s(22, URLSAFE) + "." + g.s(43, URLSAFE)
    add("sendgrid key", f"SENDGRID_KEY={v}", v)
    v = "SG." + g.s(22, URLSAFE) + "." + g.s(43, URLSAFE)
    add("sendgrid key in code", f'sg = SendGridAPIClient("{v}")', v)
    v = f"xoxb-{g.s(12, string.digits)}-{g.s(13, string.digits)}-{g.s(24)}"
    add("slack bot token", f"SLACK_BOT_TOKEN={v}", v)
    upper = string.ascii_uppercase + string.digits
    hook = f"T{g.s(10, upper)}/B{g.s(10, upper)}"
    tail = g.s(24)
    v = f"https://hooks.slack.com/services/{hook}/{tail}"
    add(
        "slack webhook URL",
        f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"deployed\"}}' {v}",
        tail,
    )
    tail = g.s(68, URLSAFE)
    v = f"https://discord.com/api/webhooks/{g.s(18, string.digits)}/{tail}"
    add("discord webhook URL", f"DISCORD_WEBHOOK={v}", tail)
    v = "AIza" + g.s(35, URLSAFE)
    add(
        "google api key in a JS config",
        f'const firebaseConfig = {{ apiKey: "{v}", projectId: "acme-prod" }};',
        v,
    )
    v = "GOCSPX-" + g.s(28, URLSAFE)
    add("google oauth client secret", f'"client_secret": "{v}",', v)

    def b64url(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).decode().rstrip("=")

    v = ".".join(
        (
            b64url(b'{"alg":"HS256","typ":"JWT"}'),
            b64url(('{"sub":"' + g.s(12) + '","role":"admin","exp":1893456000}').encode()),
            b64url(bytes(g.rng.randrange(256) for _ in range(32))),
        )
    )
    add("jwt as a bearer token", f"Authorization: Bearer {v}", v)
    v2 = ".".join(
        (
            b64url(b'{"alg":"RS256","kid":"k1"}'),
            b64url(('{"uid":"' + g.s(10) + '","scope":"billing"}').encode()),
            b64url(bytes(g.rng.randrange(256) for _ in range(64))),
        )
    )
    add("jwt in prose", f"The session cookie the browser sent was {v2}, which decodes to the admin user.", v2)
    v = "npm_" + g.s(36)
    add("npm token in .npmrc", f"//registry.npmjs.org/:_authToken={v}", v)
    v = "pypi-AgEIcHlwaS5vcmc" + g.s(120, URLSAFE)
    add("pypi token in .pypirc", f"password = {v}", v)
    v = "hf_" + g.s(34)
    add("huggingface token on a command line", f"huggingface-cli login --token {v}", v)
    v = "SK" + g.s(32, HEX)
    add("twilio api key", f"TWILIO_API_KEY={v}", v)
    v = g.s(32, HEX)
    add("twilio auth token", f"TWILIO_AUTH_TOKEN={v}", v)
    v = "key-" + g.s(32)
    add(
        "mailgun key with curl --user",
        f"curl -s --user 'api:{v}' https://api.mailgun.net/v3/mg.example.com/messages",
        v,
    )
    v = g.s(32, HEX) + "-us14"
    add("mailchimp key in prose", f"mailchimp api key is {v} for the newsletter list", v)
    v = "shpat_" + g.s(32, HEX)
    add("shopify admin token", f"SHOPIFY_ACCESS_TOKEN={v}", v)
    v = "dop_v1_" + g.s(64, HEX)
    add("digitalocean token with doctl", f"doctl auth init --access-token {v}", v)
    v = "dapi" + g.s(32, HEX)
    add("databricks token", f"DATABRICKS_TOKEN={v}", v)
    v = "hvs." + g.s(90, URLSAFE)
    add("vault token", f"export VAULT_TOKEN={v}", v)
    v = "dp.pt." + g.s(43)
    add("doppler token", f"doppler configure set token {v}", v)
    v = "lin_api_" + g.s(40)
    add("linear key", f"LINEAR_API_KEY={v}", v)
    v = "ntn_" + g.s(46)
    add("notion token in a header", f'-H "Authorization: Bearer {v}"', v)
    v = f"PMAK-{g.s(24, HEX)}-{g.s(34, HEX)}"
    add("postman key", f"postman login --with-api-key {v}", v)
    v = "NRAK-" + g.s(27, string.ascii_uppercase + string.digits)
    add("new relic key", f"NEW_RELIC_API_KEY={v}", v)
    v = f"glsa_{g.s(32)}_{g.s(8, HEX)}"
    add("grafana service account token", f"GRAFANA_TOKEN={v}", v)
    v = f"{g.s(10, string.digits)}:AA{g.s(33, URLSAFE)}"
    add("telegram bot token in a URL", f"curl https://api.telegram.org/bot{v}/getMe", v.split(":")[1])
    v = "sq0atp-" + g.s(22, URLSAFE)
    add("square token", f"SQUARE_ACCESS_TOKEN={v}", v)
    v = "AGE-SECRET-KEY-1" + g.s(58, string.ascii_uppercase + string.digits)
    add(
        "age secret key",
        f"# created: 2026-11-20\n# public key: age1{g.s(58).lower()}\n{v}",
        v,
        multiline=True,
    )
    v = g.s(32, HEX)
    add("datadog key", f"DD_API_KEY={v}", v)
    v = g.s(40, URLSAFE)
    add("cloudflare token", f"CLOUDFLARE_API_TOKEN={v} wrangler deploy", v)
    v = str(uuid.UUID(int=g.rng.getrandbits(128)))
    add("heroku api key", f"HEROKU_API_KEY={v}", v)

    # -- key blocks ----------------------------------------------------------------------------
    body = g.pem_body(12)
    block = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(body) + "\n-----END RSA PRIVATE KEY-----"
    add("rsa private key", block, body[0], body[5], body[-1], multiline=True)
    body = g.pem_body(8)
    block = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(body) + "\n-----END OPENSSH PRIVATE KEY-----"
    add("openssh private key", block, body[0], body[4], body[-1], multiline=True)
    body = g.pem_body(10)
    block = (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
        + "\n".join(body)
        + f"\n={g.s(4, B64)}\n-----END PGP PRIVATE KEY BLOCK-----"
    )
    add("pgp private key block", block, body[0], body[5], body[-1], multiline=True)
    body = g.pem_body(6)
    escaped = "-----BEGIN PRIVATE KEY-----\\n" + "\\n".join(body) + "\\n-----END PRIVATE KEY-----\\n"
    email = "deploy@acme-prod.iam.gserviceaccount.com"
    add(
        "service account JSON (escaped newlines)",
        f'{{"type": "service_account", "private_key": "{escaped}", "client_email": "{email}"}}',
        body[0],
        body[3],
        body[-1],
    )
    body = g.pem_body(5)
    block = "-----BEGIN EC PRIVATE KEY-----\n" + "\n".join(body) + "\n-----END EC PRIVATE KEY-----"
    add("ec private key", block, body[0], body[-1], multiline=True)

    # -- credentials in URLs ----------------------------------------------------------------
    v = g.urlpass()
    add("postgres URL password", f"DATABASE_URL=postgres://app:{v}@db.internal:5432/app", v)
    v = g.urlpass()
    add("https user:token URL", f"git clone https://deploy:{v}@git.example.com/acme/api.git", v)
    v = g.urlpass()
    add("redis URL, password only", f"redis-cli -u redis://:{v}@cache.internal:6379/0 ping", v)
    v = g.urlpass()
    add(
        "mongodb+srv URL",
        f'mongosh "mongodb+srv://admin:{v}@cluster0.example.mongodb.net/test"',
        v,
    )
    v = g.urlpass()
    add("amqp URL in prose", f"the broker is at amqp://worker:{v}@mq.internal:5672/ for now", v)

    # -- command lines --------------------------------------------------------------------------
    v = g.password()
    add("PGPASSWORD prefix", f"PGPASSWORD={v} psql -h db.internal -U app -c 'select 1'", v)
    v = g.password()
    add("MYSQL_PWD prefix", f"MYSQL_PWD={v} mysqldump -u root app > dump.sql", v)
    v = g.password()
    add("mysql -p", f"mysql -h db.internal -u root -p{v} app", v)
    v = g.password()
    add("curl -u", f"curl -u admin:{v} https://jenkins.example.com/api/json", v)
    v = g.password()
    add("sshpass -p", f"sshpass -p '{v}' ssh deploy@build-01.internal", v)
    v = g.password()
    add("docker login -p", f"docker login -u ci -p {v} registry.example.com", v)
    v = g.password()
    add("echo into --password-stdin", f"echo {v} | docker login ghcr.io -u ci --password-stdin", v)
    v = g.password()
    add("--password=", f"mongodump --uri mongodb://db.internal --username admin --password={v}", v)
    v = g.password()
    add("sudo -S", f"echo '{v}' | sudo -S apt-get update", v)
    v = g.password()
    add("redis-cli -a", f"redis-cli -h cache.internal -a {v} info", v)
    v = g.password()
    add("openssl -passin", f"openssl rsa -in key.pem -passin pass:{v} -out plain.pem", v)
    v = g.password()
    add("smbclient -U user%pass", f"smbclient //fs01/share -U backup%{v} -c ls", v)

    # -- secret-named assignments ---------------------------------------------------------------
    v = g.password()
    add("DB_PASS in a .env", f"DB_PASS={v}", v)
    v = g.password()
    add("compose environment (YAML)", f"    POSTGRES_PASSWORD: {v}", v)
    v = g.password()
    add("YAML password key", f"  password: {v}", v)
    v = g.s(40)
    add("JSON client_secret", f'{{"client_id": "web-app", "client_secret": "{v}"}}', v)
    v = g.s(50, ALNUM + "!@%^*(-_=+)")
    add("django SECRET_KEY", f"SECRET_KEY = '{v}'", v)
    v = g.password()
    add("ini password", f"password = {v}", v)
    v = g.password()
    add(
        "connection string Password=",
        f"Server=tcp:db.example.com,1433;Database=app;User Id=sa;Password={v};Encrypt=true;",
        v,
    )
    user_pw = f"svc-report:{g.password()}"
    b = base64.b64encode(user_pw.encode()).decode()
    add("basic auth header", f"Authorization: Basic {b}", b, user_pw.split(":")[1])
    v = g.password()
    add("private tag", f"<private>my bank PIN and card password is {v}</private>", v)
    v = g.password()
    add("XML password element", f"<password>{v}</password>", v)
    v = g.password()
    add(".netrc", f"machine api.example.com login deploy password {v}", v)
    v = g.s(86, B64) + "=="
    add(
        "azure storage connection string",
        f"DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey={v};EndpointSuffix=core.windows.net",
        v,
    )
    v = g.s(60, B64) + "="
    add("kubeconfig client-key-data", f"    client-key-data: {v}", v)
    v = g.password()
    add("powershell secure string", f'$pw = ConvertTo-SecureString "{v}" -AsPlainText -Force', v)
    v = g.s(48, B64)
    add("go struct literal", f'cfg := Config{{APIKey: "{v}", Region: "eu-west-1"}}', v)

    # -- a review of what the rules missed, 2026-11-28 (evening) --------------------------------
    head = b64url(b'{"alg":"HS256","typ":"JWT"}')
    payload = b64url(('{"sub":"' + g.s(12) + '","org":"acme"}').encode())
    sig = b64url(bytes(g.rng.randrange(256) for _ in range(32)))
    add(
        "jwt wrapped at its dots",
        f"Authorization: Bearer {head}.\n    {payload}.\n    {sig}",
        payload,
        sig,
        multiline=True,
    )
    v = "ghp_" + g.urlpass(36)
    add(
        "github token glued to the word before",
        f"echo tok{v} >> ci.log",
        v,
    )
    v = g.s(64, HEX)
    add(
        "S3 presigned URL",
        "curl -o dump.sql 'https://acme-backups.s3.amazonaws.com/db.sql?X-Amz-Algorithm=AWS4-HMAC-SHA256"
        f"&X-Amz-Date=20261128T101500Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={v}'",
        v,
    )
    v = g.s(80, URLSAFE) + "~" + g.s(20, URLSAFE)
    add(
        "CloudFront signed URL",
        f"https://d111abc.cloudfront.net/report.pdf?Expires=1893456000&Signature={v}&Key-Pair-Id=K2JCJMDEHXQW5F",
        v,
    )
    v = "s." + g.urlpass(24)
    add("vault token before 1.10", f"vault login {v}", v)
    v = g.password()
    add("gh secret set --body", f"gh secret set DEPLOY_HOOK --body {v} --repo acme/api", v)
    v = g.password()
    add("fly secrets set", f"fly secrets set SESSION_SALT={v} -a acme-api", v)
    v = g.password()
    add("kubectl secret --from-literal", f"kubectl create secret generic smtp --from-literal=login={v}", v)
    v = g.password()
    add("vault kv put", f"vault kv put secret/billing stripe={v}", v)
    v = g.password()
    add(
        "aws secretsmanager --secret-string",
        f"aws secretsmanager put-secret-value --secret-id prod/db --secret-string {v}",
        v,
    )
    v = g.password()
    add(
        "az keyvault secret set --value",
        f"az keyvault secret set --vault-name acme-kv --name db --value {v}",
        v,
    )
    v = g.password()
    add("password told in a sentence", f"The new wifi password is {v}, tell the guests.", v)
    v = g.s(8, string.digits)
    add("door code told in a sentence", f"The garage door code is {v} until Friday.", v)
    v = g.s(8, string.digits)
    add("Chinese: a card PIN in a sentence", f"我的银行卡密码是{v}，别告诉别人。", v)
    v = g.password()
    add("Chinese: a changed password", f"路由器管理员密码改成了 {v}", v)
    v = g.password()
    add("German: a password in a sentence", f"Das WLAN-Passwort lautet {v}.", v)
    v = g.password()
    add("Japanese: a password in a sentence", f"サーバーのパスワードは{v}です。", v)
    v = g.password()
    add("Korean: a password in a sentence", f"관리자 비밀번호는 {v} 입니다.", v)
    v = g.password()
    add("French: a password in a sentence", f"Le mot de passe du routeur est {v}.", v)
    v = g.password()
    add("Spring XML property", f'<property name="password" value="{v}"/>', v)
    v = g.password()
    add(".NET appSettings, value first, over lines", f'<add\n    value="{v}"\n    key="SmtpPassword" />', v)
    v = g.password()
    add(
        "Kubernetes env entry",
        f"        env:\n        - name: DB_PASSWORD\n          value: {v}\n"
        "        - name: PORT\n          value: '8080'",
        v,
        multiline=True,
    )
    v = g.password()
    add("ECS environment entry", f'"environment": [{{"name": "STRIPE_SECRET_KEY", "value": "{v}"}}]', v)
    v = g.password()
    add("npm config set of an auth token", f"npm config set //registry.npmjs.org/:_authToken {v}", v)
    v = g.password()
    add("htpasswd in batch mode", f"htpasswd -nbB admin {v} > .htpasswd", v)
    return out


# -- ordinary text: nothing in it may be redacted ----------------------------------------------


def ordinary_snippets() -> list[str]:
    """At least 200 snippets of what sessions are made of: git SHAs, UUIDs, lockfile hashes,
    base64 test data, URLs without credentials, code that handles secrets without holding one,
    prose about passwords and tokens, logs, paths."""
    rng = random.Random(7)
    out: list[str] = []

    def sha(text: str) -> str:
        return hashlib.sha1(text.encode()).hexdigest()

    for i in range(25):  # git
        s = sha(f"commit {i}")
        out.append(
            [
                f"commit {s}\nAuthor: Dana <dana@example.com>\nDate:   Tue Nov 3 10:0{i % 10}:00 2026",
                f"git checkout {s[:12]} -- src/billing/export.py",
                f"{s[:7]} Fix the retry loop in the payment worker (#{1200 + i})",
                f"git cherry-pick {s}",
                f"HEAD is now at {s[:7]} Bump version to 1.{i}.0",
            ][i % 5]
        )
    for i in range(20):  # UUIDs and ids
        u = uuid.UUID(int=rng.getrandbits(128))
        out.append(
            [
                f"session_id={u}",
                f"Created tenant {u} in region eu-west-1",
                f'{{"request_id": "{u}", "status": 200, "duration_ms": {rng.randrange(900)}}}',
                f"DELETE FROM jobs WHERE id = '{u}';",
            ][i % 4]
        )
    for i in range(20):  # lockfile integrity hashes and checksums
        digest = base64.b64encode(hashlib.sha512(f"pkg{i}".encode()).digest()).decode()
        h256 = hashlib.sha256(f"wheel{i}".encode()).hexdigest()
        out.append(
            [
                f'  resolved "https://registry.yarnpkg.com/left-pad/-/left-pad-1.{i}.0.tgz#{sha(str(i))}"\n'
                f"  integrity sha512-{digest}",
                f'"integrity": "sha512-{digest}",',
                f"requests==2.32.{i} \\\n    --hash=sha256:{h256}",
                f"{h256}  dist/memoryd-0.{i}.0-py3-none-any.whl",
            ][i % 4]
        )
    for i in range(15):  # base64 test data and blobs
        blob = base64.b64encode(bytes(rng.randrange(256) for _ in range(30 + i))).decode()
        out.append(
            [
                f'PNG_PIXEL = "{blob}"',
                f"assert decode('{blob}') == expected",
                f"data:image/png;base64,{blob}",
                f'fixture = {{"payload": "{blob}", "encoding": "base64"}}',
                f"echo {blob} | base64 -d > sample.bin",
            ][i % 5]
        )
    urls = [
        "https://github.com/acme/api/pull/1423",
        "https://docs.python.org/3/library/re.html#re.sub",
        "http://localhost:8080/health",
        "postgres://db.internal:5432/app",
        "https://registry.npmjs.org/left-pad",
        "redis://cache.internal:6379/0",
        "https://example.com/search?q=token+bucket&page=2",
        "ssh://git@github.com/acme/infra.git",
        "git@github.com:acme/api.git",
        "https://pypi.org/project/detect-secrets/",
        "https://api.stripe.com/v1/charges",
        "http://127.0.0.1:5000/api/v1/users?limit=50&offset=100",
        "https://s3.eu-west-1.amazonaws.com/acme-backups/2026-11-03/db.dump",
        "https://hooks.example.com/ci/notify",
        "mongodb://db.internal:27017/app?replicaSet=rs0",
    ]
    for u in urls:
        out.append(f"See {u} for the details.")
    code = [
        'password = request.form["password"]',
        'token = os.environ.get("GITHUB_TOKEN")',
        "api_key = settings.STRIPE_API_KEY",
        "if not check_password(user, password):\n    raise PermissionDenied",
        "const token = await getToken();",
        "headers = {'Authorization': f'Bearer {token}'}",
        "def rotate_secret(name: str) -> None:",
        "password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
        "max_tokens = 1024",
        "token_type = 'bearer'",
        "SECRET_KEY = os.environ['DJANGO_SECRET_KEY']",
        "export AWS_PROFILE=staging",
        "DB_HOST=db.internal\nDB_PORT=5432\nDB_NAME=app\nDB_USER=app",
        "password: ${POSTGRES_PASSWORD}",
        "STRIPE_SECRET_KEY=$(vault kv get -field=key secret/stripe)",
        "client_secret = get_secret('oauth/client')",
        "if token is None:\n    return 401",
        "password_field = forms.CharField(widget=forms.PasswordInput)",
        "self.api_key = api_key",
        "key = cache_key(user.id, 'profile')",
        "for key, value in sorted(items.items()):",
        "sort(key=lambda r: r.created_at)",
        "tokenizer = AutoTokenizer.from_pretrained(model_name)",
        "num_tokens = len(tokens)",
        "auth = HTTPBasicAuth(username, password)",
        "PASSWORD_MIN_LENGTH = 12",
        "TOKEN_TTL_SECONDS = 3600",
        'secret_name = "prod/db"',
        "credentials = service_account.Credentials.from_service_account_file(path)",
        "kubectl create secret generic db --from-env-file=.env",
        "getpass.getpass('Password: ')",
        "read -s -p 'Password: ' PASSWORD",
        'psql -h db.internal -U app -W -c "select 1"',
        "mysql -u root -p app",
        "docker login ghcr.io -u ci --password-stdin < token.txt",
        "ssh -i ~/.ssh/id_ed25519 deploy@build-01.internal",
        "docker run -p 8080:80 -u 1000:1000 nginx",
        'curl -u "$USER:$PASS" https://jenkins.example.com/api/json',
        "gh auth login --with-token < ~/.config/gh/token",
        "aws sts get-session-token --duration-seconds 3600",
        "The password reset email goes out through SendGrid.",
        "Tokens expire after an hour; the client refreshes them.",
        "Never commit .env files; the secret scanner blocks the push.",
        "Use a token bucket to rate-limit the export endpoint.",
        "The API key rotation runbook is in docs/runbooks/keys.md.",
        "password: required, at least 12 characters",
        "Note on the password: it must be rotated every 90 days.",
        "secret: see the vault, never paste it here",
        "token: expired, so the job retried with a fresh one",
        "PWD=/home/dana/src/api",
        "OLDPWD=/home/dana",
        "SSH_AUTH_SOCK=/run/user/1000/ssh-agent.socket",
        "KEY_PATH=/etc/ssl/private/server.key",
        "AWS_REGION=eu-west-1",
        "GITHUB_TOKEN_FILE=/run/secrets/github_token",
        "TOKEN_URL=https://auth.example.com/oauth/token",
        "api_key_header = 'X-API-Key'",
        "access_token_expires_at = now + timedelta(hours=1)",
        "is_secret = True",
        "password = None",
        "token = ''",
        "--password-file /run/secrets/db",
        "sshpass -f ~/.sshpass ssh deploy@build-01.internal",
        "Bearer tokens go in the Authorization header.",
        "the bearer of this letter",
        "-----BEGIN PUBLIC KEY-----",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGz1x0Zx2qL8vN5m dana@laptop",
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUX\n-----END CERTIFICATE-----",
        "Successfully installed pydantic-2.9.2 pydantic-core-2.23.4",
        "sk-learn is not a package name; use scikit-learn",
        "The ghp_ prefix marks a GitHub personal token.",
        "sk_live_ keys are live Stripe keys; sk_test_ are test keys.",
        "SELECT id, email FROM users WHERE api_key_id = $1",
        'ERROR: relation "tokens" does not exist',
        "FAILED tests/test_auth.py::test_password_reset - AssertionError",
        '  File "/app/auth.py", line 42, in verify_token',
        "Traceback (most recent call last):",
        "WARNING: token refresh took 1.2s",
        "INFO 2026-11-03 10:01:02 worker started pid=4242",
        "12:00:01 GET /api/v1/users 200 14ms",
        '2026-11-03T10:01:02.123Z level=info msg="session opened" user=dana',
        "/home/dana/.config/memoryd/config.toml",
        "C:\\Users\\dana\\AppData\\Local\\memoryd",
        "src/auth/password_reset.py",
        "tests/test_tokens.py::test_expiry PASSED",
        "npm install --save-dev @types/node@20.11.0",
        "pip install 'pydantic>=2.6' 'sqlmodel>=0.0.22'",
        "The build took 3m 42s on the 2-core runner.",
        "Renamed retention_days to keep_days in config.py.",
        "用户喜欢用 Python, 密码至少 12 位",
        "Passwort vergessen? Link zum Zurücksetzen anfordern.",
        "const [token, setToken] = useState<string | null>(null);",
        "type Credentials = { username: string; password: string };",
        "fn verify(token: &str) -> Result<Claims, Error> {",
        "func (c *Client) SetToken(token string) { c.token = token }",
        'password := os.Getenv("DB_PASSWORD")',
        'let secret = std::env::var("APP_SECRET")?;',
        "@app.post('/login')\ndef login(username: str, password: str):",
        "    api_key: SecretStr",
        "    password: str = Field(min_length=12)",
        "  token:\n    type: string\n    description: The access token",
        "  password:\n    required: true",
        '<input type="password" name="password" autocomplete="current-password">',
        '<label for="token">API token</label>',
        "Set-Cookie: sessionid=; Max-Age=0; Path=/",
        "X-Request-Id: 6f1c2b7a-93d4-4e0f-a2b1-0c9d8e7f6a5b",
        "Content-Type: application/json; charset=utf-8",
        'ETag: "33a64df551425fcc55e4d42a148795d9f25f89d4"',
        'If-None-Match: W/"0815"',
        "cache-control: max-age=3600, public",
        'export PATH="$HOME/.local/bin:$PATH"',
        "export NODE_OPTIONS=--max-old-space-size=4096",
        "TZ=UTC date +%s",
        "LC_ALL=C sort -u words.txt",
        "CI=true npm test",
        "git config --global user.email dana@example.com",
        "chmod 600 ~/.ssh/id_ed25519",
        "openssl rand -hex 32 > .secret  # generated on the server, not here",
        "Run `memoryd mark-sensitive .` before importing the key.",
        "The token count for the prompt was 1,842.",
        "Passed 42 tests in 3.1s",
        "version: '3.9'\nservices:\n  db:\n    image: postgres:16",
        "[tool.ruff]\nline-length = 110",
        "FROM python:3.11-slim\nENV PYTHONDONTWRITEBYTECODE=1",
        "import hashlib\nhashlib.sha256(b'abc').hexdigest()",
        "md5sum: 9e107d9d372bb6826bd81d3542a419d6",
        "sha256:5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03",
        "docker pull nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
        "Object id 5f8d0d55b54764421b7156c3 not found",
        "Order #A1B2C3D4 shipped",
        "iPhone15,2 iOS 18.1",
        "The meeting is at 15:00 in room B2.",
        "Fixed a typo in README.md",
        "Add exponential backoff with jitter to the retry loop",
        "Coverage went from 81% to 87%.",
        # Sentences about secrets that hold none (the prose rule's false friends).
        "The password is required and must be at least 12 characters.",
        "The exit code is 137 when the OOM killer fires.",
        "The API key is in 1Password under 'Stripe prod'.",
        "Status code is 404 for a missing invoice.",
        "The secret is to warm the pan first.",
        "密码是用 bcrypt 存的，不可逆。",
        "验证码是 6 位数字，5 分钟内有效",
        "The PIN code is 4 digits long.",
        "Die PIN ist 4-stellig.",
        "The token is base64-encoded, not encrypted.",
        "The password is SHA-256 hashed with a per-user salt.",
        "The access token is JWT-formatted and expires in an hour.",
        "The auth token is per-user, never shared.",
        "パスワードは8文字以上にしてください。",
        "비밀번호는 8자 이상이어야 합니다.",
        "Le mot de passe est trop court.",
        "s.Substring(0, 12) returns the prefix",
        "aws ssm put-parameter --name /acme/region --type String --value eu-west-1",
        "gh secret list --repo acme/api",
        "fly secrets list -a acme-api",
        "The zip code is 94107 and the area code is 415.",
        "Our license key is printed on the box.",
    ]
    out += code
    for _ in range(20):  # prose about the work, with numbers and names
        out.append(
            rng.choice(
                [
                    "The export now streams invoices in batches of {n} instead of loading them all.",
                    "Migration {n:03d} adds an index on jobs(status, run_at).",
                    "p95 latency dropped from {n} ms to {m} ms after the cache fix.",
                    "Ticket ACME-{n}: the webhook retries twice, then gives up.",
                    "Renamed the flag --keep-days (was --retention-days) in release 2.{m}.",
                ]
            ).format(n=rng.randrange(100, 9999), m=rng.randrange(1, 99))
        )
    for i in range(10):  # wrapped paragraphs
        out.append(
            textwrap.fill(
                "We decided to keep the tokens of the search index in a separate table so that a "
                "rebuild never blocks writers; the password reset flow stays as it is, and the API "
                f"key header is documented for partners (revision {i}).",
                72,
            )
        )
    # Entries of env lists that hold no secret: ordinary names, values kept elsewhere.
    out += [
        "env:\n- name: LOG_LEVEL\n  value: debug\n- name: DB_HOST\n  value: db.internal",
        "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password",
        '"environment": [{"name": "PORT", "value": "8080"}, {"name": "REGION", "value": "eu-west-1"}]',
        '"secrets": [{"name": "DB_PASSWORD", "valueFrom": "arn:aws:ssm:eu-west-1:1:parameter/db"}]',
    ]
    return out
