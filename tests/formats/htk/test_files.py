"""HTK parameter files (cntk-htk-mlf-and-randomizer.md §3, DECISIONS 13), native and reference."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from minibatcher import HTKFeatureDeserializer, MinibatchSource, StreamDef
from minibatcher.errors import ConfigError, ErrorBudgetExceeded
from minibatcher.formats.htk import read_htk, write_htk
from minibatcher.formats.htk.htkfile import kind_code

FRAMES = np.arange(40, dtype=np.float32).reshape(10, 4) / 8 - 2


def load(tmp_path, impl, scp_text: str, shape: int = 4, max_errors: int = 0, **kw):
    (tmp_path / "l.scp").write_text(scp_text)
    return HTKFeatureDeserializer({"x": StreamDef(scp=str(tmp_path / "l.scp"), shape=shape, **kw)},
                                  base_dir=tmp_path, impl=impl, max_errors=max_errors,
                                  trace_level=0)


def values(d) -> np.ndarray:
    return d.load_chunk(0).streams[0].values


@pytest.mark.parametrize("kind", ["MFCC", "FBANK_E", "USER_D_A", "PLP_E_D_A_Z_0", "MFCC_E_N_D",
                                  "USER_T", "FESTREAM"])
@pytest.mark.parametrize("big_endian", [True, False])
def test_kinds_qualifiers_and_byte_orders(tmp_path, impl, kind, big_endian):
    write_htk(tmp_path / "f.htk", FRAMES, kind=kind, big_endian=big_endian)
    d = load(tmp_path, impl, "u.x=f.htk[2,7]\n")
    assert np.array_equal(values(d), FRAMES[2:8])
    frames, info = read_htk(tmp_path / "f.htk", impl=impl)
    assert np.array_equal(frames, FRAMES) and info.kind_name == kind
    assert info.big_endian == big_endian and info.dim == 4


@pytest.mark.parametrize("big_endian", [True, False])
def test_compressed_files_decode_as_htk(tmp_path, impl, big_endian):
    write_htk(tmp_path / "c.htk", FRAMES, kind="MFCC_C_K", big_endian=big_endian)
    raw = (tmp_path / "c.htk").read_bytes()
    order = ">" if big_endian else "<"
    n, _, size, _ = struct.unpack(order + "iiHH", raw[:12])
    assert n == 10 + 4 and size == 8  # A and B count as 4 frames of 2-byte values
    a = np.frombuffer(raw[12:28], order + "f4").astype(np.float32)
    b = np.frombuffer(raw[28:44], order + "f4").astype(np.float32)
    shorts = np.frombuffer(raw[44:44 + 80], order + "i2").reshape(10, 4).astype(np.float32)
    want = (shorts + b) / a  # x = (short + B) / A in float, HTK's decode
    assert np.array_equal(values(load(tmp_path, impl, "u.x=c.htk[0,9]\n")), want)
    assert np.allclose(want, FRAMES, atol=1e-3)


def test_whole_file_entries_take_their_length_from_the_header(tmp_path, impl):
    write_htk(tmp_path / "a.htk", FRAMES[:3])
    write_htk(tmp_path / "b.htk", FRAMES[3:])
    d = load(tmp_path, impl, "a.htk\nkey.mfc=b.htk\n")
    assert d.table().lengths.tolist() == [3, 7] and np.array_equal(values(d), FRAMES)


def test_double_precision(tmp_path, impl):
    write_htk(tmp_path / "f.htk", FRAMES)
    (tmp_path / "l.scp").write_text("u.x=f.htk[0,9]\n")
    d = HTKFeatureDeserializer({"x": StreamDef(scp=str(tmp_path / "l.scp"), shape=4)},
                               base_dir=tmp_path, impl=impl, precision="double")
    assert values(d).dtype == np.float64 and np.array_equal(values(d), FRAMES)


@pytest.mark.parametrize("kind, what", [
    (kind_code("USER_V"), "vector-quantized files .*_V"),
    (10, "parameter kind DISCRETE \\(10\\) is not supported"),
    (1, "parameter kind LPC \\(1\\) is not supported"),
    (0, "parameter kind WAVEFORM \\(0\\) is not supported"),
    (13, "parameter kind kind 13 \\(13\\) is not supported")])
def test_unsupported_kinds_are_clear_errors(tmp_path, impl, kind, what):
    write_htk(tmp_path / "f.htk", FRAMES, kind=kind)
    with pytest.raises(ErrorBudgetExceeded, match=f"l\\.scp:1: archive .*f\\.htk.*: {what}"):
        load(tmp_path, impl, "u.x=f.htk[0,9]\n")


def test_checksums_are_verified(tmp_path, impl):
    write_htk(tmp_path / "f.htk", FRAMES, kind="USER_K")
    write_htk(tmp_path / "g.htk", FRAMES, kind="USER_K")
    assert np.array_equal(values(load(tmp_path, impl, "u.x=f.htk[0,9]\n")), FRAMES)
    raw = bytearray((tmp_path / "f.htk").read_bytes())
    raw[20] ^= 0x40  # one flipped bit in frame 0
    (tmp_path / "f.htk").write_bytes(bytes(raw))
    with pytest.raises(ErrorBudgetExceeded, match=r"l\.scp:1: archive .*f\.htk.*: the _K checksum "
                                                   r"does not match: stored \d+, computed \d+"):
        load(tmp_path, impl, "u.x=f.htk[0,9]\n")
    d = load(tmp_path, impl, "u.x=f.htk[0,9]\nv.x=g.htk[0,9]\n", max_errors=1)
    assert d.table().num_sequences == 1 and d.stats.skipped_utterances == 1


def test_checksum_can_be_skipped(tmp_path, impl):
    write_htk(tmp_path / "f.htk", FRAMES, kind="USER_K")
    raw = bytearray((tmp_path / "f.htk").read_bytes())
    raw[20] ^= 0x40
    (tmp_path / "f.htk").write_bytes(bytes(raw))
    (tmp_path / "l.scp").write_text("u.x=f.htk[0,9]\n")
    d = HTKFeatureDeserializer({"x": StreamDef(scp=str(tmp_path / "l.scp"), shape=4)},
                               base_dir=tmp_path, impl=impl, verify_crc=False)
    assert d.table().num_sequences == 1


def test_mixed_kinds_are_inconsistent(tmp_path, impl):
    write_htk(tmp_path / "a.htk", FRAMES, kind="MFCC")
    write_htk(tmp_path / "b.htk", FRAMES, kind="MFCC_C")  # _C and _K do not change the kind
    write_htk(tmp_path / "c.htk", FRAMES, kind="PLP")
    with pytest.raises(ErrorBudgetExceeded, match=r"l\.scp:3: archive .*c\.htk.* holds PLP frames "
                                                   r"of 4 values .* holds MFCC frames"):
        load(tmp_path, impl, "a.x=a.htk[0,9]\nb.x=b.htk[0,9]\nc.x=c.htk[0,9]\n")


def test_context_windows_and_dim_rules(tmp_path, impl):
    write_htk(tmp_path / "f.htk", FRAMES)
    assert load(tmp_path, impl, "u.x=f.htk[0,9]\n", shape=12).context == (1, 1)  # 4 x 3 frames
    assert load(tmp_path, impl, "u.x=f.htk[0,9]\n", shape=4, context=(2, 0)).streams[0].dim == 12
    with pytest.raises(ConfigError, match=r"option shape should be 4 .* or 4 x an odd number of "
                                          r"frames .*, but got shape=8"):
        load(tmp_path, impl, "u.x=f.htk[0,9]\n", shape=8)
    with pytest.raises(ConfigError, match="but got shape=5"):
        load(tmp_path, impl, "u.x=f.htk[0,9]\n", shape=5)
    with pytest.raises(ConfigError, match=r"option shape should be 4 .* when context=\(1, 1\) is "
                                          r"given \(the stream then delivers 4 x 3 values\), but "
                                          r"got shape=12"):
        load(tmp_path, impl, "u.x=f.htk[0,9]\n", shape=12, context=(1, 1))


def test_context_edges_in_sequence_frame_and_bptt_modes(tmp_path, impl):
    write_htk(tmp_path / "f.htk", FRAMES)
    scp = "u.x=f.htk[0,3]\nv.x=f.htk[4,9]\n"
    frame0 = FRAMES[:, 0]
    for options in (dict(), dict(frame_mode=True), dict(truncation_length=3)):
        source = MinibatchSource(load(tmp_path, impl, scp, shape=4, context=(1, 2)),
                                 randomize=False, max_sweeps=1, **options)
        rows = []
        while mb := source.next_minibatch(4 if options else 100):
            rows.append(mb["x"].values)
        got = np.concatenate(rows).reshape(-1, 4, 4)[:, :, 0]
        centre = [np.flatnonzero(frame0 == v)[0] for v in got[:, 1]]
        bounds = [(0, 3) if c < 4 else (4, 9) for c in centre]
        want = [[frame0[min(max(c + j, lo), hi)] for j in (-1, 0, 1, 2)]
                for c, (lo, hi) in zip(centre, bounds)]
        assert got.tolist() == want and sorted(centre) == list(range(10)), options
