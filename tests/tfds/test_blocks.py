"""``as_dataset`` a block at a time (issue 14.4): the same elements, states and next
epochs with block execution on and off, for every kind of feature, read config
and consumer; columns where the features allow (no element path decoding, no
padding per element); images decoded on ``num_parallel_calls_for_decode``
threads; errors and resumes as on the element path."""

from __future__ import annotations

import io
import json
import random
import re
import threading
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from minibatcher import tfds
from minibatcher.errors import FormatError
from minibatcher.tfdata.block import block_execution
from minibatcher.tfds.testing import features_dict, tensor_feature, write_dataset

from ..tfdata.resume import assert_resumes_exactly
from .test_corrupted import corrupt, shard
from .test_features import FEATURES as EVERY_CONNECTOR
from .test_features import example as every_connector

CLS = "tensorflow_datasets.core.features."
LENGTHS = [5, 0, 3, 9, 1, 4]


def image_spec(shape: list[int], fmt: str = "png") -> dict:
    return {"pythonClassName": CLS + "image_feature.Image", "image": {
        "shape": {"dimensions": [str(d) for d in shape]}, "dtype": "uint8",
        "encodingFormat": fmt}}


def encoded(array: np.ndarray, fmt: str = "PNG", **options: Any) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(array.squeeze(-1) if array.shape[-1] == 1 else array).save(buf, fmt, **options)
    return buf.getvalue()


def pixels(k: int, shape: tuple[int, ...]) -> np.ndarray:
    rng = np.random.default_rng(k)
    return np.cumsum(rng.integers(0, 9, shape), axis=1).astype(np.uint8)


COLUMNS = features_dict({
    "image": image_spec([6, 5, 3]), "mask": image_spec([6, 5, 1]),
    "photo": image_spec([8, 8, 3], "jpeg"),
    "label": {"pythonClassName": CLS + "class_label_feature.ClassLabel",
              "classLabel": {"numClasses": "7"}},
    "name": {"pythonClassName": CLS + "text_feature.Text", "text": {}},
    "id": tensor_feature("int64", [], scalar=True),
    "vec": tensor_feature("float32", [3]),
    "meta": features_dict({"tag": tensor_feature("string", [], scalar=True),
                           "w": tensor_feature("float32", [], scalar=True)}),
})


def columns_example(split: str, k: int) -> dict:
    return {"image": [encoded(pixels(k, (6, 5, 3)), optimize=k % 2 == 0)],
            "mask": [encoded(pixels(k + 100, (6, 5, 1)))],
            "photo": [encoded(pixels(k, (8, 8, 3)), "JPEG", quality=90)],
            "label": np.array([k % 7]), "name": [b"n%d" % k], "id": np.array([k]),
            "vec": np.arange(3, dtype=np.float32) * k, "meta/tag": [b"t" * (k % 3)],
            "meta/w": np.array([k / 4], np.float32)}


def odd_images_example(split: str, k: int) -> dict:
    """PNGs the native decoder leaves to Pillow: palette, interlaced, 16-bit, another size."""
    from PIL import Image

    ex = columns_example(split, k)
    array = pixels(k, (6, 5, 3))
    if k % 4 == 1:
        buf = io.BytesIO()
        Image.fromarray(array).convert("P").save(buf, "PNG")
        ex["image"] = [buf.getvalue()]
    elif k % 4 == 2:
        ex["mask"] = [encoded(pixels(k, (6, 5, 1)).astype(np.uint16) * 200, "PNG")]
    elif k == 7:
        ex["image"] = [encoded(pixels(k, (4, 5, 3)))]  # not the feature's shape
    return ex


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("blocks")
    corrupted = write_dataset(root / "corrupted", {"train": LENGTHS}, features=COLUMNS,
                              example=columns_example)
    corrupt(corrupted / "toy-train.tfrecord-00003-of-00006", [2, 5])
    return {
        "columns": write_dataset(root / "columns", {"train": LENGTHS, "test": [3, 2]},
                                 features=COLUMNS, example=columns_example),
        "odd images": write_dataset(root / "odd", {"train": LENGTHS}, features=COLUMNS,
                                    example=odd_images_example),
        "every connector": write_dataset(root / "every", {"train": LENGTHS},
                                         features=EVERY_CONNECTOR, example=every_connector),
        "defaults": write_dataset(root / "defaults", {"train": LENGTHS}),
        "corrupted": corrupted,
    }


def reads(folder: Path, batchable: bool = True) -> dict[str, Callable[[], Any]]:
    """Ways to read a folder (each builds the pipeline anew); examples of several
    shapes are not batched."""
    def ds(split: str = "train", **kw: Any) -> Any:
        rc = kw.pop("rc", None) or tfds.ReadConfig()
        return tfds.builder_from_directory(folder).as_dataset(split, read_config=rc, **kw)

    def batch(d: Any, n: int) -> Any:
        return d.batch(n) if batchable else d

    shuffled = lambda **kw: tfds.ReadConfig(shuffle_seed=5, interleave_cycle_length=3,  # noqa
                                            interleave_block_length=2, add_tfds_id=True, **kw)
    return {
        "plain": lambda: ds(),
        "shuffled files, shuffle, batch": lambda: batch(ds(shuffle_files=True, rc=shuffled())
                                                        .shuffle(7, seed=3), 4),
        "batch_size": lambda: ds("train[2:]", batch_size=3 if batchable else None,
                                 rc=tfds.ReadConfig(interleave_cycle_length=2,
                                                    interleave_block_length=3)),
        "ids, one decode thread": lambda: ds(rc=tfds.ReadConfig(
            add_tfds_id=True, num_parallel_calls_for_decode=1, interleave_block_length=1)),
        "input context, three decode threads": lambda: ds(shuffle_files=True, rc=shuffled(
            input_context=tfds.InputContext(2, 1), num_parallel_calls_for_decode=3)),
        "repeated files": lambda: batch(ds(shuffle_files=True, rc=shuffled(
            repeat_filenames=True, assert_cardinality=False)).take(60), 5),
    }


BATCHABLE = ("columns", "defaults")


def snap(x: Any) -> Any:
    """Everything observable about an element: types, dict key order, dtypes, shapes, values."""
    if isinstance(x, dict):
        return ("dict", [(k, snap(v)) for k, v in x.items()])
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [snap(v) for v in x])
    if isinstance(x, bytes):
        return ("bytes", x)
    a = np.asarray(x)
    return (type(x).__name__, a.dtype.str, a.shape, a.tolist())


def trace(make: Callable[[], Any], limit: int = 200) -> tuple[list, list, list]:
    """Elements, the state before each, and the next epoch."""
    ds = make()
    it = iter(ds)
    elements, states = [], []
    while len(elements) < limit:
        states.append(json.dumps(it.get_state(), sort_keys=True))
        try:
            elements.append(snap(next(it)))
        except StopIteration:
            break
    return elements, states, [snap(x) for x in ds.take(limit)]


CASES = [(f, r) for f in ("columns", "odd images", "every connector", "defaults")
         for r in reads(Path("x"))] + [("corrupted", "shuffled files, shuffle, batch")]


@pytest.mark.parametrize("folder, read", CASES)
def test_block_execution_on_and_off_agree(folders: dict[str, Path], folder: str,
                                          read: str) -> None:
    make = reads(folders[folder], folder in BATCHABLE)[read]
    if folder == "corrupted":
        make = _with_skipping(folders[folder])
    with block_execution(False):
        off = trace(make)
    with block_execution(True):
        on = trace(make)
    assert len(off[0]) > 2
    assert on[0] == off[0], "elements differ"
    assert on[1] == off[1], "states differ"
    assert on[2] == off[2], "the next epoch differs"


def _with_skipping(folder: Path) -> Callable[[], Any]:
    rc = tfds.ReadConfig(max_errors=2, interleave_cycle_length=2, add_tfds_id=True, shuffle_seed=3)
    return lambda: tfds.builder_from_directory(folder).as_dataset(
        "train", shuffle_files=True, read_config=rc).batch(3)


@pytest.mark.parametrize("folder", ["columns", "odd images", "every connector"])
def test_blocks_of_random_sizes_read_what_the_element_path_reads(folders: dict[str, Path],
                                                                  folder: str) -> None:
    """The read op's iterator read with next_block(n) for random n: the same
    examples, and after every block the element path's state."""
    def make() -> Any:
        rc = tfds.ReadConfig(shuffle_seed=1, interleave_cycle_length=4,
                             interleave_block_length=3, add_tfds_id=True)
        return tfds.builder_from_directory(folders[folder]).as_dataset(
            "train", shuffle_files=True, read_config=rc)

    with block_execution(False):
        it = make()._make_iter(None)
        elements, states = [], [it.state()]
        for x in it:
            elements.append(snap(x))
            states.append(it.state())
        end_state = it.state()  # after StopIteration
    rng = random.Random(folder)
    with block_execution(True):
        it = make()._make_iter(None)
        got: list[Any] = []
        while True:
            n = rng.randint(1, 9)
            block = it.next_block(n)
            assert block.error is None
            got += [snap(x) for x in block.elements()]
            assert it.state() == (end_state if len(block) < n else states[len(got)])
            if len(block) < n:
                break
    assert got == elements


def test_fixed_features_are_read_in_columns_and_batched_by_slicing(
        folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """No example is decoded alone and no batch is padded element by element:
    the read gives column blocks and ``batch_size=`` slices them."""
    from minibatcher.tfdata import padding
    from minibatcher.tfds import reader

    def refuse(*args: Any) -> Any:
        raise AssertionError("an element path ran")

    builder = tfds.builder_from_directory(folders["columns"])
    it = builder.as_dataset("train", shuffle_files=True)._make_iter(None)
    assert type(it.next_block(12)).__name__ == "ExampleBlock"
    monkeypatch.setattr(reader.ExampleDecoding, "decode", refuse)
    monkeypatch.setattr(padding, "pad_batch", refuse)
    monkeypatch.setattr("minibatcher.tfdata.batching.pad_batch", refuse)
    batches = list(builder.as_dataset("train", batch_size=5))
    assert [len(b["id"]) for b in batches] == [5, 5, 5, 5, 2]
    assert batches[0]["image"].shape == (5, 6, 5, 3) and list(batches[0]) == sorted(batches[0])
    assert sorted(int(i) for b in batches for i in b["id"]) == list(range(22))


def test_images_are_decoded_on_the_decode_threads(folders: dict[str, Path],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from minibatcher.tfds import image_decode

    seen: dict[int | None, set[str]] = {}
    native = image_decode._native.png_decode_into

    def recording(*args: Any) -> Any:
        seen.setdefault(npc, set()).add(threading.current_thread().name)
        return native(*args)

    monkeypatch.setattr(image_decode._native, "png_decode_into", recording)
    monkeypatch.setattr(image_decode, "_PER_WORKER", 2)
    for npc in (1, 3):
        rc = tfds.ReadConfig(num_parallel_calls_for_decode=npc, interleave_cycle_length=1)
        b = tfds.builder_from_directory(folders["columns"])
        list(b.as_dataset("train", read_config=rc).batch(22))
    assert len(seen[1]) == 1 and len(seen[3]) >= 2


def test_a_bad_image_fails_at_its_example_on_both_paths(tmp_path: Path) -> None:
    def broken(split: str, k: int) -> dict:
        ex = columns_example(split, k)
        if k == 6:
            ex["mask"] = [ex["mask"][0][:40]]  # truncated PNG
        return ex

    folder = write_dataset(tmp_path, {"train": [4, 5]}, features=COLUMNS, example=broken)
    outcomes = []
    for blocks in (False, True):
        with block_execution(blocks):
            it = iter(tfds.builder_from_directory(folder).as_dataset(
                "train", read_config=tfds.ReadConfig(interleave_cycle_length=1,
                                                     assert_cardinality=False)))
            got = []
            with pytest.raises(Exception) as info:
                for ex in it:
                    got.append(int(ex["id"]))
            after = [int(ex["id"]) for ex in it]
            message = re.sub("0x[0-9a-f]+", "0x...", str(info.value))  # Pillow names its BytesIO
            outcomes.append((got, type(info.value), message, after, it.get_state()))
    assert outcomes[0] == outcomes[1]
    assert outcomes[1][0] == list(range(6)) and outcomes[1][3] == [7, 8]


def test_a_missing_shard_is_raised_after_the_examples_before_it(tmp_path: Path) -> None:
    folder = write_dataset(tmp_path, {"train": [3, 2, 4]})
    (folder / "toy-train.tfrecord-00001-of-00003").unlink()
    outcomes = []
    for blocks in (False, True):
        with block_execution(blocks):
            ds = tfds.builder_from_directory(folder).as_dataset(
                "train", read_config=tfds.ReadConfig(interleave_cycle_length=2,
                                                     interleave_block_length=2))
            it = ds._make_iter(None)
            block = it.next_block(10)
            outcomes.append(([int(x["id"]) for x in block.elements()], type(block.error),
                             it.state()))
    assert outcomes[0] == outcomes[1] and outcomes[1][1] is FileNotFoundError


def test_resumes_exactly_before_every_element_in_columns(folders: dict[str, Path]) -> None:
    make = reads(folders["columns"])["shuffled files, shuffle, batch"]
    assert assert_resumes_exactly(make) == 6
    assert assert_resumes_exactly(reads(folders["defaults"])["batch_size"]) == 7


def test_a_bad_record_in_a_block_is_the_element_path_s_error(folders: dict[str, Path]) -> None:
    def make() -> Any:
        return tfds.builder_from_directory(folders["corrupted"]).as_dataset(
            "train", read_config=tfds.ReadConfig(interleave_cycle_length=3))

    outcomes = []
    for blocks in (False, True):
        with block_execution(blocks):
            it = iter(make())
            got = []
            with pytest.raises(FormatError) as info:
                for ex in it:
                    got.append(int(ex["id"]))
            outcomes.append((got, str(info.value), it.get_state()))
    assert outcomes[0] == outcomes[1] and "record 2" in outcomes[1][1]
