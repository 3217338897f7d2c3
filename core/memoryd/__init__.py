"""memoryd: local long-term memory for AI agents.

Kept import-free on purpose: the agent hook path (`memoryd capture`) imports this
package and must stay fast, so nothing heavy is pulled in here.
"""

__version__ = "0.1.0"
