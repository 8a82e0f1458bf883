"""The guarded reader every file under .rawko/ goes through: real links, FIFOs, devices and a size limit."""

from __future__ import annotations

import os

import pytest

from rawko_tui.core.safeio import UnsafeFile, read_regular


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
