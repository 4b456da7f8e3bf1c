"""`zepkit serve` (also installed as `zepkit-serve`): run the server on uvicorn until SIGINT or
SIGTERM (uvicorn lets requests in flight finish, then the app closes every project's database).
With `--workers N`, N forked processes serve the one port (on Linux each from a socket of its
own, see `spreads_connections`), all on the same data folder: the local engine and the id
registry are SQLite files in WAL mode, safe for several processes, and neither keeps anything
in a process that another process's write can make wrong."""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import os
import signal
import socket
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType
from typing import IO

import uvicorn

from zepkit.core import __version__
from zepkit.server.app import V3_PREFIX, V4_PREFIX, create_app
from zepkit.server.auth import ENV_VAR, KeyListError, KeyRing, load_keys
from zepkit.server.backends import BackendChoiceError, memory_factory
from zepkit.server.projects import MemoryFactory, RetrieverMode, local_backend
from zepkit.server.sends import OneSendProtocol

LOCK_NAME = "zepkit-serve.lock"


def hold_folder(folder: Path) -> IO[bytes] | None:
    """Take the data folder for this server (kept until exit, shared by its workers); None when
    another server has it. Two servers on one folder would be safe but are almost always a
    mistake (a second command meant for another folder); `--workers` is how to run more
    processes on one folder."""
    folder.mkdir(parents=True, exist_ok=True)
    handle = (folder / LOCK_NAME).open("ab")
    try:
        import fcntl
    except ImportError:  # not POSIX: no guard
        return handle
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    return handle


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _Stopped(Exception):
    pass


def _stopped(signum: int, frame: object) -> None:
    raise _Stopped


class _Server(uvicorn.Server):
    """Says when it accepts requests (and handles SIGINT and SIGTERM)."""

    def __init__(self, config: uvicorn.Config, started: Callable[[], object]) -> None:
        super().__init__(config)
        self.on_started = started

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self.on_started()


Serve = Callable[[Callable[[], object]], None]
"""Serves until stopped, calling its argument once it accepts requests."""


def _server(
    listener: Callable[[], socket.socket],
    data: Path,
    keys: KeyRing | None,
    factory: MemoryFactory | None,
    retriever: RetrieverMode,
) -> Serve:
    def serve(started: Callable[[], object]) -> None:
        # The app is made here, in the process that serves: a worker opens its own databases.
        backend = local_backend(retriever) if factory is None else None
        app = create_app(data, keys=keys, backend_factory=backend, memory_factory=factory)
        # No access log: at level warning it is never written, yet each request would still
        # format its path and client address for it. No proxy headers: nothing here reads the
        # client's address or scheme, and uvicorn would wrap every request to rewrite them.
        config = uvicorn.Config(
            app,
            log_level="warning",
            lifespan="on",
            access_log=False,
            proxy_headers=False,
            http=OneSendProtocol,
        )
        # uvicorn shuts down gracefully on SIGINT/SIGTERM, then raises the signal again for the
        # handler that was there before it: ours turns that into a normal exit.
        for stop in (signal.SIGINT, signal.SIGTERM):
            signal.signal(stop, _stopped)
        with contextlib.suppress(_Stopped):
            _Server(config, started).run(sockets=[listener()])

    return serve


def _worker(serve: Serve, ready: int) -> None:
    """A forked worker: serve, tell the parent once listening, and never return to its code."""
    code = 1

    def started() -> None:
        os.write(ready, b".")
        os.close(ready)  # so the parent sees the pipe end once every worker has spoken or died

    try:
        serve(started)
        code = 0
    except BaseException:  # a worker reports it, then ends with status 1
        traceback.print_exc()
    finally:
        os._exit(code)


class _Workers:
    """The forked workers of one server and whether they are being stopped."""

    def __init__(self) -> None:
        self.pids: set[int] = set()
        self.stopping = False

    def stop(self, signum: int = signal.SIGTERM, frame: FrameType | None = None) -> None:
        """Ask every worker to finish its requests in flight and end (also a signal handler)."""
        self.stopping = True
        for pid in self.pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    def start(self, count: int, serve: Serve) -> bool:
        """Fork `count` workers; True once all of them listen, False when one did not start."""
        read_end, write_end = os.pipe()
        for _ in range(count):
            pid = os.fork()
            if pid == 0:
                os.close(read_end)
                # A group of its own: Ctrl-C in a terminal reaches the parent only, which passes
                # it on once as SIGTERM (uvicorn takes a second signal as "stop at once").
                os.setpgid(0, 0)
                _worker(serve, write_end)
            self.pids.add(pid)
        os.close(write_end)
        started = 0
        while started < count:
            chunk = os.read(read_end, count - started)
            if not chunk:  # every worker has spoken or ended: one failed to start
                break
            started += len(chunk)
        os.close(read_end)
        return started == count

    def wait(self) -> int:
        """Wait for every worker; 0 when all ended cleanly because they were asked to."""
        code = 0
        while self.pids:
            try:
                pid, status = os.wait()
            except ChildProcessError:
                break
            self.pids.discard(pid)
            if not self.stopping:
                code = 1
                self.stop()
            elif os.waitstatus_to_exitcode(status) != 0:
                code = 1
        return code


def supervise(count: int, serve: Serve, banner: str) -> int:
    """Fork `count` workers, print `banner` once all of them listen, pass SIGINT and SIGTERM
    on as SIGTERM (each finishes its requests in flight), and wait for them. A worker that ends
    on its own stops the others: a process manager restarts the whole server."""
    workers = _Workers()
    before = {sig: signal.signal(sig, workers.stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        if workers.start(count, serve):
            print(banner, flush=True)
            return workers.wait()
        workers.stop()
        workers.wait()
        return 1
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="A Zep-compatible memory server (API v4 and v3) on zepkit's local engine "
        "or any backend.",
    )
    parser.add_argument(
        "--db",
        required=True,
        type=Path,
        help="data folder: each project's database (local backend) and its UUIDs",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free)")
    parser.add_argument(
        "--keys-file", type=Path, help=f"file of key=project lines (also: ${ENV_VAR})"
    )
    parser.add_argument(
        "--no-auth", action="store_true", help="serve without API keys (loopback only)"
    )
    parser.add_argument(
        "--retriever",
        choices=["auto", "lexical", "hybrid"],
        default="auto",
        help="local engine search: auto (hybrid when the embedding model is installed), "
        "lexical (BM25) or hybrid",
    )
    parser.add_argument(
        "--backend",
        default="local",
        metavar="local|zep|MODULE:CALLABLE",
        help="where memory lives: local (default: a database per project in --db), zep (Zep "
        "Cloud with $ZEP_API_KEY, each project a namespace of the account), or a function of "
        "the project name returning a MemoryLoop",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes serving the port, all on the --db folder (local backend; default 1)",
    )
    parser.add_argument("--version", action="version", version=f"{prog} {__version__}")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str = "zepkit-serve") -> int:
    """Serve until stopped; the exit code. `prog` names the command in messages (`zepkit serve`
    when the `zepkit` command runs it)."""
    args = _parser(prog).parse_args(argv)
    if args.no_auth and not is_loopback(args.host):
        print(
            f"{prog}: --no-auth is only allowed on loopback, not on {args.host}",
            file=sys.stderr,
        )
        return 2
    keys: KeyRing | None = None
    if not args.no_auth:
        try:
            keys = KeyRing(load_keys(os.environ, args.keys_file))
        except (KeyListError, OSError) as exc:
            print(f"{prog}: {exc}", file=sys.stderr)
            return 2
        if not len(keys):
            print(
                f"{prog}: no API keys: set {ENV_VAR}=KEY=PROJECT[,...], pass --keys-file, "
                "or --no-auth on loopback",
                file=sys.stderr,
            )
            return 2
    if args.workers < 1:
        print(f"{prog}: --workers must be at least 1", file=sys.stderr)
        return 2
    try:
        factory = memory_factory(args.backend, args.db)
    except BackendChoiceError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    if args.workers > 1 and (factory is not None or not hasattr(os, "fork")):
        why = "the local backend" if factory is not None else "fork (POSIX)"
        print(f"{prog}: --workers above 1 needs {why}", file=sys.stderr)
        return 2
    held = hold_folder(args.db)
    if held is None:
        print(
            f"{prog}: another zepkit server is serving {args.db}; run one per data folder "
            "(--workers N for more processes on it)",
            file=sys.stderr,
        )
        return 1
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    spread = args.workers > 1 and spreads_connections()
    try:
        sock = (
            _holding(family, args.host, args.port)
            if spread
            else _bound(family, args.host, args.port, reuse_port=False)
        )
    except OSError as exc:
        print(f"{prog}: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    auth = "without auth" if keys is None else f"{len(keys)} API key(s)"
    store = f"data in {args.db}" if factory is None else f"{args.backend}, ids in {args.db}"
    workers = "" if args.workers == 1 else f"; {args.workers} workers"
    banner = (
        f"{prog}: listening on http://{shown}:{port} "
        f"(base URLs: v4 http://{shown}:{port}{V4_PREFIX}, v3 http://{shown}:{port}{V3_PREFIX}; "
        f"{store}; {auth}{workers})"
    )
    serve = _server(_listener(sock, spread), args.db, keys, factory, args.retriever)
    if args.workers > 1:
        return supervise(args.workers, serve, banner)
    serve(lambda: print(banner, flush=True))
    return 0


def _listener(sock: socket.socket, spread: bool) -> Callable[[], socket.socket]:
    """What a worker serves: with `spread`, a listening socket of its own on `sock`'s address
    (the parent only holds the port); otherwise `sock` itself, listening before any fork so
    that every worker accepts from its one queue."""
    if not spread:
        sock.listen(2048)
        return lambda: sock
    host, port = sock.getsockname()[:2]

    def own() -> socket.socket:
        return _bound(sock.family, host, port, reuse_port=True)

    return own


def spreads_connections() -> bool:
    """Whether the kernel spreads connections over sockets sharing a port (`SO_REUSEPORT` on
    Linux). Workers accepting from one shared socket race for each burst of connections, and
    one of them often takes most of a client pool's kept-alive connections: measured with 32
    clients and 2 workers, splits of 26 to 6 halved the turns a second against even ones."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def _holding(family: int, host: str, port: int) -> socket.socket:
    """A socket holding (host, port) for workers that each listen on it with `SO_REUSEPORT`,
    bound only when nothing listens there yet: any process of the same user listening with
    `SO_REUSEPORT` (another `zepkit serve --workers`) would otherwise share the port with
    us, each taking part of the other's connections."""
    probe = _bound(family, host, port, reuse_port=False)  # fails when anything listens there
    try:
        return _bound(family, host, probe.getsockname()[1], reuse_port=True)
    finally:
        probe.close()


def _bound(family: int, host: str, port: int, *, reuse_port: bool) -> socket.socket:
    """A TCP socket bound to (host, port), not yet listening."""
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        # Accepted connections inherit it: without it, a response written in two parts waits
        # for the client's delayed ACK (about 40 ms a request on a kept-alive connection).
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


if __name__ == "__main__":
    raise SystemExit(main())
