"""The layers stay apart: the core never imports the viewer (or a UI toolkit), and no
format imports another (each reaches the others only through the registry)."""

from __future__ import annotations

import ast
from pathlib import Path

from session_core.formats import FORMATS

CORE = Path(__file__).resolve().parent.parent / "session_core"
FORMATS_DIR = CORE / "formats"


def _imports(path: Path) -> set[str]:
    """Every module a file imports, relative imports resolved to absolute names."""
    package = ".".join(path.relative_to(CORE.parent).with_suffix("").parts)
    if path.name != "__init__.py":
        package = package.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def _format_units() -> dict[str, list[Path]]:
    """Each format's own files: a package ``formats/<name>/`` or a module ``formats/<name>.py``
    (not the interface every format shares: ``base.py``, ``builders.py``)."""
    units: dict[str, list[Path]] = {}
    for entry in sorted(FORMATS_DIR.iterdir()):
        if entry.name.startswith("_") or entry.name in ("base.py", "builders.py", "__pycache__"):
            continue
        if entry.is_dir():
            units[entry.name] = sorted(entry.rglob("*.py"))
        elif entry.suffix == ".py":
            units[entry.stem] = [entry]
    return units


def test_the_core_imports_no_viewer_and_no_ui() -> None:
    for path in CORE.rglob("*.py"):
        bad = {m for m in _imports(path) if m.split(".")[0] in ("viewer", "textual", "rich")}
        assert not bad, f"{path} imports {sorted(bad)}"


def test_every_registered_format_has_a_unit_of_its_own() -> None:
    units = _format_units()
    for fmt in FORMATS:
        unit = type(fmt).__module__.split(".")[2]
        assert unit in units, f"{fmt.name} lives outside session_core/formats/<name>"


def test_no_format_imports_another() -> None:
    units = _format_units()
    for name, paths in units.items():
        others = {f"session_core.formats.{other}" for other in units if other != name}
        for path in paths:
            bad = {m for m in _imports(path) for o in others if m == o or m.startswith(o + ".")}
            assert not bad, f"{path} (format {name}) imports another format: {sorted(bad)}"


def test_the_follower_is_reached_through_its_public_names() -> None:
    """The follower's reading side is ``tail_reader.TailReader``: no other module of the
    core (``following``, the browser's live rows ``scan_live``) takes one of its private
    names."""
    reader = "session_core.tail_reader"
    for path in CORE.rglob("*.py"):
        if path.name == "tail_reader.py":
            continue
        private = {m for m in _imports(path) if m.startswith(reader + "._")}
        assert not private, f"{path} imports {sorted(private)}"
    from session_core.tail_reader import TailReader

    assert TailReader.__doc__
