"""The pages' colours follow ``prefers-color-scheme``: every colour is a custom property set
for the light scheme and again for the dark one, so nothing keeps a light colour in the dark
(the browser walk checks the contrast of both with axe)."""

from __future__ import annotations

import re
from pathlib import Path

CSS = (Path(__file__).parents[2] / "quizsvc" / "web" / "static" / "site.css").read_text()
DEFINED = re.compile(r"(--[a-z-]+)\s*:\s*([^;]+);")
COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}\b|\brgba?\(|\bhsla?\(")


def blocks() -> tuple[str, str]:
    """Return the light ``:root`` block and the dark scheme's block."""
    light = CSS[CSS.index(":root {"):CSS.index("}", CSS.index(":root {"))]
    start = CSS.index("@media (prefers-color-scheme: dark)")
    dark = CSS[start:CSS.index("}\n}", start)]
    return light, dark


def test_the_dark_scheme_sets_every_colour_the_light_one_sets() -> None:
    light, dark = blocks()
    light_colours = {name for name, value in DEFINED.findall(light) if COLOUR.search(value)}
    dark_colours = {name for name, value in DEFINED.findall(dark)}
    assert light_colours and light_colours == dark_colours
    assert "color-scheme: light dark" in light


def test_no_rule_writes_a_colour_outside_the_custom_properties() -> None:
    light, dark = blocks()
    rest = CSS.replace(light, "").replace(dark, "")
    rest = re.sub(r"/\*.*?\*/", "", rest, flags=re.S)
    assert COLOUR.findall(rest) == []
