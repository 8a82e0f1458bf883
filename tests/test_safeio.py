"""The guarded reader every file under .rawko/ goes through: real links, FIFOs, devices and a size limit."""

from __future__ import annotations

import os

import pytest

from rawko_tui.core.disk.safeio import UnsafeFile, read_regular


def test_a_regular_file_is_read(tmp_path):
    (tmp_path / "a.md").write_bytes(b"hello\n")
    assert read_regular(tmp_path / "a.md", 100) == b"hello\n"


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/null"])
def test_a_link_is_never_followed(tmp_path, target):
    (tmp_path / "a.md").symlink_to(target)
    with pytest.raises(UnsafeFile, match="symlink"):
        read_regular(tmp_path / "a.md", 100)


def test_a_link_to_a_regular_file_is_not_followed_either(tmp_path):
    (tmp_path / "secret").write_bytes(b"key")
    (tmp_path / "a.md").symlink_to(tmp_path / "secret")
    with pytest.raises(UnsafeFile):
        read_regular(tmp_path / "a.md", 100)


def test_a_device_and_a_fifo_are_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "fifo.md")  # no writer: a plain open would block for ever
    with pytest.raises(UnsafeFile, match="not a regular file"):
        read_regular(tmp_path / "fifo.md", 100)
    with pytest.raises(UnsafeFile, match="not a regular file"):
        read_regular("/dev/zero", 100)


def test_over_the_limit_is_refused(tmp_path):
    (tmp_path / "big.yaml").write_bytes(b"x" * 101)
    with pytest.raises(UnsafeFile, match="limit"):
        read_regular(tmp_path / "big.yaml", 100)
    assert read_regular(tmp_path / "big.yaml", 101) == b"x" * 101


def test_it_is_an_oserror_with_a_plain_reason(tmp_path):
    (tmp_path / "a.md").symlink_to("/dev/zero")
    with pytest.raises(OSError) as caught:
        read_regular(tmp_path / "a.md", 100)
    assert caught.value.strerror.startswith("a symlink")


def test_a_path_in_the_store_is_read_only_inside_it_and_never_through_a_linked_folder(tmp_path):
    from rawko_tui.core.disk.safeio import linked_part, read_in_store

    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.md").write_bytes(b"key")
    root = tmp_path / "store"
    (root / ".rawko" / "memories").mkdir(parents=True)
    (root / ".rawko" / "memories" / "a.md").write_bytes(b"a")
    (root / ".rawko" / "agents").symlink_to(tmp_path / "outside", target_is_directory=True)
    assert read_in_store(root, ".rawko/memories/a.md", 100) == b"a"
    for rel in (".rawko/memories//dev/zero", ".rawko/memories/../../../outside/secret.md", "/dev/zero", ".rawko/./memories/a.md"):
        with pytest.raises(UnsafeFile, match="outside the store"):
            read_in_store(root, rel, 100)
    with pytest.raises(UnsafeFile, match=r"inside \.rawko/agents/, a symlinked folder"):
        read_in_store(root, ".rawko/agents/secret.md", 100)
    assert linked_part(root, ".rawko/agents/secret.md") == ".rawko/agents"
    assert linked_part(root, ".rawko/memories/a.md") is None


def test_refusal_says_what_the_reader_would_refuse_without_opening_anything(tmp_path):
    from rawko_tui.core.disk.safeio import refusal

    os.mkfifo(tmp_path / "fifo.yaml")
    (tmp_path / "link.yaml").symlink_to("/dev/zero")
    (tmp_path / "big.yaml").write_bytes(b"x" * 11)
    (tmp_path / "ok.yaml").write_bytes(b"x")
    (tmp_path / "folder.yaml").mkdir()
    assert refusal(tmp_path / "fifo.yaml", 10).startswith("not a regular file (a device, FIFO or socket)")
    assert refusal(tmp_path / "link.yaml", 10).startswith("a symlink")
    assert refusal(tmp_path / "big.yaml", 10) == "11 bytes, over the 10-byte limit for this kind of file: not read"
    assert refusal(tmp_path / "folder.yaml", 10).startswith("not a regular file (a folder)")
    assert refusal(tmp_path / "ok.yaml", 10) is None and refusal(tmp_path / "missing.yaml", 10) is None


def test_a_named_file_may_be_a_pipe_but_is_never_read_past_its_limit(tmp_path):
    from rawko_tui.core.disk.safeio import read_named

    reader, writer = os.pipe()
    os.write(writer, b"from a pipe")
    os.close(writer)
    assert read_named(f"/dev/fd/{reader}", 100) == b"from a pipe"
    os.close(reader)
    with pytest.raises(UnsafeFile, match="more than the 100-byte limit"):
        read_named("/dev/zero", 100)
