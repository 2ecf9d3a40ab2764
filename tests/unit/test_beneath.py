"""judge/sandbox/beneath.py: the judge's only ways to act in a folder the learner can
write.  Links are never followed (openat2 and its per-component fallback alike), no
path leaves the descriptor, and the walks hold a bounded number of descriptors however
deep a learner nests its folders."""

from __future__ import annotations

import os

import pytest

from judge.compile_log import CompileLog
from judge.sandbox import beneath


@pytest.fixture(params=["openat2", "per-component"])
def resolver(request, monkeypatch):
    """Each case on this kernel's openat2 and on the fallback for kernels without it."""
    if request.param == "per-component":
        monkeypatch.setattr(beneath, "_openat2_works", False)
    else:
        monkeypatch.setattr(beneath, "_openat2_works", None)
    return request.param


@pytest.fixture
def tree(tmp_path):
    """A learner's folder with a link to a host folder in it, and that host folder."""
    host = tmp_path / "host"
    host.mkdir()
    (host / "secret").write_text("host's")
    mine = tmp_path / "mine"
    (mine / "a" / "b").mkdir(parents=True)
    (mine / "a" / "b" / "f").write_text("learner's")
    (mine / "a" / "to_host").symlink_to(host)
    (mine / "a" / "to_secret").symlink_to(host / "secret")
    (mine / "a" / "up").symlink_to("..")
    fd = beneath.open_dir(str(mine))
    yield mine, host, fd
    os.close(fd)


def test_a_path_beneath_opens_and_nothing_else_does(tree, resolver):
    mine, host, fd = tree
    inner = beneath.open_beneath(fd, "a/b/f", os.O_RDONLY)
    assert os.read(inner, 100) == b"learner's"
    os.close(inner)
    for rel in (
        "a/to_host",
        "a/to_host/secret",
        "a/to_secret",
        "a/up/a",
        "../mine",
        "a/../a",
        str(host / "secret"),
        "/",
    ):
        with pytest.raises(OSError):
            os.close(beneath.open_beneath(fd, rel, os.O_RDONLY))
    with pytest.raises(OSError):
        beneath.open_dir(str(mine / "a" / "to_host"))  # a link at the top, either


def test_magic_links_under_proc_are_not_followed(resolver):
    proc = beneath.open_dir("/proc")
    try:
        with pytest.raises(OSError):
            os.close(beneath.open_beneath(proc, "self/root/etc", os.O_RDONLY))
        with pytest.raises(OSError):
            os.close(beneath.open_beneath(proc, f"{os.getpid()}/root", os.O_RDONLY))
    finally:
        os.close(proc)


def test_removal_removes_links_not_what_they_name(tree):
    mine, host, fd = tree
    beneath.remove_tree(str(mine))
    assert not os.path.lexists(mine)
    assert (host / "secret").read_text() == "host's"


def test_removal_of_a_name_in_a_folder(tree):
    mine, host, fd = tree
    beneath.remove_in(fd, "a")
    assert os.listdir(mine) == []
    assert (host / "secret").read_text() == "host's"
    for name in ("", ".", "..", "a/b"):
        with pytest.raises(ValueError):
            beneath.remove_in(fd, name)


def test_a_folder_moved_during_a_walk_is_left_not_searched_for(tmp_path):
    """Going back up through '..' must reach the very folder walked down from."""
    (tmp_path / "a" / "b").mkdir(parents=True)
    parent = beneath.open_dir(str(tmp_path / "a"))
    child = beneath.open_beneath(parent, "b")
    ident = beneath._identity(os.fstat(parent))
    (tmp_path / "elsewhere").mkdir()
    os.rename(tmp_path / "a" / "b", tmp_path / "elsewhere" / "b")
    assert beneath._back_up(child, ident) == -1
    os.close(child)
    os.close(parent)


def test_tree_bytes_counts_no_byte_behind_a_link(tree, tmp_path):
    mine, host, fd = tree
    (host / "big").write_bytes(b"x" * (1 << 20))
    size, entries = beneath.tree_bytes(fd, 100)
    assert entries == 6 and size < (1 << 20)


def test_a_compile_log_prunes_only_in_its_own_folder(tmp_path):
    """A name XLA's folder held, then the folder moved and linked elsewhere: the pruning
    removes nothing there (and nothing at all once the folder was tampered with)."""
    folder, host = tmp_path / "xla", tmp_path / "host"
    folder.mkdir()
    host.mkdir()
    (host / "victim").write_text("keep")
    log = CompileLog(str(folder))
    (folder / "victim").write_text("")
    folder.rename(tmp_path / "moved")
    folder.symlink_to(host)
    log.count()
    log.prune()
    assert (host / "victim").read_text() == "keep"
    assert (tmp_path / "moved" / "victim").exists()
    log.close()


def test_a_compile_log_with_no_room_for_a_record_is_tampered_with(tmp_path, monkeypatch):
    """A tmpfs filled with empty files (no space used, every inode taken): XLA could make
    no record, so its compiles would go uncounted."""
    log = CompileLog(str(tmp_path))
    assert log.count() == 0 and log.problem is None
    full = os.statvfs_result((4096, 4096, 100, 50, 50, 1000, 0, 0, 0, 255))
    monkeypatch.setattr(os, "fstatvfs", lambda fd: full)
    log.count()
    assert log.problem and "no file could be made" in log.problem
    log.close()
