"""What a task's reference answered, kept on disk from one `judge run` to the next.

The reference is deterministic: for one task, seed and judge, its values, traces, syncs
and measured figures on each input, its script runs, and the inputs drawn for the
property checks are the same on every run.  A run that finds them here does not start
the reference's worker at all (about a third of the CPU a run takes on two cores) and
does not import hypothesis; an input the memo lacks (a failing submission's shrinking,
another seed) starts the worker then, and what it answers is added.

A memo is keyed by everything the answers depend on: the bank's tasks.yaml and
references, the judge's own source, the versions of Python, jax, jaxlib, numpy and
hypothesis, the XLA/JAX settings in the environment, the seed.  Change any of them and
the memo is another file.

It holds reference outputs, so no learner may read it, and expected values, so no
learner may write it: it lives in a folder of the judge's user with mode 0700 (which
the sandbox also hides), and a memo whose folder or file another user could write is
ignored.  ``JUDGE_MEMO=off`` turns it off; ``JUDGE_MEMO=/some/folder`` moves it.

A seed is the learner's choice, and each makes a memo of its own: the folder holds at
most MAX_FILES memos and MAX_TOTAL_BYTES, the least recently used removed first,
whoever writes (``judge run``, ``judge batch``, ``judge serve``: all save through here).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

MEMO_ENV = "JUDGE_MEMO"
MAX_BYTES = 32 << 20  # a memo past this is not written (values of huge inputs)
KEPT_PER_SEED = 4  # memos of one task and seed under different keys
# the whole folder: a seed is the learner's choice (judge run --seed, the service's
# "seed"), and each makes a memo of its own; the least recently used go first
MAX_FILES = 256
MAX_TOTAL_BYTES = 512 << 20
_VERSIONED = ("jax", "jaxlib", "numpy", "hypothesis", "ml_dtypes")


def memo_root() -> Path | None:
    """The folder of memos, or None when they are off."""
    chosen = os.environ.get(MEMO_ENV, "")
    if chosen.lower() in ("off", "0", "no", "false"):
        return None
    if chosen:
        return Path(chosen).expanduser().resolve()
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache).resolve() / "jax-judge" / "reference"


def memo_hidden_paths() -> list[str]:
    """What a learner's sandbox hides besides the bank."""
    root = memo_root()
    return [str(root)] if root is not None else []


class ReferenceMemo:
    """One task's memo at one seed: ``load()`` what earlier runs kept, ``save(data)``."""

    def __init__(self, folder: Path, task_id: str, seed: int, key: str):
        self.folder = folder
        self.prefix = f"{task_id}-{seed}-"
        self.path = folder / f"{self.prefix}{key[:24]}.pickle"

    @classmethod
    def for_task(cls, task, seed: int) -> "ReferenceMemo | None":
        folder = memo_root()
        if folder is None:
            return None
        key = hashlib.sha256(
            json.dumps(
                [
                    _bank_fingerprint(task.bank.root),
                    _judge_fingerprint(),
                    _versions(),
                    sorted((k, v) for k, v in os.environ.items() if k.startswith(("XLA_", "JAX_"))),
                    task.id,
                    seed,
                ],
                sort_keys=True,
            ).encode()
        ).hexdigest()
        return cls(folder, task.id, seed, key)

    def load(self) -> dict[str, Any] | None:
        """What was kept, or None (none yet, or not to be trusted)."""
        try:
            if not _private(self.folder):
                return None
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            if (
                not stat.S_ISREG(info.st_mode)
                or info.st_uid != os.geteuid()
                or info.st_mode & 0o077
                or info.st_size > MAX_BYTES
            ):
                return None
            with os.fdopen(fd, "rb", closefd=False) as f:
                data = pickle.load(f)
            os.utime(fd)  # used now: the last to go when the folder is full
        except Exception:  # a memo cut short or from another judge: ignored
            return None
        finally:
            os.close(fd)
        return data if isinstance(data, dict) else None

    def save(self, data: dict[str, Any]) -> None:
        """Written whole under a temporary name, then renamed: a run reading it meanwhile
        sees the old memo or the new one.  Of this task and seed's memos for other keys
        (another judge installed beside, an older bank), the newest few stay."""
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not _private(self.folder):
                return
            blob = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
            if len(blob) > MAX_BYTES:
                return
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".new-")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(blob)
                os.replace(tmp, self.path)
            except BaseException:
                os.unlink(tmp)
                raise
            others = sorted(
                (p for p in self.folder.glob(self.prefix + "*.pickle") if p != self.path),
                key=lambda p: p.stat().st_mtime_ns,
                reverse=True,
            )
            for old in others[KEPT_PER_SEED - 1 :]:
                old.unlink(missing_ok=True)
            _bound(self.folder, keep=self.path.name)
        except (OSError, pickle.PicklingError, TypeError, AttributeError):
            pass  # a memo is a saving, never a reason to fail


def _bound(folder: Path, keep: str) -> None:
    """At most MAX_FILES memos and MAX_TOTAL_BYTES in the folder: the least recently
    used (written or read) are removed first; ``keep``, just written, stays."""
    found = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if not entry.name.endswith(".pickle"):
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            found.append((entry.name == keep, info.st_mtime_ns, info.st_size, entry.name))
    found.sort(reverse=True)  # the one kept first, then newest first
    count = total = 0
    for kept, _, size, name in found:
        count, total = count + 1, total + size
        if not kept and (count > MAX_FILES or total > MAX_TOTAL_BYTES):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(folder, name))
            count, total = count - 1, total - size


def _private(folder: Path) -> bool:
    """The judge's user's folder, which no one else may write or read."""
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o077


def _bank_fingerprint(root: Path) -> str:
    h = hashlib.sha256()
    for path in [root / "tasks.yaml", *sorted((root / "reference").glob("**/*.py"))]:
        h.update(str(path.relative_to(root)).encode() + b"\0")
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(b"\1missing")
    return h.hexdigest()


def _judge_fingerprint() -> list:
    """The judge's source as it is now (a checkout being edited changes it)."""
    here = Path(__file__).resolve().parent
    out = []
    for path in sorted(here.glob("**/*.py")):
        info = path.stat()
        out.append([str(path.relative_to(here)), info.st_size, info.st_mtime_ns])
    return out


def _versions() -> list:
    from importlib import metadata

    found: list[str | None] = [sys.version]
    for name in _VERSIONED:
        try:
            found.append(metadata.version(name))
        except metadata.PackageNotFoundError:
            found.append(None)
    return found
