"""The streamable HTTP app: every request needs a bearer token the verifier accepts (401
otherwise), and DNS-rebinding protection checks Host and Origin on every request."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp.server import Server
from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
MCP_PATH = "/mcp"


def transport_security(allowed_hosts: Sequence[str] = ()) -> TransportSecuritySettings:
    """Loopback names (any port) plus `allowed_hosts` ("name" for any port, "name:port" for
    one); browsers' Origins must name one of them."""
    hosts: list[str] = []
    origins: list[str] = []
    for name in (*LOOPBACK_HOSTS, *allowed_hosts):
        pattern = name if ":" in name.removeprefix("[").split("]")[-1] else f"{name}:*"
        hosts.append(pattern)
        if pattern.endswith(":*"):
            hosts.append(name)  # a Host header without a port (80 or 443 behind a proxy)
        origins += [f"http://{pattern}", f"https://{pattern}"]
        if pattern.endswith(":*"):
            origins += [f"http://{name}", f"https://{name}"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def create_http_app(
    server: Server[Any],
    *,
    token_verifier: TokenVerifier,
    allowed_hosts: Sequence[str] = (),
    issuer_url: str = "http://127.0.0.1",
    resource_server_url: str | None = None,
    path: str = MCP_PATH,
) -> Starlette:
    """The server as an ASGI app (streamable HTTP at `path`) for uvicorn or any ASGI host.

    Requests without a token the verifier accepts get 401; an expired one too. The server built
    without `user_id=` acts for each request's token user. `issuer_url` and
    `resource_server_url` are what OAuth clients are told (protected resource metadata is
    served when `resource_server_url` is given, and tokens must then be issued for it)."""
    auth = AuthSettings(
        issuer_url=issuer_url,  # type: ignore[arg-type]  # pydantic parses the URL
        resource_server_url=resource_server_url,  # type: ignore[arg-type]
        validate_token_resource=resource_server_url is not None or None,
    )
    return server.streamable_http_app(
        streamable_http_path=path,
        transport_security=transport_security(allowed_hosts),
        auth=auth,
        token_verifier=token_verifier,
    )
