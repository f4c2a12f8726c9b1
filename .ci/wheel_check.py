"""Run by .ci/run inside a fresh venv holding only the built wheel, from a directory away
from the checkout: every module of session_core and viewer must import from the installed
package, and the installed package writes a v1 and an agentgo file for `tailscope check`.

Usage: python wheel_check.py OUT_DIR  (prints the paths of the two files it wrote)
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys
from pathlib import Path


def import_all(package_name: str, checkout: Path | None) -> int:
    package = importlib.import_module(package_name)
    where = Path(package.__file__ or "").resolve()
    if "site-packages" not in where.parts:
        raise SystemExit(f"wheel check: {package_name} imported from {where}, not the venv")
    if checkout is not None and checkout in where.parents:
        raise SystemExit(f"wheel check: {package_name} imported from the checkout ({where})")
    count = 1
    failed: list[str] = []

    def on_error(name: str) -> None:
        failed.append(f"{name}: {sys.exc_info()[1]!r}")

    for info in pkgutil.walk_packages(package.__path__, f"{package_name}.", onerror=on_error):
        if info.name.endswith(".__main__"):
            # a `python -m` entry point runs on import; it must be in the wheel, though
            if importlib.util.find_spec(info.name) is None:
                failed.append(f"{info.name}: not in the wheel")
            count += 1
            continue
        try:
            importlib.import_module(info.name)
        except Exception as err:  # report every one, then fail
            failed.append(f"{info.name}: {err!r}")
        count += 1
    if failed:
        raise SystemExit("wheel check: modules that do not import:\n  " + "\n  ".join(failed))
    return count


def main() -> None:
    out = Path(sys.argv[1])
    checkout = Path(sys.argv[2]).resolve() if len(sys.argv) > 2 else None
    counts = {name: import_all(name, checkout) for name in ("session_core", "viewer")}
    print(
        "wheel check: imported "
        + ", ".join(f"{n} modules of {name}" for name, n in counts.items()),
        file=sys.stderr,
    )

    from session_core import Message, Session
    from session_core.agentgo import AgentGoSession
    from session_core.artifacts import grapheme_count

    # What a dependency imported only when asked does (regex: an artifact's graphemes).
    if grapheme_count("e\u0301 \U0001f44d\U0001f3fd\r\n") != 4:
        raise SystemExit("wheel check: graphemes are not counted as the reference counts them")

    v1 = out / "v1.jsonl"
    with Session.create(v1, meta={"agent": "wheel-check"}) as s:
        s.append_message(Message(role="system", content="You are a test.", sysprompt=True))
        s.append_message(Message(role="user", content="hello"))
        s.append_message(Message(role="assistant", content="hi"))

    agentgo = out / "agentgo.jsonl"
    session = AgentGoSession.create(agentgo)
    run = session.begin_run()
    run.record("agent_start", {})
    run.record(
        "message_end", {"message": {"kind": "user", "content": [{"type": "text", "text": "hi"}]}}
    )
    run.record("agent_end", {})
    run.close()
    session.close()

    for path in (v1, agentgo):
        print(path)


if __name__ == "__main__":
    main()
