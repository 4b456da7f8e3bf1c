"""`zepkit serve` (also installed as `zepkit-serve`): run the server on uvicorn until SIGINT or
SIGTERM (uvicorn lets requests in
flight finish, then the app closes every project's database)."""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import os
import signal
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO

import uvicorn

from zepkit.core import __version__
from zepkit.server.app import V3_PREFIX, V4_PREFIX, create_app
from zepkit.server.auth import ENV_VAR, KeyListError, KeyRing, load_keys
from zepkit.server.projects import local_backend

LOCK_NAME = "zepkit-serve.lock"


def hold_folder(folder: Path) -> IO[bytes] | None:
    """Take the data folder for this process (kept until exit); None when another process has
    it. One process per folder: SQLite takes one writer at a time, so a second process adds
    lock waits, not throughput, and the registry's creates assume a single writer."""
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
    """Prints where it listens once it accepts requests (and handles SIGINT and SIGTERM)."""

    def __init__(self, config: uvicorn.Config, banner: str) -> None:
        super().__init__(config)
        self.banner = banner

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            print(self.banner, flush=True)


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="A Zep-compatible memory server (API v4 and v3) on zepkit's local engine.",
    )
    parser.add_argument(
        "--db", required=True, type=Path, help="data folder: one database per project"
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
    held = hold_folder(args.db)
    if held is None:
        print(
            f"{prog}: another zepkit server is serving {args.db}; run one per data folder",
            file=sys.stderr,
        )
        return 1
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit it: without it, a response written in two parts waits for
    # the client's delayed ACK (about 40 ms a request on a kept-alive connection).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as exc:
        print(f"{prog}: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    auth = "without auth" if keys is None else f"{len(keys)} API key(s)"
    banner = (
        f"{prog}: listening on http://{shown}:{port} "
        f"(base URLs: v4 http://{shown}:{port}{V4_PREFIX}, v3 http://{shown}:{port}{V3_PREFIX}; "
        f"data in {args.db}; {auth})"
    )
    app = create_app(args.db, keys=keys, backend_factory=local_backend(args.retriever))
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    # uvicorn shuts down gracefully on SIGINT/SIGTERM, then raises the signal again for the
    # handler that was there before it: ours turns that into a normal exit.
    for stop in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop, _stopped)
    with contextlib.suppress(_Stopped):
        _Server(config, banner).run(sockets=[sock])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
