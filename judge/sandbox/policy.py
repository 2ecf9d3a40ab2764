"""Isolation policy: which mode a worker runs in, what it may see, and as whom.

Two modes (README, "Isolation", says what each protects against):

* ``bubblewrap``: user, pid, network, ipc and uts namespaces; every capability dropped
  (as root: uid 65534 inside a new user namespace); no further user namespaces; a
  read-only root built from only what the worker needs (the system's libraries, the
  Python installation without its site-packages, and exactly the packages the worker
  imports); private, size-capped /tmp (its working folder) and /dev/shm; the
  submission's folder read-only.
* ``forked``: a worker forked from a warm bubblewrap sandbox that has imported numpy
  and jax once for many workers (judge/sandbox/zygote.py; ``judge serve`` uses it where
  it works).  The sandbox holds the host away as ``bubblewrap`` does; the workers in it
  share its namespaces, so each keeps apart from the others on its own: a Landlock
  domain (files: its own size-capped tmpfs and its submission; signals, ptrace and
  abstract sockets scoped to itself) and the seccomp filter of ``process`` mode.
* ``process``: no namespaces.  Landlock (when the kernel has it) confines files to the
  same view, denies TCP, and scopes signals and abstract sockets to the worker; a
  seccomp filter refuses sockets, io_uring and System V IPC; as root the worker either
  runs as a uid of its own (when that uid can reach the Python installation) or keeps
  uid 0 with every capability dropped.

In both modes the worker starts no process once the learner's file is about to run
(``no_processes``, judge/worker/confine.py ``refuse_processes``): work done in a forked
child or a subprocess is work no instrument of the worker sees.  Threads are allowed.
``JUDGE_WORKER_PROCESSES=allowed`` lifts that, only for the tests of the backstops
behind it (the process watch, the tree's memory, escapees killed at close).

A trusted worker (the reference) gets neither: it runs the bank's own code.
"""

from __future__ import annotations

import ctypes
import glob
import os
import re
import secrets
import shutil
import site
import stat
import subprocess
import sys
import sysconfig
import threading
from dataclasses import dataclass, field
from functools import lru_cache

from . import procs

MODES = ("auto", "bubblewrap", "forked", "process")
ENV = "JUDGE_ISOLATION"
PROCESSES_ENV = "JUDGE_WORKER_PROCESSES"
WORKER_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "worker")
JUDGE_DIR = os.path.dirname(WORKER_DIR)
WORKER_MOUNT = "/opt/jax-judge/worker"  # where a sandboxed worker finds its own code
SANDBOX_UID = 65534  # nobody, inside a root judge's user namespace
UID_BASE, UID_SPAN = 1 << 30, 1 << 30  # process mode as root: the workers' uids
# What the worker imports itself; their dependencies are found from package metadata.
WORKER_IMPORTS = ("jax", "numpy", "ml_dtypes")
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime")
_SITE_GLOBS = (
    "/usr/lib/python3*/*-packages",
    "/usr/local/lib/python3*/*-packages",
    "/usr/lib/python3/dist-packages",
    "/usr/local/lib/python3/dist-packages",
    "/usr/lib64/python3*/*-packages",
    "/usr/local/lib64/python3*/*-packages",
)
_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")


def bootstrap(entry: str) -> str:
    """The ``python -c`` program of a worker process: it loads judge/worker (the folder
    in argv[1]) as a package under a private name, so neither `judge` nor the folder
    holding it needs to be on its sys.path, and calls ``entry`` (a module.function of
    it) with argv[2], the config."""
    module, function = entry.rsplit(".", 1)
    return (
        "import importlib.util as u, sys\n"
        "d = sys.argv[1]\n"
        "s = u.spec_from_file_location('_jj_worker', d + '/__init__.py',"
        " submodule_search_locations=[d])\n"
        "m = sys.modules['_jj_worker'] = u.module_from_spec(s)\n"
        "s.loader.exec_module(m)\n"
        f"import _jj_worker.{module}\n"
        f"_jj_worker.{module}.{function}(sys.argv[2])\n"
    )


class IsolationUnavailable(RuntimeError):
    """The isolation asked for cannot be had here; the message says why and what to do."""


def requested(value: str | None) -> str:
    """The mode asked for: the argument, else $JUDGE_ISOLATION, else auto."""
    mode = (value or os.environ.get(ENV) or "auto").strip().lower()
    if mode not in MODES:
        raise ValueError(f"isolation must be one of {', '.join(MODES)}, not {mode!r}")
    return mode


def is_root() -> bool:
    return os.geteuid() == 0


# ---------------------------------------------------------------- what the worker needs


def _real(path: str) -> str:
    return os.path.realpath(path)


def under(path: str, tree: str) -> bool:
    return path == tree or path.startswith(tree.rstrip("/") + "/")


def _dependencies(names) -> set[str]:
    """Every installed distribution the named ones need (not their extras), by walking
    their metadata: what jax imports lazily (scipy, opt_einsum) is found too."""
    import importlib.metadata as md

    seen, todo = {}, list(names)
    while todo:
        name = todo.pop()
        key = re.sub(r"[-_.]+", "_", name).lower()
        if key in seen:
            continue
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        seen[key] = dist
        for req in dist.requires or []:
            spec, _, marker = req.partition(";")
            if "extra" in marker:
                continue
            match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
            if match:
                todo.append(match.group(1))
    paths = set()
    for dist in seen.values():
        # the first part of each RECORD line: what the distribution put in site-packages
        # (dist.files makes a path object of every file: 10x slower for scipy's)
        tops = {
            line.split(",", 1)[0].split("/", 1)[0]
            for line in (dist.read_text("RECORD") or "").splitlines()
            if line
        }
        for top in tops - {"", ".."}:
            paths.add(os.path.abspath(str(dist.locate_file(top))))
    return {p for p in paths if os.path.exists(p)}


def _site_dirs() -> set[str]:
    """Every folder of installed packages this Python (or the system's) may hold."""
    found = set(site.getsitepackages())
    try:
        found.add(site.getusersitepackages())
    except AttributeError:
        pass
    for base in {sys.prefix, sys.base_prefix}:
        paths = sysconfig.get_paths(vars={"base": base, "platbase": base})
        found |= {paths["purelib"], paths["platlib"]}
    found |= {p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages")}
    for pattern in _SITE_GLOBS:
        found |= set(glob.glob(pattern))
    return {os.path.abspath(p) for p in found if os.path.isdir(p)}


@dataclass(frozen=True)
class View:
    """What a learner's worker may see of the host, all of it read-only."""

    links: tuple = ()  # (path, target): /lib -> usr/lib and the like
    read: tuple = ()  # trees it may read and execute, each at its own path
    hide: tuple = ()  # inside those: must not be seen (site-packages, the judge)
    reveal: tuple = ()  # inside what is hidden: needed after all (its packages)
    imports: tuple = ()  # (top-level name, path) of what it imports from `reveal`
    listable: tuple = ()  # site folders on its sys.path (where `reveal` lives)


@lru_cache(maxsize=1)
def view() -> View:
    """Computed once per judge process (~50 ms: package metadata)."""
    links: list[tuple[str, str]]
    read: list[str]
    links, read = [], []

    def covered(path: str) -> bool:
        return any(under(path, t) for t in read)

    def add(path: str) -> None:
        """A symbolic link stays one (bound, it would show its target a second time,
        past what hides inside it); its target is added in its own right."""
        if not os.path.lexists(path) or covered(path) or any(path == l for l, _ in links):
            return
        if os.path.islink(path):
            links.append((path, os.readlink(path)))
            add(_real(path))
        else:
            read.append(path)

    for path in _SYSTEM + _ETC:
        add(path)
    base, prefix = os.path.abspath(sys.base_prefix), os.path.abspath(sys.prefix)
    add(base)
    if prefix != base:  # a venv: its configuration and launchers, not whatever else it holds
        for name in ("pyvenv.cfg", "bin", "lib", "lib64"):
            add(os.path.join(prefix, name))
    add(os.path.abspath(sys.executable))
    sites = _site_dirs()
    deps = _dependencies(WORKER_IMPORTS)
    hide = sorted({p for h in sites | {JUDGE_DIR} for p in (h, _real(h))})
    listable = sorted(
        {s for s in sites if any(under(d, s) for d in deps)} & set(map(os.path.abspath, sys.path))
    )
    imports = []
    for path in sorted(deps):
        name = os.path.basename(path)
        if name.endswith((".dist-info", ".egg-info", ".libs", ".data")):
            continue
        top = name.split(".", 1)[0] if os.path.isfile(path) else name
        if top.isidentifier():
            imports.append((top, path))
    return View(
        tuple(links), tuple(read), tuple(hide), tuple(sorted(deps)), tuple(imports), tuple(listable)
    )


def warm_up() -> None:
    """Compute the view and probe bubblewrap now, in a thread (while the bank loads)."""
    threading.Thread(
        target=lambda: (view(), bubblewrap()), name="jj-isolation-probe", daemon=True
    ).start()


# ---------------------------------------------------------------- bubblewrap


@dataclass(frozen=True)
class Bwrap:
    ok: bool
    why: str = ""
    path: str = ""
    disable_userns: bool = False


_bwrap: Bwrap | None = None
_bwrap_lock = threading.Lock()


def bubblewrap() -> Bwrap:
    """Installed and working here (user namespaces may be off): probed once per judge
    process, with the options every worker will get."""
    global _bwrap
    with _bwrap_lock:
        if _bwrap is None:
            _bwrap = _probe_bwrap()
    return _bwrap


def _probe_bwrap() -> Bwrap:
    path = shutil.which("bwrap")
    if path is None:
        return Bwrap(False, "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)")
    true = next((p for p in ("/usr/bin/true", "/bin/true") if os.path.exists(p)), None)
    if true is None:
        return Bwrap(False, "no /usr/bin/true to probe bwrap with")
    why = ""
    for disable in (True, False):  # --disable-userns needs bwrap >= 0.8
        probe = Bwrap(True, "", path, disable)
        argv = (
            _namespaces(probe)
            + ["--ro-bind", "/usr", "/usr"]
            + [a for link, target in view().links for a in ("--symlink", target, link)]
            + [
                "--proc",
                "/proc",
                "--dev",
                "/dev",
                "--size",
                str(1 << 20),
                "--tmpfs",
                "/tmp",
                "--remount-ro",
                "/",
                "--",
                true,
            ]
        )
        try:
            res = procs.run_helper(argv, timeout=20)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return Bwrap(False, str(exc))
        if res.returncode == 0:
            return probe
        why = res.stderr.decode(errors="replace").strip()[:500] or f"exit code {res.returncode}"
    return Bwrap(False, why)


def _namespaces(b: Bwrap) -> list[str]:
    args = [b.path, "--unshare-user"]
    if is_root():  # else bwrap maps the caller's own uid, with no capabilities outside
        args += ["--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)]
    args += [
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--cap-drop",
        "ALL",
        "--die-with-parent",
        "--new-session",
    ]
    if b.disable_userns:
        args.append("--disable-userns")
    return args


def bwrap_argv(
    scratch: str,
    hidden: list[str],
    scratch_bytes: int,
    inner: list[str],
    *,
    slots: tuple[str, ...] = (),
    slot_bytes: int = 0,
) -> list[str]:
    """``slots``: for a warm sandbox (forked workers), a size-capped tmpfs each, inside
    its /tmp (which is then ``scratch_bytes``, for nobody's use but its server's)."""
    b, v = bubblewrap(), view()
    args = _namespaces(b)
    for link, target in v.links:
        args += ["--symlink", target, link]
    # the private /tmp first, the view on top: a Python installed under /tmp (a venv in a
    # clone there) stays visible inside it
    args += [
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        str(scratch_bytes),
        "--tmpfs",
        "/tmp",
    ]
    for slot in slots:
        args += ["--size", str(slot_bytes), "--tmpfs", slot]
    args += [
        "--symlink",
        "/tmp",
        "/var/tmp",
        "--size",
        str(scratch_bytes),
        "--tmpfs",
        "/dev/shm",
        "--remount-ro",
        "/dev",
    ]
    for path in v.read:
        args += ["--ro-bind", path, path]
    hide = [
        p
        for p in sorted(set(v.hide) | set(hidden))
        if os.path.lexists(p) and any(under(p, t) for t in v.read)
    ]
    hide = [p for p in hide if not any(q != p and under(p, q) for q in hide)]  # outermost only
    for path in hide:
        args += ["--tmpfs", path] if os.path.isdir(path) else ["--ro-bind", "/dev/null", path]
    for path in v.reveal:
        args += ["--ro-bind", path, path]
    for path in hide:
        if os.path.isdir(path):
            args += ["--remount-ro", path]
    args += [
        "--ro-bind",
        WORKER_DIR,
        WORKER_MOUNT,
        "--ro-bind",
        scratch,
        scratch,
        "--chdir",
        "/tmp",
        "--remount-ro",
        "/",
        "--",
    ]
    return args + inner


# ---------------------------------------------------------------- process mode

LANDLOCK_CREATE_RULESET_VERSION = 1


@lru_cache(maxsize=1)
def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when it has none (asked without privileges)."""
    if not sys.platform.startswith("linux"):
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(
        444, None, ctypes.c_size_t(0), ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION)
    )
    return max(0, int(abi))


def _reachable_by_others(path: str) -> bool:
    """Every folder on the way searchable, the end readable, by a uid in no group."""
    path = os.path.abspath(path)
    parts = path.split("/")
    for i in range(2, len(parts) + 1):
        try:
            st = os.stat("/".join(parts[:i]) or "/")
        except OSError:
            return False
        last = i == len(parts)
        need = (
            (stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(st.st_mode) else 0))
            if last
            else stat.S_IXOTH
        )
        if st.st_mode & need != need:
            return False
    return True


@lru_cache(maxsize=1)
def own_uid_possible() -> bool:
    """As root, can a worker run as a uid of its own?  Only if that uid can reach the
    interpreter, the standard library and the packages (a Python under /root cannot)."""
    if not is_root():
        return False
    v = view()
    needed = [_real(sys.executable), sysconfig.get_paths()["stdlib"], *v.reveal, WORKER_DIR]
    return all(_reachable_by_others(p) and _reachable_by_others(_real(p)) for p in needed)


_uid_lock = threading.Lock()
_uids_in_use: set[int] = set()


def take_uid() -> int:
    """A uid no other live worker has, here or in any judge on this machine: drawn at
    random from 2^30 (not from the judge's pid: judges in containers, each in a pid
    namespace of its own, are often all pid 1, and workers sharing a uid could signal
    each other and share one process limit), unique within this judge."""
    with _uid_lock:
        while True:
            uid = UID_BASE + secrets.randbelow(UID_SPAN)
            if uid not in _uids_in_use:
                _uids_in_use.add(uid)
                return uid


def release_uid(uid: int) -> None:
    with _uid_lock:
        _uids_in_use.discard(uid)


# Landlock access rights (include/uapi/linux/landlock.h)
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1, 2, 4, 8
FS_ALL_V1 = (1 << 13) - 1
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
READ = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR


def _expand(tree: str, hidden: list[str]) -> list[str]:
    """``tree`` less the hidden paths inside it, as the folders and files that remain:
    Landlock only allows, so what is hidden is left out by allowing its siblings."""
    inside = [h for h in hidden if under(h, tree)]
    if not inside:
        return [tree]
    if tree in inside or not os.path.isdir(tree) or os.path.islink(tree):
        return []
    out = []
    try:
        names = sorted(os.listdir(tree))
    except OSError:
        return []
    for name in names:
        out += _expand(os.path.join(tree, name), inside)
    return out


def landlock_rules(scratch: str, writable: str, hidden: list[str]) -> list[tuple[str, int]]:
    """(path, rights) for a process-mode worker: the same view bubblewrap builds, plus
    /proc, the few devices, its submission (read) and its own tmp folder (write)."""
    return _view_rules(tuple(sorted({os.path.abspath(h) for h in hidden}))) + [
        (scratch, READ),
        (writable, -1),
    ]  # -1: every right the kernel handles


@lru_cache(maxsize=16)
def _view_rules(hidden: tuple) -> list[tuple[str, int]]:
    """The part of the rules every worker of a bank shares (listing /usr and the
    Python installation once per judge process, not once per worker)."""
    v = view()
    hide = sorted(set(v.hide) | set(hidden))
    rules = []
    for tree in v.read:
        for path in (tree, _real(tree)):
            rules += [(p, READ) for p in _expand(path, hide)]
    rules += [(p, READ) for p in v.reveal]
    rules += [
        (p, READ)
        for p in ("/proc", "/sys/devices/system/cpu", "/sys/fs/cgroup", WORKER_DIR)
        if os.path.exists(p)
    ]
    rules += [(p, FS_READ_FILE | FS_WRITE_FILE) for p in _DEVICES if os.path.exists(p)]
    seen, out = set(), []
    for path, rights in rules:
        if path not in seen:
            seen.add(path)
            out.append((path, rights))
    return out


@dataclass
class Plan:
    """How one worker is started and confined."""

    mode: str
    argv: list[str]
    env: dict
    popen: dict = field(default_factory=dict)  # user, group (process mode as root)
    confine: dict = field(default_factory=dict)  # for the worker's boot (judge/worker/confine.py)
    layers: list[str] = field(default_factory=list)  # what holds, in a few words each
    tmpfs: list[str] = field(default_factory=list)  # in-sandbox paths whose use is memory
    writable: str | None = None  # host folder the learner may write (watched for size)
    cwd: str | None = None  # where the worker starts (its writable folder)
    uid: int | None = None  # the worker's own uid (process mode as root)
    wrapped: bool = False  # exit 128+n means its child died of signal n

    @property
    def guards_judge_files(self) -> bool:
        """The worker cannot write the judge's user's files: a read-only root, Landlock,
        or a uid of its own (not so in process mode with neither: same uid, or uid 0)."""
        return self.mode == "bubblewrap" or "landlock" in self.confine or self.uid is not None


def resolve(mode: str | None) -> str:
    """The mode a learner's worker gets: ``bubblewrap`` and ``forked`` fail closed when
    they cannot be had; ``auto`` is ``bubblewrap`` (each worker a sandbox of its own)."""
    mode = requested(mode)
    if mode == "process":
        return "process"
    if mode == "forked":
        why = forked_unavailable()
        if why:
            raise IsolationUnavailable(
                f"forked isolation was asked for but does not work here: {why}"
            )
        return "forked"
    b = bubblewrap()
    if mode == "bubblewrap" and not b.ok:
        raise IsolationUnavailable(
            f"bubblewrap isolation was asked for but does not work here: {b.why}"
        )
    return "bubblewrap" if b.ok else "process"


def base_env(home: str) -> dict:
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": home,
        "TMPDIR": home,
        "LANG": "C.UTF-8",
        "MALLOC_ARENA_MAX": "2",
        "JAX_PLATFORMS": "cpu",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        # OpenBLAS starts a spinning thread per core on import: ~0.1 s of CPU
        # taken from the other worker's start, for arrays of a few dozen numbers
        "OPENBLAS_NUM_THREADS": "1",
    }


# Of /proc, a forked worker reads its own folder (/proc/self, opened by the worker: its
# own pid) and the machine's figures, never its siblings' folders: they share its uid,
# so without this each could list the other's descriptors and read its name and state.
_FORKED_PROC = (
    "/proc/self",
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/proc/stat",
    "/proc/loadavg",
    "/proc/uptime",
    "/proc/version",
    "/proc/filesystems",
    "/proc/sys",
)
# the worker's seccomp filter (judge/worker/confine.py), where the worker knows the
# machine's system call numbers
_SECCOMP = {"seccomp": True} if os.uname().machine in ("x86_64", "aarch64") else {}
SECCOMP_LAYER = "seccomp: no sockets, no System V IPC"
FORKED_LANDLOCK_ABI = 6  # signals and abstract sockets scoped to the domain (Linux 6.12)


def forked_unavailable() -> str:
    """Why workers cannot be forked from a warm sandbox here ("" when they can)."""
    b = bubblewrap()
    if not b.ok:
        return b.why
    if landlock_abi() < FORKED_LANDLOCK_ABI:
        return (
            f"the kernel's Landlock is ABI {landlock_abi()}; keeping forked workers apart "
            f"needs ABI {FORKED_LANDLOCK_ABI} (Linux 6.12: signals and abstract sockets scoped)"
        )
    if not refuses_processes():
        return (
            "forked workers share a pid namespace, so they must start no process "
            f"({PROCESSES_ENV}=allowed, or a machine other than x86_64 and aarch64)"
        )
    if not hasattr(os, "pidfd_open"):
        return "this Python or kernel has no pidfd_open"
    return ""


def zygote_argv(
    inbox: str, hidden: list[str], slots: tuple[str, ...], slot_bytes: int, inner
) -> list[str]:
    """A warm sandbox: the view every worker gets, the workers' submissions folder
    (``inbox``, read-only), a small /tmp for the server and a tmpfs per slot in it."""
    return bwrap_argv(
        inbox, hidden, 1 << 20, inner(WORKER_MOUNT), slots=slots, slot_bytes=slot_bytes
    )


def forked_plan(*, slot: str, scratch: str, hidden: list[str]) -> Plan:
    """A worker forked in a warm sandbox: its slot is its /tmp, HOME and working folder,
    its scratch (in the sandbox's inbox) holds its submission; Landlock allows it
    nothing else to write and nothing of its siblings to read."""
    abi = landlock_abi()
    shared = _view_rules(tuple(sorted({os.path.abspath(h) for h in hidden})))
    rules = (
        [rule for rule in shared if rule[0] != "/proc"]
        + [(path, READ) for path in _FORKED_PROC]
        + [(WORKER_MOUNT, READ), (scratch, READ), (slot, -1)]
    )
    confine = {"landlock": {"abi": abi, "rules": rules}, **_SECCOMP, **refuses_processes()}
    return Plan(
        "forked",
        [],
        base_env(slot),
        confine=confine,
        layers=[
            "namespaces (shared with the other warm workers)",
            "no capabilities",
            "uid 65534" if is_root() else "own uid",
            "minimal read-only root",
            "no network",
            "private /tmp folder",
            f"landlock v{abi}: its own files, signals and sockets",
            SECCOMP_LAYER,
            "no processes",
        ],
        tmpfs=[slot],
        cwd=slot,
    )


def refuses_processes() -> dict:
    """The confine entry that makes a learner's worker refuse process creation (on the
    architectures whose seccomp filter the worker knows), unless the tests of the
    backstops behind it lifted it."""
    if os.environ.get(PROCESSES_ENV, "").strip().lower() == "allowed":
        return {}
    if os.uname().machine not in ("x86_64", "aarch64"):
        return {}
    return {"no_processes": True}


def plan(
    mode: str, *, trusted: bool, scratch: str, hidden: list[str], scratch_bytes: int, inner
) -> Plan:
    """``inner(worker_dir, confine)`` is the worker's own command line."""
    if trusted:
        return Plan("process", inner(WORKER_DIR, {}), base_env(scratch), layers=["trusted"])
    if mode == "bubblewrap":
        # the filter too: a lease on a file of the read-only view (which the worker owns
        # as uid 0 outside) would hold up every process that opens it, on the host too
        confine = {**refuses_processes(), **_SECCOMP}
        argv = bwrap_argv(scratch, hidden, scratch_bytes, inner(WORKER_MOUNT, confine))
        layers = [
            "namespaces",
            "no capabilities",
            "uid 65534" if is_root() else "own uid",
            "minimal read-only root",
            "no network",
            "private /tmp",
        ]
        layers += [SECCOMP_LAYER] if _SECCOMP else []
        layers += ["no processes"] if confine.get("no_processes") else []
        return Plan(
            "bubblewrap",
            argv,
            base_env("/tmp"),
            layers=layers,
            confine=confine,
            tmpfs=["/tmp", "/dev/shm"],
            wrapped=True,
        )
    writable = os.path.join(scratch, "tmp")
    os.mkdir(writable, 0o700)
    confine, popen, layers, uid = {}, {}, [], None
    if is_root():
        if own_uid_possible():
            uid = take_uid()
            popen = {"user": uid, "group": uid, "extra_groups": []}
            confine["own_uid"] = uid
            os.chown(scratch, 0, uid)
            os.chmod(scratch, 0o750)
            os.chown(writable, uid, uid)
            layers.append(f"uid {uid}")
        else:
            confine["drop_caps"] = True
            layers.append("uid 0 without capabilities")
    if _SECCOMP:
        confine.update(_SECCOMP)
        layers.append(SECCOMP_LAYER)
    if refuses_processes():
        confine.update(refuses_processes())
        layers.append("no processes")
    abi = landlock_abi()
    if abi:
        confine["landlock"] = {"abi": abi, "rules": landlock_rules(scratch, writable, hidden)}
        confine["imports"] = [list(pair) for pair in view().imports]
        confine["drop_path"] = list(view().listable)
        layers.append(f"landlock v{abi}")
    return Plan(
        "process",
        inner(WORKER_DIR, confine),
        base_env(writable),
        popen=popen,
        confine=confine,
        layers=layers,
        writable=writable,
        uid=uid,
        cwd=writable,
    )
