"""Who may call the service: bearer tokens from a file, each optionally limited to a
number of submissions a minute.  With no tokens file only this machine may call
(loopback addresses), which is what a site's back end on the same host, or a reverse
proxy in front of the service, needs.

The tokens file (YAML)::

    tokens:
      - name: course-site          # shown in the logs and the metrics
        token: 3f9a...             # at least 16 characters; `openssl rand -hex 24`
        per_minute: 120            # optional: submissions a minute (429 beyond)
        role: instructor           # optional: also reads learners' histories, the class
                                   # view and the gradebook (default: site, which does not)

The learners' histories and the class views are never open to any caller: only a token
of role ``instructor`` reads them, and without a tokens file nobody does (any process on
a lab machine is a loopback caller).
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import yaml

MIN_TOKEN_CHARS = 16
WINDOW_S = 60.0


class TokensError(Exception):
    """The tokens file cannot be used; the message names the file and the entry."""


ROLES = ("site", "instructor")


@dataclass(frozen=True)
class Client:
    name: str
    per_minute: int | None = None
    role: str = "site"

    @property
    def instructor(self) -> bool:
        return self.role == "instructor"


LOOPBACK = Client("loopback")


def load_tokens(path: str | Path) -> dict[bytes, Client]:
    """sha256(token) -> Client (a lookup by digest: no token compared byte by byte)."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TokensError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise TokensError(f"{path}: not valid YAML: {exc}") from None
    entries = data.get("tokens") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise TokensError(
            f"{path}: expected a mapping with a non-empty list 'tokens:' "
            "(entries with name, token and optionally per_minute)"
        )
    found: dict[bytes, Client] = {}
    names: set[str] = set()
    for i, entry in enumerate(entries, 1):
        where = f"{path}: token {i}"
        if not isinstance(entry, dict):
            raise TokensError(f"{where}: expected a mapping with name, token, per_minute")
        unknown = set(entry) - {"name", "token", "per_minute", "role"}
        if unknown:
            raise TokensError(
                f"{where}: unknown field {', '.join(sorted(map(str, unknown)))} "
                "(known: name, token, per_minute, role)"
            )
        name, token, limit = entry.get("name"), entry.get("token"), entry.get("per_minute")
        role = entry.get("role", "site")
        if not isinstance(name, str) or not name.strip():
            raise TokensError(f"{where}: 'name' must be a non-empty string")
        where = f"{path}: token '{name}'"
        if name in names:
            raise TokensError(f"{where}: the name is used twice")
        if not isinstance(token, str) or len(token) < MIN_TOKEN_CHARS:
            raise TokensError(
                f"{where}: 'token' must be a string of at least {MIN_TOKEN_CHARS} characters"
            )
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit < 1
        ):
            raise TokensError(f"{where}: 'per_minute' must be a whole number of at least 1")
        if role not in ROLES:
            raise TokensError(
                f"{where}: 'role' must be one of {', '.join(ROLES)} (not {str(role)[:40]!r})"
            )
        digest = hashlib.sha256(token.encode()).digest()
        if digest in found:
            raise TokensError(f"{where}: the same token as '{found[digest].name}'")
        names.add(name)
        found[digest] = Client(name, limit, role)
    return found


def is_loopback(host: str | None) -> bool:
    try:
        return host is not None and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Access:
    """Decides who a request is (a Client) or why it is refused."""

    def __init__(self, tokens: dict[bytes, Client] | None):
        self.tokens = tokens

    @property
    def loopback_only(self) -> bool:
        return not self.tokens

    def client(self, authorization: str | None, host: str | None) -> Client | str:
        """The caller, or the reason it is refused ('unauthorized' or 'forbidden')."""
        if self.loopback_only:
            return LOOPBACK if is_loopback(host) else "forbidden"
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return "unauthorized"
        # not loopback_only: it has tokens
        tokens = cast("dict[bytes, Client]", self.tokens)
        return tokens.get(hashlib.sha256(token.strip().encode()).digest(), "unauthorized")


class RateLimiter:
    """Submissions per client in the last minute (a sliding window)."""

    def __init__(self):
        self._seen: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def allow(self, client: Client, now: float | None = None) -> tuple[bool, int]:
        """(allowed, seconds until it would be)."""
        if client.per_minute is None:
            return True, 0
        now = time.monotonic() if now is None else now
        with self._lock:
            seen = self._seen.setdefault(client.name, deque())
            while seen and seen[0] <= now - WINDOW_S:
                seen.popleft()
            if len(seen) >= client.per_minute:
                return False, max(1, math.ceil(seen[0] + WINDOW_S - now))
            seen.append(now)
            return True, 0
