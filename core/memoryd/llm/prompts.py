"""Prompt templates as versioned package data (llm/prompts/<name>.vN.txt), so a wording
change is a new file and a stored analysis can say which version produced it.

File format: a header line `# <name> vN (max_output_tokens: N)`, then a `[system]` and a
`[user]` section. Placeholders use string.Template (`$body`), so the JSON in the text needs
no escaping; a literal dollar sign is written `$$`."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from string import Template

from memoryd.errors import MemorydError
from memoryd.llm.base import Prompt

_HEADER = re.compile(r"# (?P<name>[a-z0-9_]+) v(?P<version>\d+) \(max_output_tokens: (?P<max>\d+)\)")
_FILE = re.compile(r"(?P<name>[a-z0-9_]+)\.v(?P<version>\d+)\.txt")


class PromptError(MemorydError):
    """A prompt file is missing or malformed, or was rendered with the wrong variables:
    a programming error, caught by the tests before it ships."""


def names() -> list[str]:
    """Every prompt shipped, by name."""
    return sorted({m["name"] for m in map(_FILE.fullmatch, _files()) if m})


def placeholders(name: str) -> set[str]:
    """The variables `render(name, ...)` needs."""
    parsed = _load(name)
    return {_id(m) for t in (parsed[2], parsed[3]) for m in t.pattern.finditer(t.template) if _id(m)}


def render(name: str, /, **variables: str) -> Prompt:
    """The latest version of prompt `name` with every placeholder filled."""
    version, max_tokens, system, user = _load(name)
    needed = placeholders(name)
    missing, unknown = sorted(needed - variables.keys()), sorted(variables.keys() - needed)
    if missing or unknown:
        parts = [f"missing ${', $'.join(missing)}"] if missing else []
        parts += [f"unknown variable(s) {', '.join(unknown)}"] if unknown else []
        raise PromptError(f"prompt {name!r}: {'; '.join(parts)}")
    return Prompt(
        name=name,
        version=version,
        system=system.substitute(variables).strip(),
        user=user.substitute(variables).strip(),
        max_output_tokens=max_tokens,
    )


def _files() -> list[str]:
    return [entry.name for entry in resources.files("memoryd.llm").joinpath("prompts").iterdir()]


def _id(match: re.Match[str]) -> str | None:
    return match.group("named") or match.group("braced")


@cache
def _load(name: str) -> tuple[int, int, Template, Template]:
    versions = [int(m["version"]) for m in map(_FILE.fullmatch, _files()) if m and m["name"] == name]
    if not versions:
        raise PromptError(f"no prompt named {name!r} (known: {', '.join(names())})")
    version = max(versions)
    filename = f"{name}.v{version}.txt"
    text = resources.files("memoryd.llm").joinpath("prompts").joinpath(filename).read_text(encoding="utf-8")
    first, _, rest = text.partition("\n")
    header = _HEADER.fullmatch(first.strip())
    if not header or header["name"] != name or int(header["version"]) != version:
        raise PromptError(f"{filename}: first line must be '# {name} v{version} (max_output_tokens: N)'")
    sections = re.split(r"^\[(system|user)\]\s*$", rest, flags=re.M)
    # ['', 'system', <text>, 'user', <text>] when both sections are present, in order.
    if len(sections) != 5 or sections[1] != "system" or sections[3] != "user" or sections[0].strip():
        raise PromptError(f"{filename}: needs a [system] section, then a [user] section")
    system, user = Template(sections[2]), Template(sections[4])
    for template in (system, user):
        if any(m.group("invalid") is not None for m in template.pattern.finditer(template.template)):
            raise PromptError(f"{filename}: a '$' that is not a placeholder (write $$ for a dollar sign)")
    return version, int(header["max"]), system, user
