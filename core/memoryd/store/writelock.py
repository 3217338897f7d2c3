"""Moved to memoryd.writelock (standard library and filelock only), so the CLI's read
path can take the lock without importing the store."""

from memoryd.writelock import Writable, WriteLock, serialised

__all__ = ["Writable", "WriteLock", "serialised"]
