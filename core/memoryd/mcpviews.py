"""The text memoryd's MCP prompts and resources hand to a host: memories already read
through the tools' path (memoryd.mcpserver.Tools, so the sensitive-scope gate has been
passed), written as quoted data with provenance (memoryd.quoting), never as bare lines a
model could take for instructions."""

from __future__ import annotations

from typing import Any

from memoryd import quoting

# How many hits a prompt embeds in full; the rest appear as one quoted snippet each.
FULL = 3


def _label(p: dict[str, Any]) -> str:
    parts = [p.get("type", "?"), p.get("origin", "?"), p.get("source", "?"), p.get("date", "?")]
    if p.get("suspect"):
        parts.append("flagged suspect")
    return ", ".join(str(x) for x in parts)


def memory(m: dict[str, Any]) -> str:
    """One memory (a mem_get result) as a markdown resource."""
    lines = [
        f"# {m['title']}",
        "",
        f"memoryd memory `{m['slug']}` in scope `{m['scope']}` ({m['state']}).",
        "",
        quoting.NOTE,
        "",
        f"- {_label(m['provenance'])}: {quoting.quote(m['body'])}",
    ]
    for key in ("tags", "triggers", "supersedes"):
        if m.get(key):
            lines.append(f"- {key}: {', '.join(str(v) for v in m[key])}")
    return "\n".join(lines) + "\n"


def recall(question: str, found: dict[str, Any], full: list[dict[str, Any]], *, ask: str, empty: str) -> str:
    """A prompt's user message: the question, then the memories found for it (the first
    FULL in full, the rest as snippets), then how to answer from them."""
    results = found["results"]
    head = [question, ""]
    if not results:
        return "\n".join([*head, empty.format(scope=found["scope"])]) + "\n"
    bodies = {m["slug"]: m for m in full}
    head += [
        f"memoryd found {len(results)} memor{'y' if len(results) == 1 else 'ies'} in scope "
        f"`{found['scope']}`. {quoting.NOTE}",
        "",
    ]
    for r in results:
        m = bodies.get(r["slug"])
        text = m["body"] if m else r["snippet"]
        head.append(f"- [{r['slug']}] {r['title']} ({_label(r['provenance'])}): {quoting.quote(text)}")
    if withheld := found.get("withheld"):
        head += ["", "Not searched: " + "; ".join(f"{w['count']} memories ({w['why']})" for w in withheld)]
    return "\n".join([*head, "", ask]) + "\n"


def review(since: str, recent: dict[str, Any]) -> str:
    """The weekly-review prompt: what changed in the project since `since`."""
    rows = [m for m in recent["memories"] if m["when"] >= since]
    out = [
        f"Review this project's week: what memoryd recorded since {since} (scope `{recent['scope']}`).",
        "",
    ]
    if not rows:
        out.append("memoryd recorded nothing new in this project since then. Say so, briefly.")
        return "\n".join(out) + "\n"
    out += [quoting.NOTE, ""]
    out += [f"- [{m['slug']}] {_label(m['provenance'])}: {quoting.quote(m['title'])}" for m in rows]
    out += [
        "",
        "Summarize the week in a few short sections: decisions made (with why, when the memory says), "
        "preferences and warnings learned, and work left open. Name each memory's slug so the user can "
        "open it (mem_get); do not invent anything the memories do not say.",
    ]
    return "\n".join(out) + "\n"
