"""`zepkit mcp` (and `zepkit-mcp`): serve one memory over MCP, on stdio for a desktop client or
on streamable HTTP for many users, each identified by their bearer token."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import socket
import sys
from collections.abc import Sequence
from typing import Any

from zepkit.core import MemoryLoop, ZepkitError, __version__
from zepkit.mcp._auth import TOKENS_ENV, JwtTokens, TokenFileError, load_tokens
from zepkit.mcp._http import MCP_PATH, create_http_app
from zepkit.mcp._server import create_server

USER_ENV = "ZEPKIT_USER_ID"


class _Stopped(Exception):
    pass


def _stopped(signum: int, frame: object) -> None:
    raise _Stopped


class UsageError(Exception):
    """A command line that cannot work; the message says what to change."""


def build_parser(prog: str = "zepkit mcp") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Serve zepkit memory to MCP clients: on stdio for one user (desktop "
        "clients), or on streamable HTTP where each bearer token names its user.",
    )
    store = parser.add_argument_group("memory (one of)")
    target = store.add_mutually_exclusive_group()
    target.add_argument("--db", metavar="PATH", help="the local memory database file")
    target.add_argument("--zep", action="store_true", help="Zep Cloud (reads ZEP_API_KEY)")
    target.add_argument(
        "--base-url",
        metavar="URL",
        help="a zepkit server or other Zep-compatible API, e.g. http://127.0.0.1:8000/api/v4 "
        "(reads its key from ZEP_API_KEY)",
    )
    store.add_argument(
        "--id-map",
        metavar="PATH",
        help="with --zep or --base-url: the SqliteIdMap file the app writes thread ids to",
    )
    parser.add_argument(
        "--user-id",
        metavar="ID",
        help=f"stdio: whose memory this is (also ${USER_ENV}); never a tool argument",
    )
    parser.add_argument(
        "--read-write",
        action="store_true",
        help="also offer memory_add and memory_forget (read-only by default)",
    )
    parser.add_argument(
        "--shared-graph", metavar="ID", help="also offer memory_search_shared over this graph"
    )
    http = parser.add_argument_group("streamable HTTP")
    http.add_argument("--http", action="store_true", help="serve streamable HTTP, not stdio")
    http.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    http.add_argument("--port", type=int, default=8765, help="port (default 8765; 0: any free)")
    http.add_argument(
        "--tokens-file",
        metavar="PATH",
        help=f"JSON object of token -> user id (also ${TOKENS_ENV})",
    )
    http.add_argument("--jwks-url", metavar="URL", help="verify JWTs with the issuer's key set")
    http.add_argument("--issuer", metavar="URL", help="with --jwks-url: the tokens' issuer")
    http.add_argument("--audience", metavar="AUD", help="with --jwks-url: the tokens' audience")
    http.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a Host name clients use besides loopback (DNS-rebinding protection); repeatable",
    )
    parser.add_argument("--version", action="version", version=f"zepkit-mcp {__version__}")
    return parser


def open_memory(args: argparse.Namespace) -> MemoryLoop:
    """The loop the flags name. Failures raise so each tool can say what went wrong."""
    if args.zep or args.base_url:
        from zepkit.zep import SqliteIdMap

        options: dict[str, Any] = {"on_error": "raise"}
        if args.id_map:
            options["id_map"] = SqliteIdMap(args.id_map)
        if args.base_url:
            options["base_url"] = args.base_url
        return MemoryLoop.zep(**options)
    if args.id_map:
        raise UsageError("--id-map goes with --zep or --base-url")
    if not args.db:
        raise UsageError("name the memory: --db PATH (local), --zep, or --base-url URL")
    if args.read_write:
        return MemoryLoop.local(args.db, on_error="raise")
    if not os.path.exists(args.db):
        raise UsageError(f"no database at {args.db} (read-only); add --read-write to start one")
    from zepkit.local import LocalBackend

    return MemoryLoop(LocalBackend(args.db, read_only=True), on_error="raise")


def _verifier(args: argparse.Namespace) -> Any:
    if args.jwks_url:
        if not (args.issuer and args.audience):
            raise UsageError("--jwks-url needs --issuer and --audience")
        return JwtTokens(issuer=args.issuer, audience=args.audience, jwks_url=args.jwks_url)
    path = args.tokens_file or os.environ.get(TOKENS_ENV)
    if not path:
        raise UsageError(
            f"HTTP needs tokens: --tokens-file PATH (or ${TOKENS_ENV}), or --jwks-url with "
            "--issuer and --audience"
        )
    tokens = load_tokens(path)
    if not len(tokens):
        raise UsageError(f"the token file {path} has no tokens")
    return tokens


async def _serve_stdio(memory: MemoryLoop, args: argparse.Namespace, user_id: str) -> None:
    from mcp.server.stdio import stdio_server

    server = create_server(
        memory, user_id=user_id, read_write=args.read_write, shared_graph=args.shared_graph
    )
    async with memory, stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


async def _serve_http(memory: MemoryLoop, args: argparse.Namespace, verifier: Any) -> None:
    import uvicorn

    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as exc:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {exc.strerror}") from None
    sock.listen(2048)  # before the banner: a client that reads it may connect at once
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    server = create_server(memory, read_write=args.read_write, shared_graph=args.shared_graph)
    app = create_http_app(
        server,
        token_verifier=verifier,
        allowed_hosts=args.allowed_host,
        issuer_url=args.issuer or f"http://{shown}:{port}",
    )
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    mode = "read-write" if args.read_write else "read-only"
    print(
        f"zepkit mcp: listening on http://{shown}:{port}{MCP_PATH} ({mode})",
        file=sys.stderr,
        flush=True,
    )
    async with memory:
        await uvicorn.Server(config).serve(sockets=[sock])


def main(argv: Sequence[str] | None = None, *, prog: str = "zepkit mcp") -> int:
    """Run the server until the client goes away (stdio) or SIGINT/SIGTERM (HTTP)."""
    args = build_parser(prog).parse_args(argv)
    try:
        user_id = args.user_id or os.environ.get(USER_ENV) or None
        if args.http:
            if args.user_id:
                raise UsageError("over HTTP each token names its user; drop --user-id")
            verifier = _verifier(args)
        elif user_id is None:
            raise UsageError(f"stdio serves one user: pass --user-id ID or set ${USER_ENV}")
        elif args.tokens_file or args.jwks_url:
            raise UsageError("tokens are for --http; stdio serves the --user-id user")
        memory = open_memory(args)
        for stop in (signal.SIGINT, signal.SIGTERM):
            signal.signal(stop, _stopped)
        with contextlib.suppress(_Stopped):
            if args.http:
                asyncio.run(_serve_http(memory, args, verifier))
            else:
                assert user_id is not None
                asyncio.run(_serve_stdio(memory, args, user_id))
        return 0
    except (UsageError, TokenFileError, ZepkitError, ValueError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2


def console() -> None:
    """The `zepkit-mcp` command."""
    sys.exit(main(prog="zepkit-mcp"))


if __name__ == "__main__":
    console()
