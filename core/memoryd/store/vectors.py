"""memoryd.vectors under its old name, for callers that import it from the store.

The module moved out of this package: importing anything under memoryd.store runs
store/__init__.py, which imports SQLAlchemy, and the CLI's read path (memoryd.reader)
needs the vectors without it. This name is the same module object, not a copy, so its
matrix cache is one.
"""

import sys

from memoryd import vectors

sys.modules[__name__] = vectors
