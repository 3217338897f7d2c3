"""Contrast sentences for the knowledge graph (issue 21 point 4), written for this: what a
memory leaves behind ("instead of", "moved away from", "不再用", "改用") must not be linked
`uses`/`prefers`, and two decisions that only choose from the same category (a database
for the job queue, another for analytics) must not supersede one another.

Every other case is `held_out`: the rules were tuned on the rest, and the held-out half is
reported on its own (tests/core/kg/test_contrast.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Contrast:
    title: str
    body: str
    not_uses: tuple[str, ...]  # names the memory leaves behind: never uses/prefers
    uses: tuple[str, ...]  # names it chooses: uses or prefers
    held_out: bool
    memory_type: str = "decision"


@dataclass(frozen=True)
class Pair:
    old: tuple[str, str]  # title, body
    new: tuple[str, str]
    supersedes: bool
    held_out: bool
    old_type: str = "decision"
    new_type: str = "decision"


def _c(title: str, body: str, not_uses: str, uses: str, i: int, memory_type: str = "decision") -> Contrast:
    split = lambda s: tuple(x for x in s.split(",") if x)  # noqa: E731
    return Contrast(title, body, split(not_uses), split(uses), i % 2 == 1, memory_type)


_EN = [
    (
        "Use Postgres for the job queue",
        "We moved away from SQLite for the job queue; use Postgres instead.",
        "SQLite",
        "PostgreSQL",
    ),
    (
        "Job queue storage",
        "The job queue moved off SQLite and onto Postgres last sprint.",
        "SQLite",
        "PostgreSQL",
    ),
    ("Package manager", "Use pnpm, not npm, in this repo.", "npm", "pnpm"),
    (
        "CI pipeline",
        "We no longer deploy with Jenkins; GitHub Actions runs every pipeline now.",
        "Jenkins",
        "GitHub Actions",
    ),
    ("Bundler", "Replaced Webpack with Vite for the dashboard build.", "Webpack", "Vite"),
    (
        "State management",
        "Stop using Redux in new components; Zustand covers what we need.",
        "Redux",
        "Zustand",
    ),
    ("Tests", "Write new tests with Vitest rather than Jest.", "Jest", "Vitest"),
    (
        "Angular is deprecated",
        "Angular is deprecated here, so new screens are built with Svelte.",
        "Angular",
        "Svelte",
    ),
    ("HTTP client", "requests is gone from the codebase; we use httpx everywhere now.", "", "httpx"),
    (
        "Python packaging",
        "Poetry is deprecated in this repo. Use uv for installs and lock files.",
        "Poetry",
        "uv",
    ),
    ("Linting", "We dropped Flake8 and Black last month; Ruff does both jobs.", "Flake8,Black", "Ruff"),
    ("Editor setup", "I prefer Neovim over VS Code for day-to-day editing.", "VS Code", "Vim"),
    ("Cache", "Memcached was retired in March. Sessions are cached in Redis.", "Memcached", "Redis"),
    ("Frontend", "Svelte instead of React for the new marketing site.", "React", "Svelte"),
    ("Message broker", "We migrated the event bus from RabbitMQ to Kafka.", "RabbitMQ", "Kafka"),
    ("Type checking", "Pyright replaces mypy in CI because it is much faster.", "mypy", "Pyright"),
    ("ORM", "Don't use Sequelize for new services, go with Prisma.", "Sequelize", "Prisma"),
    ("Web server", "Caddy took over from Nginx on the edge boxes.", "Nginx", "Caddy"),
    (
        "Search",
        "We gave up on Elasticsearch; Meilisearch is enough for our catalogue.",
        "Elasticsearch",
        "Meilisearch",
    ),
    ("Runtime", "Use Bun for scripts. Node is no longer needed on the build agents.", "Node.js", "Bun"),
    ("Yarn removed", "We got rid of Yarn; pnpm handles the workspace.", "Yarn", "pnpm"),
    ("Containers", "Podman is what we run locally now, without Docker Desktop.", "Docker", "Podman"),
    ("Backend framework", "Chose FastAPI over Flask for the API service.", "Flask", "FastAPI"),
    ("Analytics", "ClickHouse in place of MySQL for the reporting tables.", "MySQL", "ClickHouse"),
    ("Test runner", "Nobody should run tests with unittest any more: pytest only.", "unittest", "pytest"),
    ("Monitoring", "Phase out Datadog by Q3 and move dashboards to Grafana.", "Datadog", "Grafana"),
    ("CSS", "No more Bootstrap in the admin UI. Tailwind from now on.", "Bootstrap", "Tailwind"),
    (
        "Browser tests",
        "Selenium used to drive the e2e suite; Playwright drives it now.",
        "Selenium",
        "Playwright",
    ),
    (
        "Infra as code",
        "Use Terraform for new stacks instead of hand-written Ansible playbooks.",
        "Ansible",
        "Terraform",
    ),
    ("Task queue", "Celery was ripped out of the worker; jobs run on RQ now.", "Celery", "RQ"),
    (
        "Hosting",
        "Use Postgres on the new host and stop using MongoDB for user data.",
        "MongoDB",
        "PostgreSQL",
    ),
    ("GUI toolkit", "PyQt was swapped out for PySide6 because of licensing.", "PyQt", "PySide6"),
]

_ZH = [
    ("前端框架改用React", "不再用Vue", "Vue", "React"),
    ("队列", "任务队列用Postgres而不是SQLite。", "SQLite", "PostgreSQL"),
    ("打包工具", "弃用Webpack，统一用Vite。", "Webpack", "Vite"),
    ("包管理器", "别用npm，用pnpm。", "npm", "pnpm"),
    ("缓存", "Memcached已经下线了，缓存都放在Redis里。", "Memcached", "Redis"),
    ("数据库", "订单库从MySQL迁移到PostgreSQL。", "MySQL", "PostgreSQL"),
    ("测试框架", "以后不要再用unittest写测试，统一用pytest。", "unittest", "pytest"),
    ("消息队列", "消息队列用Kafka替换了RabbitMQ。", "RabbitMQ", "Kafka"),
    ("CI", "Jenkins被GitHub Actions取代了。", "Jenkins", "GitHub Actions"),
    ("Python工具", "Flake8和Black都不用了，改成Ruff一个工具。", "Flake8,Black", "Ruff"),
    ("编辑器", "我放弃了VS Code，现在用Neovim。", "VS Code", "Vim"),
    ("状态管理", "状态管理不再使用Redux，改用Zustand。", "Redux", "Zustand"),
    ("搜索", "Elasticsearch太重，搜索换成Meilisearch。", "Elasticsearch", "Meilisearch"),
    ("部署", "Docker Compose停用，生产环境跑在Kubernetes上。", "Docker", "Kubernetes"),
    ("HTTP客户端", "用httpx代替aiohttp。", "aiohttp", "httpx"),
    ("类型检查", "禁止使用mypy，类型检查统一用Pyright。", "mypy", "Pyright"),
    ("后端框架", "后端选FastAPI，不选Flask。", "Flask", "FastAPI"),
    ("Python包管理", "Poetry已弃用，新项目用uv。", "Poetry", "uv"),
    ("监控", "淘汰了Datadog，监控迁到Grafana。", "Datadog", "Grafana"),
    ("CSS框架", "管理后台去掉Bootstrap，样式用Tailwind写。", "Bootstrap", "Tailwind"),
    ("端到端测试", "以前用Selenium，现在改用Playwright。", "Selenium", "Playwright"),
    ("运行时", "脚本用Bun跑，Node不再需要了。", "Node.js", "Bun"),
]

EXTRACTION: list[Contrast] = [_c(t, b, n, u, i) for i, (t, b, n, u) in enumerate(_EN)] + [
    _c(t, b, n, u, i) for i, (t, b, n, u) in enumerate(_ZH)
]
ENGLISH = EXTRACTION[: len(_EN)]
CHINESE = EXTRACTION[len(_EN) :]

# Two decisions choosing from one category for different things: not a supersede.
_SAME_CATEGORY = [
    (
        (
            "Use Postgres for the job queue",
            "We moved away from SQLite for the job queue; use Postgres instead.",
        ),
        ("Use Redis only for caching", "Redis holds the cache; jobs stay in Postgres."),
    ),
    (
        ("Use Postgres for the job queue", "The job queue lives in Postgres."),
        ("Use MySQL for the analytics warehouse", "The reporting warehouse runs on MySQL."),
    ),
    (
        ("Use React for the admin dashboard", "The admin dashboard is built with React."),
        ("Use Vue for the marketing site", "Marketing pages are written in Vue."),
    ),
    (
        ("Use Jest for the frontend tests", "Frontend unit tests run under Jest."),
        ("Use Vitest for the docs playground", "The docs playground has its own Vitest setup."),
    ),
    (
        ("Redis for caching", "Use Redis as the HTTP response cache."),
        ("Memcached for sessions", "Session data goes to Memcached."),
    ),
    (
        ("Use npm for the docs site", "The docs site installs with npm."),
        ("Use pnpm in the web monorepo", "The web monorepo uses pnpm workspaces."),
    ),
    (
        ("Kafka for event streaming", "Domain events are published to Kafka."),
        ("RabbitMQ for email jobs", "Transactional emails are queued in RabbitMQ."),
    ),
    (
        ("Nginx in front of the API", "Nginx terminates TLS for the API."),
        ("Caddy for the internal wiki", "The wiki is served by Caddy with automatic certificates."),
    ),
    (
        ("SQLite for the desktop app's local cache", "The desktop app keeps its offline cache in SQLite."),
        ("Postgres for the billing service", "Billing data is stored in Postgres."),
    ),
    (
        ("Use Django for the customer portal", "The customer portal is a Django project."),
        ("Use FastAPI for the ML inference service", "Inference endpoints are served with FastAPI."),
    ),
    (
        ("Terraform for AWS networking", "VPCs and subnets are managed with Terraform."),
        ("Pulumi for the data team's sandbox", "The data sandbox stacks are written with Pulumi."),
    ),
    (
        ("Use Playwright for checkout e2e tests", "Checkout flows are covered by Playwright."),
        ("Use Cypress for the legacy admin e2e tests", "The old admin keeps its Cypress suite."),
    ),
    (
        ("Vite for the web app bundle", "The web app builds with Vite."),
        ("esbuild for the CLI bundle", "The CLI is bundled with esbuild into one file."),
    ),
    (
        ("用Postgres做任务队列", "任务队列放在Postgres里。"),
        ("用Redis做缓存", "缓存用Redis，任务还是留在Postgres。"),
    ),
    (("管理后台用React", "管理后台前端用React写。"), ("官网用Vue", "官网页面用Vue开发。")),
    (("订单数据存MySQL", "订单服务用MySQL。"), ("埋点数据存ClickHouse", "埋点分析用ClickHouse。")),
    (
        ("日志搜索用Elasticsearch", "日志检索用Elasticsearch。"),
        ("商品搜索用Meilisearch", "商品搜索用Meilisearch。"),
    ),
    (("前端单测用Jest", "前端单元测试用Jest。"), ("文档示例用Vitest", "文档里的示例用Vitest跑。")),
    (
        ("Use Sentry for backend errors", "Backend exceptions are reported to Sentry."),
        ("Use Datadog for infrastructure metrics", "Host metrics are shipped to Datadog."),
    ),
    (
        ("Prefer Zustand for local UI state", "Small UI state lives in Zustand stores."),
        (
            "Prefer Redux for the checkout flow",
            "The checkout flow keeps its Redux store because of the devtools.",
        ),
    ),
    (
        ("Use Celery for nightly reports", "Nightly report generation runs as Celery tasks."),
        ("Use RQ for webhook retries", "Webhook retries go through RQ."),
    ),
    (
        ("Use MongoDB for the product catalogue", "The catalogue documents are stored in MongoDB."),
        ("Use Postgres for payments", "Payments need transactions, so they live in Postgres."),
    ),
]

# The same subject, a new choice: a supersede.
_TRUE = [
    (
        ("Use Postgres for the job queue", "The job queue lives in Postgres."),
        (
            "Move the job queue from Postgres to Redis",
            "The job queue moves from Postgres to Redis for lower latency.",
        ),
    ),
    (
        ("Use Vue for the frontend", "The frontend is written in Vue."),
        ("Switch the frontend from Vue to React", "We are switching the frontend from Vue to React."),
    ),
    (("前端用Vue", "前端用Vue开发。"), ("前端框架改用React", "前端框架改用React，不再用Vue。")),
    (
        ("Use npm as the package manager", "Install dependencies with npm."),
        ("Use pnpm as the package manager", "We replaced npm with pnpm as the package manager."),
    ),
    (
        ("Use Jest for unit tests", "Unit tests run with Jest."),
        ("Vitest for unit tests", "Unit tests move from Jest to Vitest."),
    ),
    (
        ("Webpack for the dashboard build", "The dashboard is bundled with Webpack."),
        ("Vite for the dashboard build", "Replaced Webpack with Vite for the dashboard build."),
    ),
    (("消息队列用RabbitMQ", "消息队列用RabbitMQ。"), ("消息队列改用Kafka", "消息队列从RabbitMQ换成Kafka。")),
    (
        ("Use Flask for the API service", "The API service runs on Flask."),
        ("Use FastAPI for the API service", "The API service is rewritten in FastAPI instead of Flask."),
    ),
    (
        ("包管理用Poetry", "Python依赖用Poetry管理。"),
        ("包管理改用uv", "Python依赖不再用Poetry，改用uv管理。"),
    ),
    (
        ("Use MySQL for the orders database", "Orders are stored in MySQL."),
        (
            "Migrate the orders database to Postgres",
            "We are migrating the orders database from MySQL to Postgres.",
        ),
    ),
    (
        ("Prefer Redux for state management", "I prefer Redux for state management."),
        ("Prefer Zustand for state management", "I prefer Zustand over Redux for state management now."),
    ),
    (
        ("CI跑在Jenkins上", "持续集成用Jenkins。"),
        ("CI改用GitHub Actions", "持续集成从Jenkins迁移到GitHub Actions。"),
    ),
]

PAIRS: list[Pair] = [Pair(old, new, False, i % 2 == 1) for i, (old, new) in enumerate(_SAME_CATEGORY)] + [
    Pair(old, new, True, i % 2 == 1) for i, (old, new) in enumerate(_TRUE)
]
