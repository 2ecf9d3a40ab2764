"""Descriptors into trees the learner can write, and the only ways the judge acts there.

The judge is often root, and the learner's code can rename, replace and link anything
in its scratch, its private /tmp and /dev/shm, and the folder where XLA records its
compiles.  A path string the judge resolves after the learner's code ran may lead
anywhere the learner chose: under bubblewrap the judge reaches the sandbox through
``/proc/<pid>/root``, where an absolute link target resolves on the host.  So every
operation the judge performs in such a tree starts from a directory descriptor opened
before the learner's code ran, and each step below it is taken with ``openat2``
(``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS``) or, on kernels
without it (before 5.6), one ``openat(O_NOFOLLOW)`` per component: no link is ever
followed, and nothing above the descriptor can be reached.

Walks (``tree_bytes``, ``remove_in``) are iterative, descend with ``O_NOFOLLOW``, never
leave the descriptor's file system, and hold a bounded number of descriptors however
deep the tree (a learner can nest thousands of folders): a folder whose descriptor was
given up is found again through its child's ``..`` and must be the very folder it was
(device and inode), or the walk leaves it.
"""

from __future__ import annotations

import ctypes
import errno
import itertools
import os
import stat
import struct

RESOLVE_NO_XDEV, RESOLVE_NO_MAGICLINKS, RESOLVE_NO_SYMLINKS, RESOLVE_BENEATH = 0x1, 0x2, 0x4, 0x8
RESOLVE = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS
_SYS_OPENAT2 = 437  # the same number on every architecture that has it
_HOW = struct.Struct("QQQ")  # struct open_how: flags, mode, resolve
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_HELD = 32  # descriptors one walk keeps open at most
_openat2_works: bool | None = None


_LIBC = None


def _libc():
    global _LIBC
    if _LIBC is None:
        _LIBC = ctypes.CDLL(None, use_errno=True)
        _LIBC.syscall.restype = ctypes.c_long
    return _LIBC


def _openat2(dir_fd: int, rel: str, flags: int, mode: int) -> int:
    global _openat2_works
    if not flags & os.O_CREAT and flags & os.O_TMPFILE != os.O_TMPFILE:
        mode = 0  # openat2 refuses a mode it would not use
    how = ctypes.create_string_buffer(_HOW.pack(flags, mode, RESOLVE), _HOW.size)
    fd = _libc().syscall(
        ctypes.c_long(_SYS_OPENAT2),
        ctypes.c_int(dir_fd),
        ctypes.c_char_p(os.fsencode(rel)),
        how,
        ctypes.c_size_t(_HOW.size),
    )
    if fd < 0:
        error = ctypes.get_errno()
        if error in (errno.ENOSYS, errno.E2BIG) or (
            error == errno.EPERM and _openat2_works is None
        ):
            # no openat2 here (or a seccomp filter refusing it): the per-component way
            _openat2_works = False
            return _per_component(dir_fd, rel, flags, mode)
        raise OSError(error, f"{os.strerror(error)}: {rel!r} beneath the descriptor")
    _openat2_works = True
    return fd


def _per_component(dir_fd: int, rel: str, flags: int, mode: int) -> int:
    """openat2's rule by hand: one openat per component, none of them a link, no '..'."""
    parts = _parts(rel)
    current = dir_fd
    try:
        for part in parts[:-1]:
            step = os.open(
                part, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=current
            )
            if current != dir_fd:
                os.close(current)
            current = step
        return os.open(parts[-1], flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=current)
    finally:
        if current != dir_fd:
            os.close(current)


def _parts(rel: str) -> list[str]:
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if os.path.isabs(rel) or ".." in parts or not parts:
        raise OSError(errno.EXDEV, f"{rel!r} is not a path beneath the descriptor")
    return parts


def open_beneath(dir_fd: int, rel: str, flags: int = _DIR, mode: int = 0o600) -> int:
    """A descriptor of ``rel`` strictly beneath ``dir_fd``, no link followed on the way
    (ELOOP where one is met, EXDEV where ``rel`` would leave)."""
    _parts(rel)
    flags |= os.O_NOFOLLOW | os.O_CLOEXEC
    if _openat2_works is False:
        return _per_component(dir_fd, rel, flags, mode)
    return _openat2(dir_fd, rel, flags, mode)


def open_dir(path: str) -> int:
    """A folder the judge itself made (a scratch dir), as a descriptor; its last
    component must not be a link."""
    return os.open(path, _DIR)


def _identity(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


class _Frame:
    __slots__ = ("fd", "ident", "name", "subdirs")

    def __init__(self, fd: int, ident: tuple[int, int], name: str | None):
        self.subdirs: list[str]
        self.fd, self.ident, self.name, self.subdirs = fd, ident, name, []


def _walk(
    top_fd: int, on_entry, on_leave=None, max_entries: int | None = None, fix_modes: bool = False
) -> int:
    """Depth first under ``top_fd`` (not closed): ``on_entry(dir_fd, entry, is_dir)``
    for every entry (a DirEntry of ``dir_fd``: its ``stat(follow_symlinks=False)`` is
    the entry's own), and for each folder below, once its own entries are done,
    ``on_leave(parent_fd, name)``.  Returns the entries seen (at most max_entries)."""
    top_st = os.fstat(top_fd)
    stack = [_Frame(os.dup(top_fd), _identity(top_st), None)]
    seen = 0

    def list_into(frame: _Frame) -> None:
        nonlocal seen
        if fix_modes and os.geteuid() != 0:
            try:
                os.fchmod(frame.fd, stat.S_IRWXU)  # a learner's unwritable folder
            except OSError:
                pass
        try:
            it = os.scandir(frame.fd)
        except OSError:
            return
        with it:  # read whole before on_entry removes any of it
            entries = (
                []
                if max_entries is not None and seen >= max_entries
                else list(itertools.islice(it, None if max_entries is None else max_entries - seen))
            )
        for entry in entries:
            seen += 1
            try:
                is_dir = entry.is_dir(follow_symlinks=False)  # d_type: no stat
            except OSError:
                continue
            if is_dir:  # another file system's is left when it is opened
                frame.subdirs.append(entry.name)
            on_entry(frame.fd, entry, is_dir)

    try:
        list_into(stack[0])
        while stack:
            frame = stack[-1]
            if frame.subdirs and (max_entries is None or seen < max_entries):
                name = frame.subdirs.pop()
                fd = _open_child(frame.fd, name, fix_modes)
                if fd is None:
                    continue
                child = _Frame(fd, _identity(os.fstat(fd)), name)
                if child.ident[0] != top_st.st_dev:  # replaced by a mount: not ours
                    os.close(fd)
                    continue
                stack.append(child)
                if len(stack) > _HELD:  # give up the descriptor furthest up
                    far = stack[-_HELD - 1]
                    if far.fd >= 0 and far.name is not None:
                        os.close(far.fd)
                        far.fd = -1
                list_into(child)
                continue
            stack.pop()
            if not stack:
                os.close(frame.fd)
                break
            parent = stack[-1]
            if parent.fd < 0:
                parent.fd = _back_up(frame.fd, parent.ident)
            os.close(frame.fd)
            frame.fd = -1
            if parent.fd < 0:  # moved while walked: leave what is above as it is
                break
            if on_leave is not None:
                on_leave(parent.fd, frame.name)
    finally:
        for frame in stack:
            if frame.fd >= 0:
                os.close(frame.fd)
    return seen


def _open_child(dir_fd: int, name: str, fix_modes: bool) -> int | None:
    try:
        return os.open(name, _DIR, dir_fd=dir_fd)
    except PermissionError:
        if not fix_modes:
            return None
    except OSError:
        return None  # gone, or a link now: never followed
    try:  # a folder the learner made unreadable (judge not root): its mode, never a link's
        handle = os.open(
            name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd
        )
        try:
            os.chmod(f"/proc/self/fd/{handle}", stat.S_IRWXU)
        finally:
            os.close(handle)
        return os.open(name, _DIR, dir_fd=dir_fd)
    except OSError:
        return None


def _back_up(child_fd: int, ident: tuple[int, int]) -> int:
    """The parent of a folder, through its '..', if it is still the folder walked down
    from; else -1."""
    try:
        fd = os.open("..", _DIR, dir_fd=child_fd)
    except OSError:
        return -1
    if _identity(os.fstat(fd)) != ident:
        os.close(fd)
        return -1
    return fd


def tree_bytes(dir_fd: int, max_entries: int) -> tuple[int, int]:
    """(bytes, entries) under the folder, stopping after max_entries: the cost of one
    look is bounded however many files the learner made."""
    total = 0

    def add(_fd, entry, _is_dir):
        nonlocal total
        try:
            total += entry.stat(follow_symlinks=False).st_blocks * 512
        except OSError:
            pass

    entries = _walk(dir_fd, add, max_entries=max_entries)
    return total, entries


def remove_in(dir_fd: int, name: str) -> None:
    """Remove ``name`` in the folder (a file, a link itself, or a whole tree), quietly,
    changing nothing outside it."""
    if "/" in name or name in ("", ".", ".."):
        raise ValueError(f"{name!r} is not a name in a folder")
    try:
        os.unlink(name, dir_fd=dir_fd)
        return
    except (IsADirectoryError, PermissionError):
        pass  # a folder (EISDIR; EPERM on some file systems), or not allowed
    except OSError:
        return
    fd = _open_child(dir_fd, name, fix_modes=True)
    if fd is None:
        return
    try:

        def entry(parent, found, is_dir):
            if not is_dir:
                try:
                    os.unlink(found.name, dir_fd=parent)
                except OSError:
                    pass

        def leave(parent, entry_name):
            try:
                os.rmdir(entry_name, dir_fd=parent)
            except OSError:
                pass

        _walk(fd, entry, leave, fix_modes=True)
    finally:
        os.close(fd)
    try:
        os.rmdir(name, dir_fd=dir_fd)
    except OSError:
        pass


def remove_tree(path: str) -> None:
    """Remove a folder the judge made (a scratch dir) and everything in it, whatever the
    learner did inside; the folder above is opened by its path, the rest by
    descriptors."""
    path = os.path.abspath(path)
    try:
        parent = os.open(os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        remove_in(parent, os.path.basename(path))
    finally:
        os.close(parent)
