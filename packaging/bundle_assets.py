"""Files the bundle needs that the repository keeps only as sources: the tray's compiled
translations (.qm, from resources/translations/*.ts) and the app icon as PNG, Windows .ico
and macOS .icns (from resources/icons/memoryd.svg).

    python packaging/bundle_assets.py OUT_DIR

writes OUT_DIR/translations/memoryd_<lang>.qm and OUT_DIR/icons/memoryd-<size>.png,
memoryd.ico and memoryd.icns. memoryd.spec runs it; it needs PySide6 (lrelease and QtSvg
ship in PySide6-Essentials) and renders offscreen, so no display is needed.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SVG = REPO / "resources" / "icons" / "memoryd.svg"
PNG_SIZES = (16, 32, 48, 64, 128, 256, 512, 1024)
ICO_SIZES = (16, 32, 48, 64, 128, 256)  # Windows Vista and later read PNG-compressed entries
ICNS_TYPES = {"icp4": 16, "icp5": 32, "icp6": 64, "ic07": 128, "ic08": 256, "ic09": 512, "ic10": 1024}


def render_pngs(out: Path) -> dict[int, bytes]:
    """The SVG rendered at every size, written as memoryd-<size>.png; {size: PNG bytes}."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([])
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        raise SystemExit(f"cannot render {SVG}")
    pngs: dict[int, bytes] = {}
    for size in PNG_SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        renderer.render(painter)
        painter.end()
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        image.save(buffer, "PNG")
        buffer.close()
        pngs[size] = bytes(data.data())
        (out / f"memoryd-{size}.png").write_bytes(pngs[size])
    return pngs


def ico(pngs: dict[int, bytes]) -> bytes:
    """A Windows icon: ICONDIR, one ICONDIRENTRY per size, then the PNG images."""
    sizes = [s for s in ICO_SIZES if s in pngs]
    offset = 6 + 16 * len(sizes)
    head = struct.pack("<HHH", 0, 1, len(sizes))
    entries, images = b"", b""
    for size in sizes:
        data = pngs[size]
        side = 0 if size >= 256 else size  # 0 means 256
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(data), offset)
        offset += len(data)
        images += data
    return head + entries + images


def icns(pngs: dict[int, bytes]) -> bytes:
    """A macOS icon family: 'icns', its length, then (type, length, PNG) per entry."""
    body = b""
    for kind, size in ICNS_TYPES.items():
        if size in pngs:
            body += kind.encode("ascii") + struct.pack(">I", 8 + len(pngs[size])) + pngs[size]
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def translations(out: Path) -> list[Path]:
    from memoryd_desktop import i18n

    i18n.main([str(out)])
    return sorted(out.glob("*.qm"))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(args[0])
    (out / "icons").mkdir(parents=True, exist_ok=True)
    pngs = render_pngs(out / "icons")
    (out / "icons" / "memoryd.ico").write_bytes(ico(pngs))
    (out / "icons" / "memoryd.icns").write_bytes(icns(pngs))
    translations(out / "translations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
