"""The `zepkit` command: a demo of the memory loop, a look into a local memory database (on the
terminal or in a local web page), its LLM extraction worker and what it cost, export and import
of memory, and the outbox of writes kept while memory was unavailable."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import importlib
import json
import logging
import os
import signal
import sys
import textwrap
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TextIO

from zepkit.core._errors import ConfigurationError, NotFoundError, ZepkitError
from zepkit.core._limits import MAX_QUERY_CHARS, MAX_SEARCH_LIMIT
from zepkit.core._loop import MemoryLoop
from zepkit.core._models import SCOPES, Identity
from zepkit.core._progress import Progress
from zepkit.core._search_tool import format_results
from zepkit.core._statedir import local_outbox_path, zep_outbox_path
from zepkit.core._transfer import TransferCounts, export_memory, import_memory
from zepkit.core._version import __version__

if TYPE_CHECKING:
    from zepkit.core._inspector.server import InspectorServer

INTERRUPTED = 130  # the shell's code for a command ended by Ctrl-C
DELEGATED: dict[str, tuple[str, str, str]] = {
    "serve": (
        "zepkit.server.cli",
        "zepkit[server]",
        "run the self-hosted, Zep-compatible memory server",
    ),
    "mcp": (
        "zepkit.mcp._cli",
        "zepkit[mcp]",
        "serve memory to MCP clients (desktop assistants, IDE agents) on stdio or HTTP",
    ),
}
"""Commands other distributions provide: name -> (module with `main(argv, prog=...)`, what to
install, one line of help)."""

DEMO_USER = Identity(user_id="demo-maya", thread_id="demo-session-1", first_name="Maya")

SESSION_1 = (
    (
        "Hi! I'm Maya. I just moved to Lisbon to work at the Oceanarium.",
        "Welcome to Lisbon, Maya! Congratulations on the new job.",
    ),
    (
        "My dog Biscuit is a border collie and he loves the beach at Cascais.",
        "Biscuit sounds like great company for beach days.",
    ),
    (
        "I'm allergic to peanuts, so keep that in mind when you suggest food.",
        "Noted: no peanuts in anything I suggest.",
    ),
)
SESSION_2_QUESTION = "Can you plan a relaxed Saturday for me and my dog, with a snack on the way?"


def _rule(title: str) -> str:
    return f"\n== {title} " + "=" * max(0, 70 - len(title))


DEMO_DB = "zepkit-demo.db"
"""Where the demo keeps its memory unless told otherwise, so the CLI can look into it after."""


async def run_demo(db_path: str) -> int:
    """Two sessions of one user: session 1 tells facts, session 2's first turn recalls them.

    The demo's own threads are replayed from scratch when the file already has them."""
    session_2 = DEMO_USER.model_copy(update={"thread_id": "demo-session-2"})
    async with MemoryLoop.local(db_path) as memory:
        for thread_id in (DEMO_USER.thread_id, session_2.thread_id):
            with contextlib.suppress(NotFoundError):  # a new file has none
                await memory.delete_thread(thread_id)
        print(_rule("Session 1: Maya tells the assistant about herself"))
        print(f"  user id: {DEMO_USER.user_id}   thread id: {DEMO_USER.thread_id}\n")
        for number, (said, answered) in enumerate(SESSION_1, start=1):
            await memory.begin_turn(DEMO_USER, said, turn_id=f"s1-{number}")
            await memory.capture_reply(DEMO_USER, answered, turn_id=f"s1-{number}")
            print(f"  Maya:      {said}\n  Assistant: {answered}")

        facts = await memory.search(
            "Maya Lisbon Biscuit peanuts", user_id=DEMO_USER.user_id, limit=10
        )
        print(_rule("What the memory stored (facts; greetings and thanks are not facts)"))
        print(textwrap.indent(format_results(facts), "  "))

        block = await memory.begin_turn(session_2, SESSION_2_QUESTION, turn_id="s2-1")
        print(_rule("Session 2, a new thread: Maya asks"))
        print(f"  user id: {session_2.user_id}   thread id: {session_2.thread_id}\n")
        print(f"  Maya: {SESSION_2_QUESTION}")
        print(_rule("Context block injected into the model's system prompt"))
        print(block or "(no context)")
    print(_rule("Look into the memory yourself"))
    print(f"  zepkit search --db {db_path} --user {DEMO_USER.user_id} allergy")
    print(f"  zepkit context --db {db_path} --thread {session_2.thread_id}")
    print(f"  zepkit ui --db {db_path}    (a web page on this machine)")
    return 0 if block else 1


def _reader(db_path: str) -> MemoryLoop:
    """A loop that only reads the file: inspection never changes it, nor adopts a foreign one."""
    from zepkit.local import LocalBackend

    return MemoryLoop(LocalBackend(db_path, read_only=True), on_error="raise")


async def run_search(db_path: str, user_id: str, query: str, scope: str, limit: int) -> int:
    async with _reader(db_path) as memory:
        results = await memory.search(query, user_id=user_id, scope=scope, limit=limit)  # type: ignore[arg-type]
        print(format_results(results))
        return 0


async def run_context(db_path: str, thread_id: str) -> int:
    async with _reader(db_path) as memory:
        print(memory.render(await memory.get_context(thread_id)) or "(no context)")
        return 0


async def run_embed(db_path: str, batch_size: int) -> int:
    """Give the database's episodes without a vector one, with the local embedding model."""
    from zepkit.local import LocalBackend, minilm

    if not minilm.available():
        raise ZepkitError(f"embedding needs the local embedding model: {minilm.INSTALL_HINT}")
    # Opening the file would warn that episodes lack vectors and suggest this very command.
    logging.getLogger("zepkit.local").setLevel(logging.ERROR)
    progress = Progress("embedding", unit="episodes")
    async with LocalBackend(db_path, retriever="hybrid") as backend:
        try:
            made = await backend.embed_missing(batch_size=batch_size, progress=progress.update)
        finally:
            progress.done()
    print(f"embedded {made} episodes")
    return 0


async def run_worker(db_path: str, once: bool, retry_dead: bool) -> int:
    """Run LLM extraction for a database apart from the app: until Ctrl-C, or with `once` over
    what waits now. The model comes from `ZEPKIT_LLM_BASE_URL` / `_MODEL` / `_API_KEY` /
    `_TIMEOUT`."""
    from zepkit.local import LocalBackend
    from zepkit.local.llm import ENV_BASE_URL, ENV_MODEL, LLMExtractor

    llm = LLMExtractor.from_env()
    if llm is None:
        raise ZepkitError(f"set {ENV_BASE_URL} and {ENV_MODEL} to the model to extract with")
    async with LocalBackend(db_path, llm=llm, llm_worker=not once) as backend:
        if retry_dead:
            print(f"{await backend.retry_dead_extraction()} dead jobs queued again")
        if once:
            print(json.dumps(dataclasses.asdict(await backend.extract_pending())))
            return 0
        print(
            f"zepkit worker: extracting from {db_path} with {llm.model} at {llm.url}; Ctrl-C stops",
            file=sys.stderr,
        )
        await asyncio.Event().wait()  # the worker runs on its own thread until Ctrl-C
        return 0


def run_stats(db_path: str) -> int:
    """Print what LLM extraction did and cost in a database, as JSON."""
    from zepkit.core._sqlite import open_connection
    from zepkit.local.llmstats import extraction_stats

    conn = open_connection(db_path, read_only=True)
    try:
        print(json.dumps(extraction_stats(conn), indent=2))
    finally:
        conn.close()
    return 0


def outbox_of(outbox: str | None, db: str | None, zep: bool) -> str:
    """The outbox a command reads: the file named, else the one the memory named keeps by
    default (`PATH.outbox` for a local database, `MemoryLoop.zep()`'s in the state folder)."""
    if outbox is not None:
        return outbox
    if db is not None:
        return local_outbox_path(db)
    key = os.environ.get("ZEP_API_KEY") if zep else None
    default = zep_outbox_path(key, None) if key else None
    if default is None:
        raise ConfigurationError(
            "name the outbox: --outbox FILE, or --db PATH (its outbox is PATH.outbox), or --zep "
            "with ZEP_API_KEY set (the project's outbox in zepkit's state folder)"
        )
    return default


def run_outbox_status(outbox_path: str) -> int:
    """Print what waits in an outbox, as JSON (all zeros when there is no outbox yet)."""
    from zepkit.core._outbox import DEFAULT_MAX_ITEMS, Outbox, OutboxStatus

    if not os.path.exists(outbox_path):  # made only when a write first waits: none has
        empty = OutboxStatus(outbox_path, 0, 0, None, DEFAULT_MAX_ITEMS)
        print(json.dumps(empty.as_dict(), indent=2))
        return 0
    outbox = Outbox(outbox_path)
    try:
        print(json.dumps(outbox.status().as_dict(), indent=2))
    finally:
        outbox.close()
    return 0


async def run_outbox_replay(
    outbox_path: str, db: str | None, zep: bool, id_map: str | None, failed: bool
) -> int:
    """Deliver an outbox's writes to the local database or to Zep; 1 while some still wait."""
    from zepkit.core._outbox import Outbox

    outbox = Outbox(outbox_path)
    if zep:
        from zepkit.zep import SqliteIdMap

        ids = SqliteIdMap(id_map) if id_map else None
        memory = MemoryLoop.zep(id_map=ids, outbox=outbox, on_error="raise")
    else:
        assert db is not None
        memory = MemoryLoop.local(db, outbox=outbox, on_error="raise")
    async with memory:
        delivered = await memory.replay_outbox(failed=failed)
        status = outbox.status()
    print(f"delivered {delivered} writes; {status.pending} wait, {status.failed} set aside")
    return 0 if status.pending == 0 else 1


def inspector_server(
    db_path: str, *, host: str = "127.0.0.1", port: int = 0, allow_delete: bool = False
) -> InspectorServer:
    """The inspector page of a local database, bound but not serving yet (`start()` or
    `serve_forever()`); read-only unless `allow_delete`. `close()` closes the database."""
    from zepkit.core._inspector.api import InspectorApi
    from zepkit.core._inspector.server import InspectorServer, check_loopback
    from zepkit.local import LocalBackend
    from zepkit.local.inspect import Inspector

    check_loopback(host)  # before the file is opened: a refused address changes nothing
    # The page never runs LLM extraction: that is the app's (or `zepkit worker`'s) job.
    backend = LocalBackend(db_path, read_only=not allow_delete, llm=False)
    # With deletion on, the loop is the one apps open (`MemoryLoop.local`), outbox included,
    # so a deleted thread's waiting writes are not replayed into the file later.
    outbox = local_outbox_path(db_path) if allow_delete else None
    memory = MemoryLoop(backend, on_error="raise", outbox=outbox)
    api = InspectorApi(memory, Inspector(backend), database=db_path, allow_delete=allow_delete)
    try:
        return InspectorServer(api, host=host, port=port)
    except BaseException:
        asyncio.run(memory.aclose())
        raise


def run_ui(db_path: str, host: str, port: int, allow_delete: bool) -> int:
    """Serve the inspector page until Ctrl-C or SIGTERM."""
    server = inspector_server(db_path, host=host, port=port, allow_delete=allow_delete)
    stop = _stop_on_sigterm(server)
    try:
        mode = "deleting allowed" if allow_delete else "read-only"
        print(f"zepkit ui: {db_path} ({mode}) at {server.url}", flush=True)
        print("Ctrl-C stops it.", flush=True)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        stop()
        server.close()
    print("zepkit ui: stopped", flush=True)
    return 0


def _stop_on_sigterm(server: InspectorServer) -> Callable[[], None]:
    """Make SIGTERM end `serve_forever` like Ctrl-C does; returns what puts the old handler back."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None  # signal handlers belong to the main thread

    def stop(signum: int, frame: object) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    previous = signal.signal(signal.SIGTERM, stop)

    def restore() -> None:
        signal.signal(signal.SIGTERM, previous)

    return restore


def _memory(db: str | None, zep: bool, id_map: str | None, *, read_only: bool) -> MemoryLoop:
    """A strict loop on the local database file or on Zep Cloud (reads ZEP_API_KEY)."""
    if zep:
        from zepkit.zep import SqliteIdMap

        ids = SqliteIdMap(id_map) if id_map else None
        return MemoryLoop.zep(id_map=ids, outbox=None, on_error="raise")
    from zepkit.local import LocalBackend

    assert db is not None
    return MemoryLoop(LocalBackend(db, read_only=read_only), on_error="raise")


async def _export(
    db: str | None, zep: bool, id_map: str | None, users: list[str] | None, out: TextIO
) -> TransferCounts:
    progress = Progress("exporting", unit="messages")
    async with _memory(db, zep, id_map, read_only=True) as memory:
        try:
            return await export_memory(
                memory, out, user_ids=users, progress=lambda done: progress.update(done.messages)
            )
        finally:
            progress.done()


def run_export(
    db: str | None, zep: bool, id_map: str | None, users: list[str] | None, out: str
) -> int:
    """Write the memory (or the given users) to a JSON Lines file, made whole or not at all."""
    partial = out + ".partial"
    try:
        with open(partial, "w", encoding="utf-8") as stream:
            counts = asyncio.run(_export(db, zep, id_map, users, stream))
        os.replace(partial, out)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.remove(partial)
    print(f"exported {counts.summary()} to {out}")
    return 0


async def _import(
    db: str | None, zep: bool, id_map: str | None, lines: Iterable[str]
) -> TransferCounts:
    progress = Progress("importing", unit="messages")
    async with _memory(db, zep, id_map, read_only=False) as memory:
        try:
            return await import_memory(
                memory, lines, progress=lambda done: progress.update(done.messages)
            )
        finally:
            progress.done()


def run_import(db: str | None, zep: bool, id_map: str | None, source: str) -> int:
    """Read an export into the memory; a re-run (or a run after an interruption) adds nothing
    that is already there."""
    with open(source, encoding="utf-8") as lines:
        counts = asyncio.run(_import(db, zep, id_map, lines))
    print(f"imported {counts.import_summary()} from {source}")
    return 0


def _existing_db(path: str) -> str:
    if not os.path.exists(path):
        raise argparse.ArgumentTypeError(f"no database at {path}")
    if os.path.isdir(path):
        raise argparse.ArgumentTypeError(f"{path} is a folder; give the database file in it")
    return path


def _whole_number(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number in [low, high], refused in words otherwise."""
    wanted = f"a whole number from {low} to {high}" if high else f"a whole number of {low} or more"

    def parse(text: str) -> int:
        try:
            number = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {wanted}") from None
        if number < low or (high is not None and number > high):
            raise argparse.ArgumentTypeError(f"{number} is not {wanted}")
        return number

    return parse


def _query(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("the search text is empty")
    if len(text) > MAX_QUERY_CHARS:
        raise argparse.ArgumentTypeError(
            f"the search text has {len(text):,} characters; at most {MAX_QUERY_CHARS} are searched"
        )
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zepkit", description="Long-term memory for AI agents: demo and inspection tools."
    )
    parser.add_argument(
        "--version", action="version", version=f"zepkit {__version__}", help="show the version"
    )
    commands = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="COMMAND",
        help="one of the commands below; `zepkit COMMAND --help` lists its options",
    )
    demo = commands.add_parser(
        "demo", help="run a scripted two-session conversation and show what is recalled"
    )
    demo.add_argument(
        "--db",
        metavar="PATH",
        default=DEMO_DB,
        help=f"database file the demo keeps for you to look into (default: {DEMO_DB})",
    )
    search = commands.add_parser("search", help="search one user's memory in a database")
    search.add_argument(
        "--db", metavar="PATH", required=True, type=_existing_db, help="the database file"
    )
    search.add_argument("--user", required=True, metavar="ID", help="the app's id for the user")
    search.add_argument(
        "--scope",
        default="edges",
        choices=[s for s in SCOPES if s in ("edges", "nodes", "episodes", "auto")],
        help="what to search: facts (edges, the default), entities (nodes), the stored messages "
        "and data (episodes), or a ready context block (auto)",
    )
    search.add_argument(
        "--limit",
        type=_whole_number(1, MAX_SEARCH_LIMIT),
        default=10,
        metavar="N",
        help=f"at most N results, 1 to {MAX_SEARCH_LIMIT} (default: 10)",
    )
    search.add_argument("query", type=_query, help="what to look for, in plain words")
    context = commands.add_parser(
        "context", help="show the context block a thread's next turn would receive"
    )
    context.add_argument(
        "--db", metavar="PATH", required=True, type=_existing_db, help="the database file"
    )
    context.add_argument(
        "--thread", required=True, metavar="ID", help="the app's id for the thread"
    )
    embed = commands.add_parser(
        "embed", help="make vectors for episodes stored before dense search was installed"
    )
    embed.add_argument(
        "--db", metavar="PATH", required=True, type=_existing_db, help="the database file"
    )
    embed.add_argument(
        "--batch-size",
        type=_whole_number(1),
        default=256,
        metavar="N",
        help="episodes embedded and written per step (default: 256)",
    )
    ui = commands.add_parser(
        "ui", help="browse a database in a local web page: users, threads, facts, entities"
    )
    ui.add_argument(
        "--db", metavar="PATH", required=True, type=_existing_db, help="the database file"
    )
    ui.add_argument(
        "--host",
        default="127.0.0.1",
        help="a loopback address to serve on (default: 127.0.0.1); others are refused",
    )
    ui.add_argument(
        "--port",
        type=_whole_number(0, 65535),
        default=8765,
        metavar="N",
        help="the port (default: 8765; 0 picks a free one)",
    )
    ui.add_argument(
        "--allow-delete",
        action="store_true",
        help="let the page delete threads and users (each after its id is typed again); "
        "without it the file is opened read-only",
    )
    worker = commands.add_parser(
        "worker",
        help="run LLM memory extraction for a database in its own process "
        "(reads ZEPKIT_LLM_BASE_URL, ZEPKIT_LLM_MODEL, ZEPKIT_LLM_API_KEY, ZEPKIT_LLM_TIMEOUT)",
    )
    worker.add_argument(
        "--db", metavar="PATH", required=True, type=_existing_db, help="the database file"
    )
    worker.add_argument(
        "--once", action="store_true", help="extract what waits now, print what was done, stop"
    )
    worker.add_argument(
        "--retry-dead",
        action="store_true",
        help="first queue again the messages set aside after repeated failures",
    )
    stats = commands.add_parser(
        "stats", help="what LLM extraction did and cost in a database: calls, tokens, queue (JSON)"
    )
    stats.add_argument(
        "--db", metavar="PATH", required=True, type=_existing_db, help="the database file"
    )
    for name, (_, install, summary) in DELEGATED.items():
        commands.add_parser(name, help=f"{summary} (needs {install})", add_help=False)
    outbox = commands.add_parser(
        "outbox", help="writes kept while memory was unavailable: status, replay"
    )
    actions = outbox.add_subparsers(
        dest="action", required=True, metavar="ACTION", help="status or replay"
    )
    status = actions.add_parser("status", help="what waits in an outbox (JSON)")
    named = status.add_mutually_exclusive_group(required=True)
    named.add_argument("--outbox", type=_existing_db, help="the outbox file")
    named.add_argument(
        "--db", type=_existing_db, help="a local memory database: its outbox, PATH.outbox"
    )
    named.add_argument(
        "--zep", action="store_true", help="Zep Cloud: the project's outbox (reads ZEP_API_KEY)"
    )
    replay = actions.add_parser("replay", help="deliver the waiting writes now, in order")
    replay.add_argument(
        "--outbox",
        type=_existing_db,
        help="the outbox file (default: the one the memory below keeps, as for status)",
    )
    target = replay.add_mutually_exclusive_group(required=True)
    target.add_argument(
        "--db", type=_existing_db, help="the local memory database the writes belong to"
    )
    target.add_argument("--zep", action="store_true", help="Zep Cloud (reads ZEP_API_KEY)")
    replay.add_argument(
        "--id-map", metavar="PATH", help="with --zep: the SqliteIdMap file of the app"
    )
    replay.add_argument(
        "--failed", action="store_true", help="also retry writes set aside as refused"
    )
    export = commands.add_parser(
        "export", help="write users, threads and messages to a JSON Lines file"
    )
    _memory_options(export, existing=True)
    export.add_argument(
        "--user",
        action="append",
        metavar="ID",
        help="only this user (repeat for more; default: every user)",
    )
    export.add_argument("--out", required=True, metavar="FILE", help="the file to write")
    importer = commands.add_parser(
        "import", help="read an export into a memory (a re-run adds nothing twice)"
    )
    _memory_options(importer, existing=False)
    importer.add_argument("file", type=_existing_file, help="a file written by zepkit export")
    return parser


def _existing_file(path: str) -> str:
    if not os.path.isfile(path):
        raise argparse.ArgumentTypeError(f"no file at {path}")
    return path


def _memory_options(command: argparse.ArgumentParser, *, existing: bool) -> None:
    target = command.add_mutually_exclusive_group(required=True)
    target.add_argument(
        "--db",
        metavar="PATH",
        type=_existing_db if existing else str,
        help="the local memory database" + ("" if existing else " (created when missing)"),
    )
    target.add_argument("--zep", action="store_true", help="Zep Cloud (reads ZEP_API_KEY)")
    command.add_argument(
        "--id-map", metavar="PATH", help="with --zep: the SqliteIdMap file of the app"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit code. Errors and Ctrl-C end it with one line on stderr."""
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        if words and words[0] in DELEGATED:
            return run_delegated(words[0], words[1:])
        return _run(build_parser().parse_args(words))
    except KeyboardInterrupt:
        print("zepkit: interrupted", file=sys.stderr)
        return INTERRUPTED


def run_delegated(name: str, argv: list[str]) -> int:
    """Hand `zepkit NAME ...` to the command of the distribution that provides it, or say how to
    install that distribution."""
    module_name, install, _ = DELEGATED[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        package = module_name.rsplit(".", 1)[0]
        if exc.name is None or not (exc.name == package or exc.name.startswith(package + ".")):
            raise  # the command is installed but something it needs is not: say that
        print(f'zepkit: "zepkit {name}" needs {install}: pip install "{install}"', file=sys.stderr)
        return 2
    command: Callable[..., int] = module.main
    return command(argv, prog=f"zepkit {name}")


def _run(args: argparse.Namespace) -> int:
    try:
        if args.command == "demo":
            return asyncio.run(run_demo(args.db))
        if args.command == "search":
            return asyncio.run(run_search(args.db, args.user, args.query, args.scope, args.limit))
        if args.command == "export":
            return run_export(args.db, args.zep, args.id_map, args.user, args.out)
        if args.command == "import":
            return run_import(args.db, args.zep, args.id_map, args.file)
        if args.command == "embed":
            return asyncio.run(run_embed(args.db, args.batch_size))
        if args.command == "ui":
            return run_ui(args.db, args.host, args.port, args.allow_delete)
        if args.command == "worker":
            return asyncio.run(run_worker(args.db, args.once, args.retry_dead))
        if args.command == "stats":
            return run_stats(args.db)
        if args.command == "outbox":
            path = outbox_of(args.outbox, args.db, args.zep)
            if args.action == "status":
                return run_outbox_status(path)
            if not os.path.exists(path):  # made only when a write first waits: none has
                print(f"delivered 0 writes; none waits (no outbox at {path})")
                return 0
            return asyncio.run(run_outbox_replay(path, args.db, args.zep, args.id_map, args.failed))
        return asyncio.run(run_context(args.db, args.thread))
    except (ValueError, ZepkitError) as exc:
        print(f"zepkit: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a readable line, not a traceback, for a command-line user
        print(f"zepkit: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
