"""A process that exits while a daemon thread reads (issue 15, item 12): a clean exit.

The thread was frozen inside native code (the process aborted with
"terminate called without an active exception"), died with a traceback
(executors refuse work at exit; descriptors were closed under it), or kept
native objects alive past the interpreter ("nanobind: leaked 1 instances!",
14 lines). Each reader runs in child processes that exit mid-read; their
exit status must be 0 and their stderr empty.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

PRELUDE = """
import pathlib, sys, tempfile, threading, time
import numpy as np
d = pathlib.Path(sys.argv[1])
def loop(read):
    def run():
        while True:
            read()
    threading.Thread(target=run, daemon=True).start()
"""

READERS = {
    "ctf": """
from minibatcher import CTFDeserializer, MinibatchSource, StreamDef
(d / "a.ctf").write_text("".join(f"|a {i} {i}\\n" for i in range(50_000)))
src = MinibatchSource(CTFDeserializer(str(d / "a.ctf"), {"a": StreamDef(shape=2)},
                                      chunk_size_in_bytes=4096))
loop(lambda: src.next_minibatch(64))
""",
    "htk": """
from minibatcher import MinibatchSource, StreamDef
from minibatcher.formats.htk import HTKFeatureDeserializer, write_htk
write_htk(d / "a.htk", np.ones((20_000, 4), np.float32))
(d / "a.scp").write_text("".join(f"u{i}.mfc=a.htk[{i * 100},{i * 100 + 99}]\\n"
                                 for i in range(200)))
src = MinibatchSource(HTKFeatureDeserializer({"x": StreamDef(scp=str(d / "a.scp"), shape=4)},
                                             base_dir=d, chunk_frames=500))
loop(lambda: src.next_minibatch(100))
""",
    "tfrecord and vocabulary": """
from minibatcher.formats.tfrecord import TFRecordWriter
from minibatcher.nmt.vocab_utils import VocabTable
from minibatcher.tfdata import TFRecordDataset
with TFRecordWriter(d / "r") as w:
    w.write_many([b"x" * 1000] * 5_000)
table = VocabTable([b"<unk>", b"x"]); table.native()
loop(lambda: [len(b) for b in TFRecordDataset(str(d / "r")).batch(64)])
""",
}


@pytest.mark.parametrize("reader", list(READERS))
def test_exiting_while_a_daemon_thread_reads_is_clean(tmp_path, reader: str) -> None:
    code = PRELUDE + textwrap.dedent(READERS[reader]) + "time.sleep(0.3)\n"
    runs = []
    for k in range(4):  # the crash came in some runs only
        folder = tmp_path / str(k)
        folder.mkdir()
        runs.append(subprocess.Popen([sys.executable, "-c", code, str(folder)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert (run.returncode, err) == (0, ""), f"exit status {run.returncode}: {err[-3000:]}"
