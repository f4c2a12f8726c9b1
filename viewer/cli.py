"""The ``tailscope`` command line: the viewer, ``demo``, and the read-only text commands."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any

from session_core import TranscriptError
from session_core.json_out import EscapedC1, escape_c1
from session_core.text import inert, name_line, one_line
from session_core.views import dump_json, format_for, replay_any

from .signal_end import ended_by_signals
from .stdin_spool import (
    STDIN,
    STDIN_CLOSED,
    StdinError,
    copy_as_it_comes,
    is_piped,
    keys_from_terminal,
    regular_file,
    remove_spool,
    spool_path,
    stdin_closed,
    stdin_file,
    stdin_written_by,
    tell,
)

if TYPE_CHECKING:
    from textual.app import App

    from session_core.exportdoc import View

COMMANDS = ("peek", "replay", "check", "diff", "export", "demo", "view")  # (in the usage's order)
# What ``tailscope demo --format`` can write (viewer.demo.DEMO_FORMATS, named here so that
# parsing a command line does not import the demo).
DEMO_FORMATS = ("transcript-v1", "agentgo-v1", "claude-code", "codex")


def _emit_json(value: Any, pretty: bool) -> None:
    sys.stdout.buffer.write(escape_c1(dump_json(value, pretty), sys.stdout.isatty()))
    sys.stdout.flush()


PIPE_BYTES = 1 << 20  # (Linux's default bound for a user: /proc/sys/fs/pipe-max-size)


def _widen_pipe(stream: IO[str]) -> None:
    """Output to a pipe given a 1 MB buffer where the system allows it: through the
    default 64 KB, a big replay waits on its reader every 64 KB (the 1 GB agentgo
    file's replay into ``wc -c``: 4.8 -> 3.8 s; into /dev/null, 3.5 s)."""
    try:
        import fcntl

        fd = stream.fileno()
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, AttributeError, OSError, ValueError):
        pass  # (not Linux, not a file descriptor, or not allowed: the default buffer)


def _fail(message: str) -> int:
    # (on one line, inert: a path's newline is ⏎, a transcript's escapes are shown)
    print(f"tailscope: {one_line(message)}", file=sys.stderr)
    return 1


def _usage_error(message: str) -> int:
    """Options that do not go together: said as every refusal is, with 2."""
    _fail(message)
    return 2


def cmd_peek(args: argparse.Namespace) -> int:
    from session_core.peeking import peek, write_peek

    if args.pretty:
        result = peek(args.path)
        _emit_json(result.to_json(), args.pretty)
    else:  # written as it is read: a big file's records are never held at once
        result = write_peek(args.path, EscapedC1(sys.stdout.buffer))  # type: ignore[arg-type]
        sys.stdout.flush()
    return 1 if result.error is not None else 0


def cmd_replay(args: argparse.Namespace) -> int:
    from session_core.events import strict_rereads

    try:
        with strict_rereads(args.path):  # (a line changed since it was read ends it)
            if args.pretty:
                view = replay_any(args.path)
            else:  # written as it is built: a big file's replay is never held whole
                fmt = format_for(args.path)
                fmt.write_replay(args.path, EscapedC1(sys.stdout.buffer))  # type: ignore[arg-type]
                sys.stdout.flush()
                return 0
    except TranscriptError as err:
        return _fail(str(err))
    _emit_json(view, args.pretty)
    return 0


def _why(err: TranscriptError, path: str) -> str:
    """What is wrong, without the path the line already begins with (it was said twice:
    ``X: bad: X: line 6: …``); another file's (a subagent's) named."""
    if err.path is not None and os.path.abspath(err.path) != os.path.abspath(path):
        return str(err)
    return f"line {err.line}: {err.reason}" if err.line is not None else err.reason


def cmd_check(args: argparse.Namespace) -> int:
    bad = 0
    try:
        for path in args.paths:
            try:
                note = format_for(path).check(path)
            except TranscriptError as err:
                bad += 1
                print(f"{name_line(path)}: bad: {one_line(_why(err, path))}")  # (a newline: ⏎)
                continue
            print(f"{name_line(path)}: ok ({one_line(note)})")
    except BrokenPipeError:
        if not bad:
            raise  # (``main``'s rule: a reader gone is no failure)
        _drop_output()  # (``check BAD GOOD | head -1``: a bad file was found, and said)
    return 1 if bad else 0


def cmd_diff(args: argparse.Namespace) -> int:
    from session_core.events import strict_rereads

    try:
        with strict_rereads(args.path):  # (a line changed since it was read ends it)
            for piece in format_for(args.path).diff_chunks(args.path):  # (written as made)
                sys.stdout.write(inert(piece))  # (its rows hold the transcript's text)
    except TranscriptError as err:
        return _fail(str(err))
    return 0


def export_refused(args: argparse.Namespace) -> str | None:
    """Why ``export``'s options do not go together (``main`` says it first, a usage error,
    whatever its output), or None."""
    if args.format == "json" and args.view == "raw":
        return "--format json is the replayed view; drop --view raw"
    if args.pretty and args.format != "json":
        return "--pretty indents JSON; it goes with --format json"
    return None


def cmd_export(args: argparse.Namespace) -> int:
    from session_core.export import export_into, open_export

    view: View = "raw" if args.view == "raw" else "replayed"  # (argparse: one of these or None)
    pretty: bool = args.pretty
    try:
        if args.output is None:  # (written as made: a big export is never whole)
            export_into(args.path, args.format, view, sys.stdout.buffer, pretty=pretty)
            sys.stdout.flush()
        else:
            with ended_by_signals(), open_export(args.output, args.path) as out:
                export_into(args.path, args.format, view, out, pretty=pretty)
    except TranscriptError as err:
        return _fail(str(err))
    except OSError as err:
        if args.output is None or isinstance(err, BrokenPipeError):
            raise  # (standard output, or a pipe named, full or gone: ``main``'s rule)
        return _fail(f"{args.output}: cannot write the export: {err.strerror}")
    return 0


def no_terminal(keys_from_tty: bool = False) -> str | None:
    """Why the viewer cannot run here (None: it can): it reads keys from standard input
    and draws on standard error (Textual's driver: standard output may go to a file).
    Without a terminal there (``tailscope X < /dev/null 2> out``) it drew escapes into
    a file and spun on standard input's end for good. (``keys_from_tty``: standard input
    is the transcript, and keys come from ``/dev/tty``, asked for when it is opened.)"""
    streams = (("input", sys.stdin), ("error", sys.__stderr__))
    for name, stream in streams[1:] if keys_from_tty else streams:
        if stream is None or not stream.isatty():
            return (
                f"the viewer needs a terminal, and standard {name} is none; "
                "without one, peek, replay, check, diff and export read the file"
            )
    return None


def cmd_view(args: argparse.Namespace) -> int:
    from viewer.app import TailscopeApp

    if args.path == STDIN:
        return _view_stdin()
    _steady_heap()
    return _ran(TailscopeApp(args.path))


def _ran(app: App[Any]) -> int:
    """Run the app: its exit code (1 where it ended on an error it showed, not 0). SIGTERM
    and SIGHUP end it at once, the terminal given back (``ended_by_signals``)."""
    with ended_by_signals(_nothing):
        app.run()
    return app.return_code or 0


def _nothing() -> None:
    """Nothing to clean up but the terminal (a viewer of a file)."""


def _view_stdin() -> int:
    """The viewer following standard input: the file it is, or a copy of the pipe made
    as it comes (``stdin_spool``), its end or a failed copy told on screen."""
    from viewer.app import TailscopeApp

    if sys.stdin is not None and sys.stdin.isatty():
        return _fail("standard input is the terminal: pipe a transcript in (cat X | tailscope -)")
    where = regular_file()
    try:
        piped = keys_from_terminal()
    except OSError as err:
        return _fail(
            "standard input is the transcript, and there is no terminal (/dev/tty) "
            f"to read keys from: {err.strerror or err}"
        )
    _steady_heap()
    if where is not None:  # (``tailscope - < run.jsonl``: the file itself, followed)
        os.close(piped)
        return _ran(TailscopeApp(where))
    with spool_path() as path, ended_by_signals(lambda: remove_spool(path)):
        app = TailscopeApp(str(path))
        copy_as_it_comes(piped, path, lambda said, error: tell(app, said, error))
        app.run()  # (not ``_ran``: its handler would not remove the copy)
        return app.return_code or 0


def cannot_view(args: argparse.Namespace | None) -> str | None:
    """Why the viewer is refused (None: it runs): a path whose folder is missing too (a
    file that is not there yet is waited for, as `tail -F` does: the agent may not have
    started), then no terminal (``no_terminal``)."""
    path = getattr(args, "path", None)
    if path == STDIN:
        if stdin_closed():  # (``tailscope - <&-``: else /dev/tty is opened as its 0)
            return STDIN_CLOSED
        return no_terminal(keys_from_tty=True)
    if path == "":  # (else the working folder's, followed as the file's)
        from session_core.reader import empty_path

        return str(empty_path())
    folder = None if path is None else os.path.dirname(os.path.abspath(path))
    if path is not None and not os.path.exists(path) and not os.path.isdir(folder or ""):
        return f"{path}: no such file or directory, nor its folder"
    if path is not None and _is_pipe(path):  # (``tailscope <(zstdcat x.zst)``: never a
        from session_core.reader import not_a_file  # file; it was waited for as one)

        return str(not_a_file(path, "tailscope"))
    return no_terminal()


def _is_pipe(path: str) -> bool:
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _steady_heap() -> None:
    """The viewer holds a big file for hours: its heap is kept free of the holes a load's
    1 MB batches leave (``steady_malloc``: 171 -> 149 MB for a 1 GB v1 file, against a
    threshold fixed at 2 MB, in tmux). Not for the batch commands: each big buffer mapped
    and unmapped cost ``check`` of a 1 GB file about 2 s of system time, for 9 MB."""
    from session_core.malloc import steady_malloc

    steady_malloc()


def cmd_demo(args: argparse.Namespace) -> int:
    from viewer.demo import run_demo

    return run_demo(speed=args.speed, keep=args.keep, format=args.format)


class _Parser(argparse.ArgumentParser):
    """argparse's, its refusals inert: "unrecognized arguments" quotes every file name
    a glob gave, and a name's escape sequences reached the terminal raw."""

    def error(self, message: str) -> Any:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {one_line(message)}\n")


class _CommandParser(_Parser):
    """A command's parser: an argument it does not take is refused with its usage
    (argparse hands it up to the top level's, whose usage names no command's options)."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tailscope",
        description="Watch, browse and compare agent transcripts. `tailscope` alone lists "
        "the sessions Claude Code and Codex keep, `tailscope DIR` every transcript below "
        "DIR, `tailscope PATH` opens the viewer; `-` for a PATH is standard input. "
        "No command writes a transcript; only "
        "`demo` and `export -o FILE` write at all.",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_CommandParser)
    p = sub.add_parser("peek", help="what the file says, as JSON (never writes)")
    p.add_argument("path")
    p.add_argument("--pretty", action="store_true", help="indent the JSON")
    p.set_defaults(run=cmd_peek)
    p = sub.add_parser("replay", help="the replayed view, as JSON (read-only)")
    p.add_argument("path")
    p.add_argument("--pretty", action="store_true", help="indent the JSON")
    p.set_defaults(run=cmd_replay)
    p = sub.add_parser("check", help="validate files, one line each")
    p.add_argument("paths", nargs="+")
    p.set_defaults(run=cmd_check)
    p = sub.add_parser("diff", help="raw versus replayed, as text")
    p.add_argument("path")
    p.set_defaults(run=cmd_diff)
    p = sub.add_parser("export", help="the transcript as Markdown, HTML or JSON (read-only)")
    p.add_argument("path")
    p.add_argument("--format", required=True, choices=("md", "html", "json"))
    p.add_argument(
        "--view",
        choices=("replayed", "raw"),
        default=None,
        help="replayed (default): what the model is sent next; raw: every line as written",
    )
    p.add_argument("-o", "--output", help="write here (atomically) instead of to stdout")
    p.add_argument("--pretty", action="store_true", help="indent the JSON (--format json)")
    p.set_defaults(run=cmd_export, refused=export_refused)
    p = sub.add_parser("demo", help="a simulated live agent run, in the viewer")
    p.add_argument("--speed", type=float, default=1.0, help="how fast the agent works")
    p.add_argument("--keep", action="store_true", help="keep the demo directory")
    p.add_argument(
        "--format",
        choices=DEMO_FORMATS,
        default=DEMO_FORMATS[0],
        help="which of the four files the demo writes (one per format) the viewer opens",
    )
    p.set_defaults(run=cmd_demo)
    p = sub.add_parser("view", help="open the viewer (the same as `tailscope PATH`)")
    p.add_argument("path")
    p.set_defaults(run=cmd_view)
    # (the forms people start with first: argparse's own usage named the commands alone)
    commands = ",".join(sub.choices)
    parser.usage = f"%(prog)s [PATH | DIR | -]\n       %(prog)s [-h] {{{commands}}} ..."
    return parser


def cmd_home() -> int:
    """``tailscope`` with no path: the browser over this machine's agent sessions."""
    from session_core.scan import default_roots
    from viewer.app import TailscopeApp

    _steady_heap()
    app = TailscopeApp(default_roots())
    with ended_by_signals(_nothing):
        chosen = app.run()
    if chosen == "demo":  # the welcome screen's offer
        from viewer.demo import run_demo

        return run_demo(speed=1.0, keep=False, format=DEMO_FORMATS[0])
    return app.return_code or 0


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    first = args_list[0] if args_list else ""
    if first == "help" and not os.path.lexists(first):  # (no file of that name to view)
        args_list[0] = "--help"
    elif first == STDIN:  # (``cat X | tailscope -``)
        args_list.insert(0, "view")
    elif first.startswith("-") and first not in ("-h", "--help"):
        _parser().error(f"unrecognized option: {first}")  # (not "a command is required")
    elif args_list and first not in COMMANDS and not first.startswith("-"):
        if len(args_list) > 1 and not os.path.lexists(first):  # (not ``view``'s usage:
            commands = ", ".join(COMMANDS)  # "unrecognized arguments" named the rest)
            _parser().error(f"{first}: no such command ({commands}), nor a file to view")
        args_list.insert(0, "view")
    args = _parser().parse_args(args_list) if args_list else None
    if args is None and is_piped():  # (``cat X | tailscope``: standard input is viewed)
        args = _parser().parse_args(["view", STDIN])
    if args is None or args.run in (cmd_view, cmd_demo):  # (the browser, a file, the demo)
        why = cannot_view(args)
        if why is not None:
            return _fail(why)
        if args is None:
            return cmd_home()
    refused = getattr(args, "refused", None)  # (options that do not go together: first)
    if refused is not None and (why := refused(args)) is not None:
        return _usage_error(why)
    if sys.stdout is None and _writes_stdout(args):  # (``tailscope peek X >&-``)
        return _fail("standard output is closed: there is nowhere to write")
    read = _read_into_stdout(args)
    if read is not None:  # (``tailscope replay X >> X``: a read never writes the file)
        return _fail(f"{read}: is where standard output goes; a read never writes into it")
    _widen_pipe(sys.stdout)
    if isinstance(sys.stdout, io.TextIOWrapper):  # (text a locale's encoding cannot
        sys.stdout.reconfigure(errors="backslashreplace")  # hold is escaped, not a crash)
    try:
        with _stdin_as_file(args):
            code: int = args.run(args)
    except StdinError as err:  # (before the command ran: its output is untouched)
        return _fail(str(err))
    except BrokenPipeError:
        _drop_output()
        return 0
    except KeyboardInterrupt:
        return 130
    except OSError as err:
        if err.filename is not None:  # (a file of the command's, not its output)
            return _fail(f"{err.filename}: {err.strerror or err}")
        _drop_output()  # (standard output full or gone, ``> /dev/full``: said, once)
        return _fail(f"standard output: cannot write: {err.strerror or err}")
    return code


@contextlib.contextmanager
def _stdin_as_file(args: argparse.Namespace) -> Iterator[None]:
    """A text command's ``-``: standard input as a file (``stdin_spool.stdin_file``),
    which the command reads in its place (every ``-`` of ``check``'s paths the same)."""
    named = getattr(args, "paths", None) or [getattr(args, "path", None)]
    if args.run is cmd_view or STDIN not in named:
        yield
        return
    with ended_by_signals(), stdin_file() as path:
        if hasattr(args, "paths"):
            args.paths = [path if p == STDIN else p for p in args.paths]
        else:
            args.path = path
        yield


def _writes_stdout(args: argparse.Namespace) -> bool:
    """Whether the command's output goes to standard output (``export -o`` says where)."""
    if args.command == "export":
        return args.output is None
    return args.command in ("peek", "replay", "check", "diff")


def _read_into_stdout(args: argparse.Namespace) -> str | None:
    """The transcript a text command would write its output into, if standard output is
    it (None: it is not)."""
    from session_core.reader import opened_as

    if not _writes_stdout(args) or sys.stdout is None:
        return None
    try:
        out = sys.stdout.fileno()
    except (OSError, ValueError):
        return None
    for path in getattr(args, "paths", None) or [args.path]:
        if path == STDIN:  # (``replay - < X >> X``: standard input's file, by its inode)
            if (named := stdin_written_by(out)) is not None:
                return named
        elif opened_as(out, path):
            return str(path)
    return None


def _drop_output() -> None:
    """Standard output sent nowhere: what is still buffered in it is not written again
    at exit (a second error there, or a traceback)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
