"""The curated names the rules know: common libraries, tools, languages, services,
organizations and places, each with its type, the slot it fills (a "frontend framework":
two different ones in two preferences may mean one replaced the other) and its other
spellings. Spellings that differ only in case, punctuation or a "js" suffix need no
alias: `norm` folds them ("React", "react.js", "ReactJS" -> "react")."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache

TYPES = ("person", "organization", "place", "library", "tool", "project", "concept")


@dataclass(frozen=True)
class Known:
    name: str
    type: str
    category: str
    aliases: tuple[str, ...]
    # A common word as well ("Solid", "Go", "Express"): only its capitalised spelling counts.
    ambiguous: bool = False

    @property
    def id(self) -> str:
        return entity_id(self.type, self.name)


# name | type | category | other spellings (comma-separated) | "?" when it is also a common word
_TABLE = """
React|library|frontend framework||
Solid|library|frontend framework|SolidJS|?
Vue|library|frontend framework|Vue 3|
Angular|library|frontend framework|AngularJS|
Svelte|library|frontend framework|SvelteKit|
Preact|library|frontend framework||
Ember|library|frontend framework||?
Qwik|library|frontend framework||
Lit|library|frontend framework||?
htmx|library|frontend framework||
Alpine.js|library|frontend framework|Alpine|
jQuery|library|frontend framework||
Next.js|library|web meta-framework|Next|?
Nuxt|library|web meta-framework||
Remix|library|web meta-framework||?
Astro|library|web meta-framework||
Gatsby|library|web meta-framework||
Redux|library|state management|Redux Toolkit|
MobX|library|state management||
Zustand|library|state management||
Recoil|library|state management||
Tailwind|library|css framework|Tailwind CSS,TailwindCSS|
Bootstrap|library|css framework||?
Sass|library|css framework|SCSS|
Django|library|python web framework||
Flask|library|python web framework||?
FastAPI|library|python web framework||
Starlette|library|python web framework||
Pyramid|library|python web framework||?
Express|library|node web framework|Express.js|?
Koa|library|node web framework||
Fastify|library|node web framework||
NestJS|library|node web framework|Nest|?
Hono|library|node web framework||
Rails|library|ruby web framework|Ruby on Rails|?
Sinatra|library|ruby web framework||
Spring|library|java framework|Spring Boot|?
Laravel|library|php framework||
Symfony|library|php framework||
Phoenix|library|elixir web framework||?
Gin|library|go web framework||?
Echo|library|go web framework||?
Actix|library|rust web framework|actix-web|
Axum|library|rust web framework||
Rocket|library|rust web framework||?
SQLAlchemy|library|python orm||
SQLModel|library|python orm||
Peewee|library|python orm||
Prisma|library|node orm||
TypeORM|library|node orm||
Sequelize|library|node orm||
Drizzle|library|node orm|Drizzle ORM|
pandas|library|dataframe library||
Polars|library|dataframe library||
NumPy|library|numerical library||
SciPy|library|numerical library||
scikit-learn|library|machine learning library|sklearn|
PyTorch|library|deep learning framework|torch|
TensorFlow|library|deep learning framework||
JAX|library|deep learning framework||
Keras|library|deep learning framework||
pytest|library|test framework|py.test|
unittest|library|test framework||
Jest|library|test framework||
Vitest|library|test framework||
Mocha|library|test framework||?
Cypress|library|browser testing||
Playwright|library|browser testing||
Selenium|library|browser testing||
PySide6|library|gui toolkit|PySide|
PyQt|library|gui toolkit|PyQt5,PyQt6|
Qt|library|gui toolkit||
GTK|library|gui toolkit|GTK4|
Tkinter|library|gui toolkit||
Electron|library|desktop app framework||
Tauri|library|desktop app framework||
Flutter|library|mobile framework||
React Native|library|mobile framework||
Pydantic|library|validation library||
Zod|library|validation library||
httpx|library|http client||
aiohttp|library|http client||
axios|library|http client||
asyncio|library|async runtime||
Tokio|library|async runtime||
Celery|library|task queue||
RQ|library|task queue||?
Sidekiq|library|task queue||
LangChain|library|llm framework||
LlamaIndex|library|llm framework||
APScheduler|library|scheduler||
Webpack|tool|bundler||
Vite|tool|bundler||
esbuild|tool|bundler||
Rollup|tool|bundler||?
Parcel|tool|bundler||?
Turbopack|tool|bundler||
Babel|tool|compiler||
npm|tool|package manager||
pnpm|tool|package manager||
Yarn|tool|package manager||?
Bun|tool|javascript runtime||?
Node.js|tool|javascript runtime|Node|?
Deno|tool|javascript runtime||
pip|tool|python package manager||?
uv|tool|python package manager||?
Poetry|tool|python package manager||?
Conda|tool|python package manager|Anaconda,Miniconda|
pipenv|tool|python package manager||
Cargo|tool|rust package manager||?
Maven|tool|java build tool||
Gradle|tool|java build tool||
Bazel|tool|build tool||
CMake|tool|build tool||
Make|tool|build tool|GNU Make|?
Ruff|tool|python linter||
Black|tool|python formatter||?
Flake8|tool|python linter||
Pylint|tool|python linter||
mypy|tool|python type checker||
Pyright|tool|python type checker||
ESLint|tool|javascript linter||
Prettier|tool|javascript formatter||
Biome|tool|javascript linter||?
Git|tool|version control||
Mercurial|tool|version control|hg|
SVN|tool|version control|Subversion|
GitHub|organization|code hosting||
GitLab|organization|code hosting||
Bitbucket|organization|code hosting||
GitHub Actions|tool|ci service||
Jenkins|tool|ci service||
CircleCI|tool|ci service||
Travis CI|tool|ci service|Travis|
Docker|tool|container runtime||
Podman|tool|container runtime||
Kubernetes|tool|container orchestrator|k8s,kubectl|
Nomad|tool|container orchestrator||?
Helm|tool|deployment tool||?
Terraform|tool|infrastructure as code||
Pulumi|tool|infrastructure as code||
Ansible|tool|configuration management||
Nginx|tool|web server||
Caddy|tool|web server||
Apache|tool|web server|httpd|?
PostgreSQL|tool|database|Postgres,psql|
MySQL|tool|database||
MariaDB|tool|database||
SQLite|tool|database|sqlite3|
MongoDB|tool|database|Mongo|
Redis|tool|key-value store||
Valkey|tool|key-value store||
Memcached|tool|key-value store||
DynamoDB|tool|database||
Cassandra|tool|database||
ClickHouse|tool|analytics database||
DuckDB|tool|analytics database||
Snowflake|tool|analytics database||?
BigQuery|tool|analytics database||
Elasticsearch|tool|search engine|Elastic|
OpenSearch|tool|search engine||
Meilisearch|tool|search engine||
Kafka|tool|message broker|Apache Kafka|
RabbitMQ|tool|message broker||
NATS|tool|message broker||
Grafana|tool|monitoring||
Prometheus|tool|monitoring||
Sentry|tool|error tracking||
Datadog|tool|monitoring||
VS Code|tool|editor|VSCode,Visual Studio Code|
Vim|tool|editor|Neovim,nvim|
Emacs|tool|editor||
IntelliJ|tool|editor|IntelliJ IDEA|
PyCharm|tool|editor||
Cursor|tool|editor||?
Xcode|tool|editor||
Zed|tool|editor||?
Claude Code|tool|coding agent||
Codex|tool|coding agent|Codex CLI|
OpenClaw|tool|coding agent||
Copilot|tool|coding agent|GitHub Copilot|
Aider|tool|coding agent||
tmux|tool|terminal multiplexer||
zsh|tool|shell||
bash|tool|shell||?
PowerShell|tool|shell||
Linux|tool|operating system||
macOS|tool|operating system|OS X,OSX|
Windows|tool|operating system||?
Ubuntu|tool|linux distribution||
Debian|tool|linux distribution||
Fedora|tool|linux distribution||
Arch Linux|tool|linux distribution|Arch|?
NixOS|tool|linux distribution|Nix|
Python|tool|programming language|CPython,Python3|
JavaScript|tool|programming language|JS,ECMAScript|
TypeScript|tool|programming language|TS|?
Go|tool|programming language|Golang|?
Rust|tool|programming language||?
Java|tool|programming language||
Kotlin|tool|programming language||
Swift|tool|programming language||?
C++|tool|programming language|cpp,CXX|
C#|tool|programming language|csharp|
Ruby|tool|programming language||?
PHP|tool|programming language||
Elixir|tool|programming language||
Haskell|tool|programming language||
Scala|tool|programming language||
Zig|tool|programming language||
Lua|tool|programming language||
Dart|tool|programming language||?
Julia|tool|programming language||?
AWS|organization|cloud provider|Amazon Web Services|
Google Cloud|organization|cloud provider|GCP|
Azure|organization|cloud provider||?
Cloudflare|organization|cloud provider||
Vercel|organization|hosting platform||
Netlify|organization|hosting platform||
Heroku|organization|hosting platform||
Fly.io|organization|hosting platform||
Anthropic|organization|ai lab||
OpenAI|organization|ai lab||
Google|organization|company||
Microsoft|organization|company||
Apple|organization|company||?
Amazon|organization|company||?
Meta|organization|company||?
Alibaba|organization|company|阿里巴巴,阿里|
Tencent|organization|company|腾讯|
ByteDance|organization|company|字节跳动,字节|
Baidu|organization|company|百度|
Huawei|organization|company|华为|
WeChat|tool|messaging|微信|
Feishu|tool|messaging|飞书,Lark|
DingTalk|tool|messaging|钉钉|
Slack|tool|messaging||?
Discord|tool|messaging||
Telegram|tool|messaging||
Notion|tool|notes||?
Obsidian|tool|notes||
Jira|tool|issue tracker||
Linear|tool|issue tracker||?
Claude|tool|llm|Claude Sonnet,Claude Opus,Claude Haiku|
GPT-4|tool|llm|GPT-4o,ChatGPT,GPT|
Gemini|tool|llm||?
Llama|tool|llm||?
Ollama|tool|llm runtime||
Beijing|place|city|北京|
Shanghai|place|city|上海|
Shenzhen|place|city|深圳|
Hangzhou|place|city|杭州|
Guangzhou|place|city|广州|
Chengdu|place|city|成都|
Hong Kong|place|city|香港|
Taipei|place|city|台北|
Singapore|place|city|新加坡|
Tokyo|place|city|东京|
London|place|city|伦敦|
Berlin|place|city|柏林|
Paris|place|city|巴黎|
New York|place|city|NYC,纽约|
San Francisco|place|city|旧金山|
Seattle|place|city|西雅图|
"""


def norm(name: str) -> str:
    """One key per name however it is spelled: NFKC, case folded, spaces, dots, hyphens
    and underscores dropped, and a trailing "js" taken off ("react.js" -> "react")."""
    s = unicodedata.normalize("NFKC", name).casefold().strip()
    s = re.sub(r"[\s._\-/]+", "", s)
    if s.endswith("js") and len(s) > 4:
        s = s[:-2]
    return s


def slug_part(name: str) -> str:
    """The name part of an entity id: readable, lower case, safe in a URL or a file name."""
    s = unicodedata.normalize("NFKC", name).casefold().strip()
    s = s.replace("c++", "cpp").replace("c#", "csharp")
    s = re.sub(r"[^\w]+", "-", s).strip("-")
    return s or "x"


def entity_id(kind: str, name: str) -> str:
    return f"entity:{kind}:{slug_part(name)}"


@cache
def table() -> tuple[Known, ...]:
    out = []
    for line in _TABLE.strip().splitlines():
        name, kind, category, aliases, flag = line.split("|")
        assert kind in TYPES, line
        out.append(Known(name, kind, category, tuple(a for a in aliases.split(",") if a), flag == "?"))
    return tuple(out)


@cache
def by_norm() -> dict[str, Known]:
    """Every spelling's key -> its entry (the canonical name's own spelling included)."""
    out: dict[str, Known] = {}
    for k in table():
        for spelling in (k.name, *k.aliases):
            out.setdefault(norm(spelling), k)
    return out


def lookup(name: str) -> Known | None:
    return by_norm().get(norm(name))


@cache
def siblings(category: str) -> tuple[str, ...]:
    """The ids of every known entity filling the same slot."""
    return tuple(k.id for k in table() if k.category == category)


@cache
def by_id() -> dict[str, Known]:
    return {k.id: k for k in table()}


def split_id(eid: str) -> tuple[str, str]:
    """(type, a display name) of an id: the curated name when the rules know it."""
    known = by_id().get(eid)
    if known is not None:
        return known.type, known.name
    _, _, rest = eid.partition(":")
    kind, _, name = rest.partition(":")
    return (kind if kind in TYPES else "concept"), (name or eid)


def category_of(eid: str) -> str | None:
    known = by_id().get(eid)
    return known.category if known else None
