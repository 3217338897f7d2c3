"""numpy, imported on first use: the tray and other long-lived processes that never search
or embed do not carry it (14 MB of RSS, issue 22's idle target), while a search pays the
import once, as it did at module import before.

Modules write `from memoryd.lazynp import np` under the type checker's real numpy; each
attribute is looked up once, then kept on the proxy (an instance attribute, found before
`__getattr__` is ever called again)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any


class _Numpy:
    def __getattr__(self, name: str) -> Any:
        import numpy

        value = getattr(numpy, name)
        setattr(self, name, value)
        return value


if TYPE_CHECKING:
    import numpy as np
else:
    np = _Numpy()

__all__ = ["np"]
