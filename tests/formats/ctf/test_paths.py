"""What CTFDeserializer accepts as its file: a regular file, with clear errors otherwise."""

from __future__ import annotations

import os

import pytest

from minibatcher import ConfigError, CTFDeserializer, NotARegularFileError, StreamDef

from .helpers import deserializer, run_python


def test_an_empty_filename_is_a_config_error(write):
    # was "IsADirectoryError: [Errno 21] Is a directory: '.'" (Path("") is ".")
    with pytest.raises(ConfigError, match=r"filename should be the path of a CTF file, but got "
                                          r"filename=''"):
        deserializer("")
    with pytest.raises(ConfigError, match="filename=None"):
        CTFDeserializer(None, {"a": StreamDef()})


def test_a_directory_is_named_as_such(tmp_path):
    with pytest.raises(NotARegularFileError, match="the CTF file is not a regular file but a "
                                                   "directory"):
        deserializer(tmp_path)


def test_a_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.ctf"):
        deserializer(tmp_path / "missing.ctf")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_is_refused_instead_of_blocking_forever(tmp_path):
    fifo = tmp_path / "pipe.ctf"
    os.mkfifo(fifo)
    code = f"""
from minibatcher import CTFDeserializer, StreamDef, NotARegularFileError
try:
    CTFDeserializer({str(fifo)!r}, {{"a": StreamDef()}})
except NotARegularFileError as e:
    print("refused", e)
"""
    done = run_python(code, timeout=60)  # the old reader blocked in open() until a writer came
    assert done.returncode == 0, done.stderr
    assert "refused" in done.stdout and "pipe.ctf: the CTF file is not a regular file but a FIFO " \
        "(named pipe)" in done.stdout
