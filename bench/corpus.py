"""A deterministic, bilingual synthetic memory corpus for the scale benchmark.

Why synthetic: no public data set looks like a developer's agent memory (decisions,
warnings, playbooks about their own projects, half of it in Chinese), and latency depends
on what the index holds: vocabulary skew (common words like "test" or 测试 with long
posting lists, rare identifiers with short ones), body length, two scripts. Each project
has its own stack and domain words, drawn Zipf-like, so queries meet both kinds of term.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memoryd import slugs
from memoryd.frontmatter import Document
from memoryd.models import Frontmatter, MemoryType, default_ttl
from memoryd.scope import hash_root
from memoryd.store import Turn


def words(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(text.split()))


EN_NOUNS = words(
    "test build deploy api database cache service config release migration frontend backend "
    "index query schema queue worker pipeline latency memory timeout error log metric dashboard "
    "auth token session payment billing order invoice search upload storage bucket container "
    "cluster node replica shard lock transaction retry webhook endpoint client server proxy "
    "gateway router bundle dependency version package module plugin theme layout component "
    "hook store reducer route handler middleware scheduler cron backup snapshot rollback "
    "benchmark profile trace span alert oncall incident postmortem runbook feature flag "
    "experiment cohort tenant permission role audit encryption certificate secret vault "
    "account address avatar badge banner basket batch blob branch broker buffer button "
    "calendar campaign cart catalog channel chart checkout checksum cipher column comment "
    "commit consumer contract coupon cursor customer dataset deadline diff digest directory "
    "discount document domain draft email embed enum event export fixture folder font form "
    "fragment funnel grant graph header heap histogram icon image import inbox inventory "
    "issue job journal kernel key label ledger license limit link listener locale manifest "
    "map menu merchant message migrator mirror modal monitor namespace notification offset "
    "onboarding organization owner page pagination panel parser partition password patch "
    "path peer pixel playlist pod policy poll pool portal preview price printer priority "
    "process producer product profile prompt quota rate receipt record refund region "
    "registry report repository request resolver response retention revision sandbox scanner "
    "screen script sdk segment sensor serializer shipment sidebar signature sitemap slot "
    "socket source spinner sprint stack subscription survey table tag task template "
    "thread ticket timeline timer toast topic tracker tree trigger upgrade user variant "
    "vendor video viewport volume wallet warehouse widget wizard workflow workspace zone"
)
EN_TECH = words(
    "postgres sqlite redis kafka rabbitmq nginx docker kubernetes terraform helm react vue "
    "svelte webpack vite esbuild babel typescript python rust golang java kotlin swift pytest "
    "jest playwright cypress grafana prometheus sentry datadog elasticsearch opensearch s3 "
    "cloudflare vercel fastapi django flask rails spring gradle poetry uv ruff mypy pydantic "
    "sqlalchemy alembic celery airflow spark duckdb clickhouse graphql grpc protobuf openapi "
    "mysql mongodb dynamodb cassandra etcd consul vault envoy istio linkerd argocd jenkins "
    "circleci buildkite bazel cmake ninja llvm wasm deno bun nodejs express nestjs nextjs "
    "nuxt remix astro tailwind storybook figma jotai zustand redux mobx rxjs tokio actix axum "
    "serde diesel sqlx gin echo fiber cobra viper zap logrus otel jaeger loki tempo minio "
    "ceph nats pulsar flink dbt snowflake bigquery redshift looker metabase superset"
)
EN_VERBS = words(
    "migrate refactor deploy rollback cache profile benchmark split merge rename pin upgrade "
    "downgrade shard replicate throttle debounce retry batch stream compress encrypt validate "
    "lint format vendor mock stub document monitor inline extract deprecate remove archive "
    "backfill reindex rotate revoke sign verify paginate serialize parse render hydrate "
    "prefetch invalidate warm evict schedule queue cancel audit sanitize normalize"
)
_ISSUES = (
    "memory leak|race condition|flaky test|deadlock|slow query|cold start|n+1 query|"
    "timeout under load|cache stampede|connection pool exhaustion|off-by-one|stale cache|"
    "timezone bug|unicode bug|broken build|failing migration|high p99 latency|oom kill|"
    "double charge|lost update|clock skew|dns flake|cors error|csrf failure|split brain|"
    "thundering herd|hot partition|replication lag|disk full|certificate expiry|"
    "rate limit storm|zombie process|file descriptor leak|lock contention|memory fragmentation|"
    "retry loop|poison message|schema drift|version skew|dangling pointer"
)
EN_ISSUES = tuple(_ISSUES.split("|"))
NAMES = words(
    "alice bob carol dave erin frank grace heidi ivan judy mallory niaj olivia peggy rupert "
    "sybil trent victor walter yuki zhang wei li na chen jun wang fang liu yang zhao lei "
    "priya arjun fatima omar sofia mateo lucas emma noah mia"
)
ZH_WORDS = words(
    "性能 缓存 数据库 迁移 部署 回滚 前端 后端 接口 测试 内存 泄漏 超时 并发 日志 监控 配置 权限 "
    "认证 支付 订单 搜索 索引 队列 重构 优化 依赖 版本 发布 构建 容器 集群 节点 副本 分片 事务 重试 "
    "网关 路由 组件 模块 插件 调度 备份 快照 告警 值班 故障 复盘 手册 灰度 实验 租户 审计 加密 证书 "
    "密钥 延迟 吞吐 压测 瓶颈 死锁 连接池 慢查询 冷启动 首屏 打包 上线 用户 账单 发票 上传 存储 "
    "账户 地址 头像 徽章 横幅 购物车 目录 频道 图表 结算 校验 密码 评论 提交 消费者 合同 优惠券 "
    "游标 客户 数据集 截止 差异 摘要 文档 域名 草稿 邮件 枚举 事件 导出 夹具 文件夹 字体 表单 "
    "漏斗 授权 图谱 堆栈 直方图 图标 图片 导入 收件箱 库存 任务 日记 内核 标签 账本 许可 限流 "
    "链接 监听 语言 清单 地图 菜单 商户 消息 镜像 弹窗 命名空间 通知 偏移 引导 组织 分页 面板 "
    "解析 分区 补丁 路径 像素 策略 轮询 门户 预览 价格 优先级 进程 生产者 产品 提示 配额 速率 "
    "收据 记录 退款 区域 注册表 报表 仓库 请求 响应 保留 修订 沙箱 扫描 屏幕 脚本 片段 传感器 "
    "签名 插槽 套接字 源码 冲刺 订阅 问卷 表格 模板 线程 工单 时间线 定时器 主题 追踪 触发器 "
    "升级 变体 供应商 视频 视口 钱包 仓储 小组件 向导 工作流 工作区"
)
DOMAIN = {"nouns": 45, "tech": 10, "zh": 45}  # words a project talks about most


ZH_TEMPLATES = (
    "我们决定{a}{b}的方案先在{t}上试行。",
    "{a}出现{i}，原因是{b}配置不对。",
    "下次{a}之前一定要检查{b}和{c}。",
    "{t} 的{a}问题已经修复，{b}恢复正常。",
    "用户反馈{a}很慢，定位到{b}的{c}。",
    "这个项目的{a}约定：{b}必须走{c}流程。",
    "讨论了{a}和{b}的取舍，最终选择{t}。",
    "{a}相关的改动需要{b}负责人审核。",
    "线上{a}报错，临时关闭了{b}，周一再看{c}。",
    "{t} 升级后{a}变快了，但{b}占用偏高。",
    "新人上手先看{a}文档，再跑一遍{b}脚本。",
    "别在周五改{a}，上次{b}挂了一晚上。",
    "{a}和{b}的接口约定写在{c}里。",
    "为了{a}，把{b}拆成了三个{c}。",
)
EN_TEMPLATES = (
    "We decided to {v} the {n} {m} with {t} because the old setup kept hitting {i}.",
    "Before you {v} the {n}, check the {m} settings; last time this caused a {i}.",
    "The {n} {m} now runs on {t}; {t2} was dropped after the {i} incident.",
    "Always {v} the {n} in staging first and watch the {m} dashboard for {i}.",
    "Root cause of the {i}: the {n} {m} was not {v}d after the {t} upgrade.",
    "{p} prefers {t} over {t2} for the {n} {m}, mostly for {i} reasons.",
    "To {v} the {n} safely: stop the {m}, take a snapshot, then run {x}.",
    "{t} {m} tests are slow; we {v} them into batches to avoid the {i}.",
    "{p} owns the {n} {m}; ask before you touch {x}.",
    "Do not {v} the {n} on Fridays, {p} got paged for a {i} twice.",
    "The {m} limit for {n} is 500 per minute, see {x}.",
    "Use {t} for new {n} code and keep {t2} only in the legacy {m}.",
    "{p} suggested we {v} every {n} nightly instead of on demand.",
    "Switching the {n} to {t} cut the p95 by a third.",
    "Known gotcha: {t2} silently ignores the {m} option, so set it in {x}.",
    "The {n} {m} contract is versioned; bump it when you {v} fields.",
    "Migration plan for {n}: dual-write, backfill, compare, then flip the {m} reads.",
    "We rejected {t2} for the {n} because of licensing and the {i} risk.",
    "Local dev needs {t} running; {x} starts it with the right {m} flags.",
    "After the {i}, {p} added an alert on {n} {m} saturation.",
    "Convention: one {n} per {m}, named after the owning team.",
    "If the {n} build fails with {i}, clear the {t} cache and retry.",
    "{p} measured {n} throughput at 12k requests per second on {t}.",
    "The {m} endpoint must stay idempotent; clients {v} on every error.",
)
TYPE_MIX = (
    (MemoryType.session, 40),
    (MemoryType.fact, 20),
    (MemoryType.decision, 15),
    (MemoryType.playbook, 10),
    (MemoryType.preference, 8),
    (MemoryType.warning, 7),
)


def scope_root(i: int, base: Path) -> Path:
    return base / f"proj-{i:02d}"


class Generator:
    """Draws words Zipf-like, mostly from the current project's own vocabulary (its stack,
    its domain nouns) and sometimes from everything, so a word is common in one project
    and rare in the next, and queries meet short and long posting lists as in real notes."""

    def __init__(self, seed: int, n_scopes: int = 20) -> None:
        self.rng = random.Random(seed)
        self._w: dict[tuple[int, int], list[float]] = {}
        self.lists = {"nouns": EN_NOUNS, "tech": EN_TECH, "zh": ZH_WORDS}
        self.domains = [
            {kind: self.rng.sample(words, DOMAIN[kind]) for kind, words in self.lists.items()}
            for _ in range(n_scopes)
        ]
        self.scope = 0

    def zipf(self, words: tuple[str, ...] | list[str], offset: int = 3) -> str:
        w = self._w.setdefault((len(words), offset), [1.0 / (r + offset) for r in range(len(words))])
        return self.rng.choices(words, weights=w)[0]

    def word(self, kind: str) -> str:
        if kind in self.lists and self.rng.random() < 0.75:
            return self.zipf(self.domains[self.scope][kind], 2)
        return self.zipf(
            self.lists.get(kind) or {"verbs": EN_VERBS, "issues": EN_ISSUES, "names": NAMES}[kind], 5
        )

    def ident(self) -> str:
        kind = self.rng.randrange(4)
        noun, other = self.word("nouns"), self.word("nouns")
        if kind == 0:
            return f"`{self.word('verbs')}{noun.capitalize()}{other.capitalize()}()`"
        if kind == 1:
            return f"`src/{noun}/{other}_{self.word('verbs')}.py`"
        if kind == 2:
            return f"`make {noun}-{self.word('verbs')}`"
        return f"ticket {noun.upper()[:4]}-{self.rng.randrange(1, 20000)}"

    def en_sentence(self) -> str:
        return self.rng.choice(EN_TEMPLATES).format(
            v=self.word("verbs"),
            n=self.word("nouns"),
            m=self.word("nouns"),
            t=self.word("tech"),
            t2=self.word("tech"),
            i=self.word("issues"),
            p=self.word("names").capitalize(),
            x=self.ident(),
        )

    def zh_sentence(self) -> str:
        return self.rng.choice(ZH_TEMPLATES).format(
            a=self.word("zh"),
            b=self.word("zh"),
            c=self.word("zh"),
            t=self.word("tech"),
            i=self.word("zh") + self.word("zh"),
        )

    def sentence(self, lang: str) -> str:
        if lang == "mixed":
            lang = self.rng.choice(("en", "zh"))
        return self.en_sentence() if lang == "en" else self.zh_sentence()

    def title(self, lang: str) -> str:
        if lang == "zh":
            return f"{self.word('zh')}{self.word('zh')}：{self.word('tech')} {self.word('zh')}"
        if lang == "mixed":
            return f"{self.word('tech')} {self.word('nouns')} {self.word('zh')}"
        verb, noun, what, tech = self.word("verbs"), self.word("nouns"), self.word("nouns"), self.word("tech")
        return f"{verb.capitalize()} the {noun} {what} on {tech}"

    def memory(self, n: int, scopes: list[str], start: datetime) -> tuple[Document, list[Turn] | None]:
        rng = self.rng
        self.scope = rng.randrange(len(scopes))
        mtype = rng.choices([t for t, _ in TYPE_MIX], weights=[w for _, w in TYPE_MIX])[0]
        lang = rng.choices(("en", "zh", "mixed"), weights=(60, 28, 12))[0]
        when = start + timedelta(minutes=7 * n)
        title = self.title(lang)
        body = " ".join(self.sentence(lang) for _ in range(rng.randint(2, 5))) + "\n"
        meta = Frontmatter(
            title=title,
            slug=f"{slugs.for_title(title, when)[:-5]}-{n:06x}",
            type=mtype,
            scope_hash=scopes[self.scope],
            source="claude-code" if mtype is MemoryType.session else "manual",
            created_at=when,
            updated_at=when,
            tags=list(dict.fromkeys([self.word("tech"), self.word("nouns")])),
            triggers=list(dict.fromkeys([self.word("zh" if lang == "zh" else "nouns") for _ in range(2)])),
            ttl_days=default_ttl(mtype),
            last_recalled_at=when,
            session_id=f"synthetic-{n}" if mtype is MemoryType.session else None,
        )
        turns = None
        if mtype is MemoryType.session:
            turns = [
                Turn(i, "user" if i % 2 == 0 else "assistant", self.sentence(lang), when.isoformat(), None)
                for i in range(4)
            ]
        return Document(meta=meta, body=body), turns


def generate(
    size: int, seed: int, scope_base: Path, n_scopes: int = 20
) -> Iterator[tuple[Document, list[Turn] | None]]:
    gen = Generator(seed, n_scopes)
    scopes = [hash_root(scope_root(i, scope_base)) for i in range(n_scopes)]
    start = datetime(2025, 1, 1, tzinfo=UTC)
    for n in range(size):
        yield gen.memory(n, scopes, start)


def queries(count: int, seed: int, n_scopes: int = 20) -> list[tuple[str, int]]:
    """Mixed queries as people type them, each with the project (scope index) it is asked
    in: English words and questions, 中文 words and phrases, identifiers, mixtures."""
    g = Generator(seed, n_scopes)  # the same seed: the same project vocabularies
    g.rng = random.Random(seed + 1)
    makers = (
        lambda: g.word("nouns"),
        lambda: g.word("tech"),
        lambda: f"{g.word('nouns')} {g.word('nouns')}",
        lambda: f"Why did we drop {g.word('tech')} for the {g.word('nouns')}?",
        lambda: f"how do I {g.word('verbs')} the {g.word('nouns')} {g.word('nouns')}?",
        lambda: f"{g.word('issues')} in {g.word('nouns')}",
        lambda: f"who owns the {g.word('nouns')} {g.word('nouns')}?",
        lambda: f"{g.word('tech')} vs {g.word('tech')}",
        lambda: f"what did {g.word('names')} say about {g.word('nouns')}",
        lambda: g.word("zh"),
        lambda: g.word("zh") + g.word("zh"),
        lambda: f"{g.word('zh')}{g.word('zh')}怎么处理？",
        lambda: f"上次{g.word('zh')}出问题是什么原因",
        lambda: f"{g.word('zh')} {g.word('tech')}",
        lambda: f"{g.word('zh')} {g.word('zh')} why did we pick {g.word('tech')}?",
    )
    out = []
    for i in range(count):
        g.scope = i % n_scopes
        out.append((g.rng.choice(makers)(), g.scope))
    return out
