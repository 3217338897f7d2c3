"""embed.load: the configured model once per process, None with one warning when it
cannot be had, and plug-ins by `module:factory`."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from memoryd import embed
from memoryd.config import Config


def config(model: str) -> Config:
    base = Config()
    return replace(base, search=replace(base.search, embedding_model=model))


def test_none_gives_no_model_and_no_warning() -> None:
    warnings: list[str] = []
    assert embed.load(config("none"), warnings.append) is None
    assert warnings == []


@pytest.mark.parametrize(
    "choice", ["no-such-model", "nosuchmodule_xyz:make", "memoryd.embed:missing_factory", ":"]
)
def test_unknown_model_gives_none_and_exactly_one_warning(choice: str) -> None:
    warnings: list[str] = []
    assert embed.load(config(choice), warnings.append) is None
    assert len(warnings) == 1
    assert choice in warnings[0] and "keyword search only" in warnings[0]
    assert "\n" not in warnings[0]


PLUGIN = """
import numpy as np
from memoryd.embed import normalize

class Tiny:
    name = "tiny-hash"
    version = "1"
    dim = 8

    def embed_documents(self, texts):
        rows = [[(hash(t) >> s) % 7 + 1 for s in range(8)] for t in texts]
        return normalize(np.array(rows, dtype=np.float32).reshape(len(texts), 8))

    def embed_query(self, text):
        return self.embed_documents([text])[0]

def make():
    return Tiny()

class Broken(Tiny):
    dim = 16  # says 16, returns 8

class Loud(Tiny):
    def embed_documents(self, texts):
        return np.ones((len(texts), 8), dtype=np.float64)

def fails():
    raise RuntimeError("weights not found")
"""


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "tinyplug.py").write_text(textwrap.dedent(PLUGIN))
    monkeypatch.syspath_prepend(str(tmp_path))
    return "tinyplug"


@pytest.mark.parametrize("factory", ["make", "Tiny"])
def test_plugin_factory_or_class_is_loaded_once(plugin: str, factory: str) -> None:
    warnings: list[str] = []
    model = embed.load(config(f"{plugin}:{factory}"), warnings.append)
    assert model is not None and warnings == []
    assert embed.tag(model) == "tiny-hash@1"
    assert embed.check(model) == []
    vecs = model.embed_documents(["a", "b", "c"])
    assert vecs.shape == (3, 8) and vecs.dtype == np.float32
    assert embed.load(config(f"{plugin}:{factory}")) is model


@pytest.mark.parametrize(
    ("factory", "reason"),
    [
        ("Broken", "shape (16,)"),
        ("Loud", "float32"),
        ("fails", "RuntimeError: weights not found"),
    ],
)
def test_a_plugin_that_breaks_the_contract_is_refused_with_one_warning(
    plugin: str, factory: str, reason: str
) -> None:
    warnings: list[str] = []
    assert embed.load(config(f"{plugin}:{factory}"), warnings.append) is None
    assert len(warnings) == 1 and reason in warnings[0]


def test_check_names_each_problem() -> None:
    class Nameless:
        name = ""
        version = 1
        dim = 0

    assert embed.check(Nameless()) == [
        "name must be a non-empty str without '@'",
        "version must be a non-empty str",
        "dim must be a positive int",
        "embed_documents is missing",
        "embed_query is missing",
    ]


def test_normalize_keeps_zero_rows() -> None:
    out = embed.normalize([[3.0, 4.0], [0.0, 0.0]])
    assert out.dtype == np.float32
    assert np.allclose(out, [[0.6, 0.8], [0.0, 0.0]])


def test_default_model_loads_and_keeps_the_contract() -> None:
    model = embed.load(config(embed.DEFAULT_MODEL))
    assert model is not None
    assert embed.tag(model).startswith("use-multilingual-v3@")
    assert embed.check(model) == []
    assert model.embed_documents([]).shape == (0, 512)


PAIRS = [
    ("我把数据库密码放在了保险库里", "I put the database password in the vault"),
    ("明天下午三点开会讨论预算", "Tomorrow at three in the afternoon we meet to discuss the budget"),
    ("我的妹妹下个月要结婚了", "My younger sister is getting married next month"),
    ("这个测试在持续集成上总是失败", "This test always fails on continuous integration"),
    ("我们决定用 PostgreSQL 替换 MySQL", "We decided to replace MySQL with PostgreSQL"),
]
UNRELATED = [
    "The cat slept on the warm windowsill all afternoon",
    "Bananas are rich in potassium",
    "He repaired the bicycle's flat tyre",
    "The museum opens at nine on weekdays",
    "She planted tomatoes in the garden",
]


def test_chinese_is_nearer_its_english_translation_than_unrelated_english() -> None:
    model = embed.load(config(embed.DEFAULT_MODEL))
    assert model is not None
    zh = model.embed_documents([p[0] for p in PAIRS])
    en = model.embed_documents([p[1] for p in PAIRS])
    other = model.embed_documents(UNRELATED)
    for i in range(len(PAIRS)):
        translation = float(zh[i] @ en[i])
        assert translation > float(np.max(other @ zh[i])), PAIRS[i]
        # and the English query finds its Chinese text among all five
        assert int(np.argmax(zh @ en[i])) == i, PAIRS[i]


def test_the_plugin_example_in_the_docs_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = (Path(__file__).resolve().parents[3] / "docs" / "embeddings.md").read_text()
    code = doc.split("# ~/memoryd-plugins/hashembed.py\n", 1)[1].split("```", 1)[0]
    (tmp_path / "hashembed.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    warnings: list[str] = []
    model = embed.load(config("hashembed:make"), warnings.append)
    assert model is not None and warnings == []
    assert embed.tag(model) == "hash-demo@1"
