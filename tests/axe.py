"""Accessibility checks in browser tests with axe-core (vendored in tests/vendor, test-only).

    from tests.axe import serious_violations
    problems = serious_violations(page)            # the whole page
    problems = serious_violations(page, "#play")   # one region
    assert not problems, describe(problems)

axe-core 4.14.1, MPL-2.0 (tests/vendor/axe-core-LICENSE); nothing is fetched from a network.
"""

from __future__ import annotations

from pathlib import Path

AXE_JS = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
SERIOUS = ("serious", "critical")


def inject(page) -> None:
    """Add axe-core to ``page`` (a Playwright page) unless it is already there."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=AXE_JS.read_text(encoding="utf-8"))


def violations(page, context: str | None = None, impacts: tuple[str, ...] = SERIOUS) -> list[dict]:
    """Run axe on ``page`` (or the element matching the CSS selector ``context``) and return the
    violations whose impact is in ``impacts``: each a dict with id, impact, help and nodes
    (each node: target selector list, html and failureSummary)."""
    inject(page)
    found = page.evaluate(
        """async (context) => {
            const result = await axe.run(context ? document.querySelector(context) : document,
                                         {resultTypes: ['violations']});
            return result.violations.map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map(n => ({target: n.target, html: n.html, failureSummary: n.failureSummary})),
            }));
        }""",
        context,
    )
    return [v for v in found if v["impact"] in impacts]


def serious_violations(page, context: str | None = None) -> list[dict]:
    """The serious and critical axe violations on ``page`` (see ``violations``)."""
    return violations(page, context)


def describe(found: list[dict]) -> str:
    """A readable message for an assertion: one line per rule, then each offending element."""
    lines = []
    for v in found:
        lines.append(f"{v['impact']}: {v['id']} - {v['help']}")
        lines.extend(f"    {n['target']}: {n['html'][:160]}" for n in v["nodes"])
    return "\n".join(lines)
