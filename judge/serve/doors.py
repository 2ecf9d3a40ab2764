"""What the service lets in and sends out, whoever asks: a page on another site, a name
rebound to this machine, a body built to exhaust the parser, a callback aimed at this
machine or its network.  Listening on loopback only is no boundary: a browser on the
same machine (a learner's, on a lab machine) can be made to call the service, and the
service itself, when it POSTs a report, calls whatever address a submission named.

    hosts       the ``Host`` names served (TrustedHostMiddleware): the listen address,
                ``localhost`` and ``--allow-host``; any other name is a DNS rebinding
    origins     a request from a browser page is served only from this service's own
                origin or one given with ``--allow-origin`` (CORSMiddleware answers the
                preflight and marks the answers for those; it refuses nothing, so a
                foreign ``Origin`` is refused here, before the app sees the request);
                a body must be ``application/json`` (a form or a
                ``text/plain`` fetch, which a page may send without asking, is 415)
    bodies      JSON with its size, nesting and member count bounded before parsing
    callbacks   a callback's address is checked where the connection is made: the name
                is resolved once, every address it gave must be public (or allowed with
                ``--allow-callback-host``), and the connection goes to that address,
                with the URL's name as ``Host`` and TLS server name
"""

from __future__ import annotations

import ipaddress
import json
import socket
import urllib.parse
from dataclasses import dataclass, field

import httpcore
import httpx
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware

from .answers import JSONResponse

MAX_DEPTH = 64  # a notebook is about 6 deep; JSON's parser recurses per level
MAX_MEMBERS = 100_000  # keys and array items in one body, all levels together
BODY_METHODS = ("POST", "PUT", "PATCH", "DELETE")


class Refusal(Exception):
    """Input the doors refuse, with its HTTP status (the app turns it into its error)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


@dataclass(frozen=True)
class Doors:
    """The service's allow-lists; empty ones are the defaults (nothing foreign)."""

    listen_host: str = "127.0.0.1"
    hosts: tuple[str, ...] = ()  # --allow-host: more Host names served
    origins: tuple[str, ...] = ()  # --allow-origin: pages that may call
    callback_hosts: tuple[str, ...] = ()  # --allow-callback-host: names, addresses, networks
    callbacks: "CallbackTargets" = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "callbacks", CallbackTargets(self.callback_hosts))

    @property
    def allowed_hosts(self) -> list[str]:
        """As Starlette compares them: lower case, an IPv6 address in brackets.  On every
        interface (0.0.0.0, ::) the loopback addresses are the listen address too."""
        names = {self.listen_host, "localhost", *self.hosts}
        if self.listen_host.strip("[]") in ("0.0.0.0", "::"):
            names |= {"127.0.0.1", "::1"}
        return sorted({f"[{n.strip('[]')}]" if ":" in n else n for n in map(str.lower, names)})

    def middleware(self) -> list[Middleware]:
        """Outermost first: an unknown Host is refused before anything else looks at the
        request, CORS answers preflights and marks answers, then foreign origins and
        bodies that are not JSON are refused."""
        return [
            Middleware(TrustedHostMiddleware, allowed_hosts=self.allowed_hosts, www_redirect=False),
            Middleware(
                CORSMiddleware,
                allow_origins=list(self.origins),
                allow_methods=["GET", "POST"],
                allow_headers=["Authorization", "Content-Type"],
                expose_headers=["Judge-State", "Location", "Retry-After"],
                max_age=600,
            ),
            Middleware(OriginAndTypeMiddleware, origins=self.origins),
        ]


def normal_origin(origin: str) -> str:
    """``scheme://host[:port]`` as a browser writes it in ``Origin``."""
    parts = urllib.parse.urlsplit(origin.strip())
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
    ):
        raise ValueError(
            f"'{origin}' is not an origin (scheme://host[:port], e.g. https://course.example)"
        )
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    default = {"http": 80, "https": 443}[parts.scheme]
    port = "" if parts.port in (None, default) else f":{parts.port}"
    return f"{parts.scheme}://{host}{port}"


class OriginAndTypeMiddleware:
    """Refuses what a page on another site could make a browser send: a request whose
    ``Origin`` is neither this service's nor an allowed one (403), and a body that is
    not JSON (415: a form or a ``text/plain`` fetch is sent without a
    preflight, so only the type tells them apart).  A request without ``Origin`` comes
    from no page (a site's back end, curl) or is a plain navigation."""

    def __init__(self, app, origins=()):
        self.app = app
        self.origins = {normal_origin(o) for o in origins}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = self.refusal(scope, headers)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, message = refusal
        await JSONResponse({"error": message}, status_code=status)(scope, receive, send)

    def refusal(self, scope, headers: Headers) -> tuple[int, str] | None:
        origin = headers.get("origin")
        if origin is not None and not self._allowed(origin, scope, headers):
            return 403, (
                f"requests from pages on {origin[:200]} are refused: this service "
                "answers its own page and the origins given with --allow-origin"
            )
        if scope["method"] in BODY_METHODS:
            media = (headers.get("content-type") or "").split(";")[0].strip().lower()
            if media != "application/json":
                return 415, (
                    "the body must be JSON, sent with Content-Type: "
                    f"application/json (not {media or 'no type'})"
                )
        return None

    def _allowed(self, origin: str, scope, headers: Headers) -> bool:
        try:
            origin = normal_origin(origin)
        except ValueError:
            return False  # 'null' (a sandboxed page, a file), junk
        if origin in self.origins:
            return True
        # this service's own page: the Host header was checked by TrustedHostMiddleware.
        # The page's scheme, not the connection's: behind a proxy that ends TLS the page
        # is https and the connection http, and one host and port serve one of them
        scheme = origin.split(":", 1)[0]
        try:
            return origin == normal_origin(f"{scheme}://{headers.get('host', '')}")
        except ValueError:
            return False


# ---------------------------------------------------------------- bodies
def nesting(raw: bytes) -> int:
    """How deep the arrays and objects of this JSON text go, in time linear in its
    length whatever it holds (no pattern that backtracks, no loop in Python): escaped
    backslashes out, then escaped quotes (left to right, as a JSON reader pairs them);
    a character after an odd number of quotes is inside a string; outside, +1 per [ {
    and -1 per ] }."""
    import numpy as np

    text = np.frombuffer(raw.replace(b"\\\\", b"").replace(b'\\"', b""), dtype=np.uint8)
    outside = np.cumsum(text == ord('"'), dtype=np.int64) % 2 == 0
    step = np.isin(text, (ord("["), ord("{"))).astype(np.int64) - np.isin(
        text, (ord("]"), ord("}"))
    )
    return int(np.cumsum(step * outside).max(initial=0))


def parse_json(raw: bytes | str, what: str = "the body"):
    """JSON text, parsed only once its nesting is known to be within MAX_DEPTH, and its
    members counted (Python's parser recurses once per level, and one 1 MiB body can hold
    a quarter of a million empty arrays)."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    depth = nesting(data)
    if depth > MAX_DEPTH:
        raise Refusal(
            400, f"{what} is nested {depth} levels deep; at most {MAX_DEPTH} are accepted"
        )
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        raise Refusal(400, f"{what} is not JSON") from None
    members = _members(value)
    if members > MAX_MEMBERS:
        raise Refusal(
            413, f"{what} holds {members} keys and items; at most {MAX_MEMBERS} are accepted"
        )
    return value


def _members(value) -> int:
    count, todo = 0, [value]
    while todo:
        v = todo.pop()
        if isinstance(v, dict):
            count += len(v)
            todo.extend(v.values())
        elif isinstance(v, list):
            count += len(v)
            todo.extend(v)
    return count


# ---------------------------------------------------------------- callbacks
# addresses whose IPv4 address is inside: mapped (::ffff:a.b.c.d), NAT64, 6to4
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def _unwrap(ip):
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
        if ip.sixtofour is not None:
            return ip.sixtofour
        if ip in _NAT64:
            return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def address_kind(ip) -> str | None:
    """Why this address is not a public one (None: it is): what a callback may not
    reach unless allowed."""
    ip = _unwrap(ipaddress.ip_address(ip))
    for kind, yes in (
        ("a loopback", ip.is_loopback),
        ("an unspecified", ip.is_unspecified),
        ("a link-local", ip.is_link_local),
        ("a multicast", ip.is_multicast),
        ("a reserved", ip.is_reserved),
        ("a private", ip.is_private),
        ("a non-public", not ip.is_global),
    ):
        if yes:
            return f"{kind} address ({ip})"
    return None


class CallbackRefused(Exception):
    """A callback's target is not one the service may call."""


class RefusedTarget(httpx.ConnectError):
    """What the callbacks' client raises for such a target: never worth another try."""


class CallbackTargets:
    """Where callbacks may go: public addresses, and the names, addresses and networks of
    ``--allow-callback-host`` (a course site's back end on this machine:
    ``--allow-callback-host 127.0.0.1``)."""

    def __init__(self, allowed=()):
        self.names: set[str] = set()
        self.networks: list = []
        for entry in allowed:
            try:
                self.networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
            except ValueError:
                self.names.add(entry.strip().rstrip(".").lower())

    def _name_allowed(self, host: str) -> bool:
        return host.rstrip(".").lower() in self.names

    def _address_refusal(self, ip) -> str | None:
        kind = address_kind(ip)
        if kind is None or any(
            _unwrap(ipaddress.ip_address(ip)) in n or ipaddress.ip_address(ip) in n
            for n in self.networks
        ):
            return None
        return kind

    def refusal(self, url: str) -> str | None:
        """Why this URL cannot be a callback, as far as it is known without asking DNS
        (a literal address in any spelling, a ``localhost`` name), or None; a name is
        checked again, by what it resolves to, when the report is sent."""
        host = (urllib.parse.urlsplit(url).hostname or "").rstrip(".")
        if self._name_allowed(host):
            return None
        if host.lower() == "localhost" or host.lower().endswith(".localhost"):
            return f"'{host}' is this machine"
        ip = _numeric(host)
        if ip is not None:
            kind = self._address_refusal(ip)
            if kind:
                return f"'{host}' is {kind}"
        return None

    def addresses(self, host: str, port: int) -> list[tuple]:
        """Where a connection to host:port may go: the name resolved once, every address
        checked (a name with one private address among public ones is refused)."""
        try:
            found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            raise CallbackRefused(f"'{host}' does not resolve: {exc.strerror}") from None
        if self._name_allowed(host):
            return found
        for *_, sockaddr in found:
            kind = self._address_refusal(sockaddr[0].split("%")[0])  # type: ignore[union-attr]  # an IP address: text
            if kind:
                raise CallbackRefused(
                    f"'{host}' resolves to {kind}: a callback goes to public addresses only "
                    "(judge serve --allow-callback-host allows more)"
                )
        return found

    def client(self, **options):
        """An httpx client whose every connection goes through ``addresses``: no proxy
        from the environment (it would connect for us, to anything), no redirects."""
        return httpx.Client(
            transport=_GuardedTransport(self), follow_redirects=False, trust_env=False, **options
        )


def _numeric(host: str):
    """The address a host written as numbers stands for (any spelling the C library
    accepts: 127.1, 0x7f.0.0.1, 2130706433, [::ffff:7f00:1]), or None for a name."""
    try:
        found = socket.getaddrinfo(host.strip("[]"), None, flags=socket.AI_NUMERICHOST)
    except (socket.gaierror, UnicodeError):
        return None
    return found[0][4][0].split("%")[0] if found else None  # type: ignore[union-attr]  # as above


class _GuardedBackend(httpcore.SyncBackend):
    def __init__(self, targets: CallbackTargets):
        self.targets = targets

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        last = None
        for *_, sockaddr in self.targets.addresses(host, port):
            try:  # to the address that was checked, never to the name again
                return super().connect_tcp(
                    sockaddr[0], port, timeout, local_address, socket_options
                )
            except httpcore.ConnectError as exc:
                last = exc
        raise last or httpcore.ConnectError(f"no address for {host}")


class _GuardedTransport(httpx.HTTPTransport):
    """httpx's own transport on a connection pool with the guarded backend (httpx has no
    argument for a pool's network backend); httpcore keeps the URL's name for the Host
    header and the TLS server name."""

    def __init__(self, targets: CallbackTargets):
        super().__init__(trust_env=False)
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(), network_backend=_GuardedBackend(targets)
        )

    def handle_request(self, request):
        try:
            return super().handle_request(request)
        except CallbackRefused as exc:
            raise RefusedTarget(str(exc), request=request) from None
