"""Features decoded per features.json (every supported connector), and bad
datasets: each a clear error naming the file."""

from __future__ import annotations

import io
import json
import zlib
from pathlib import Path

import numpy as np
import pytest

from minibatcher import tfds
from minibatcher.errors import FormatError, NotSupportedError
from minibatcher.tfds.testing import features_dict, tensor_feature, write_dataset

from .helpers import make

CLS = "tensorflow_datasets.core.features."


def png(array: np.ndarray) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(array.squeeze(-1) if array.shape[-1] == 1 else array).save(buf, "PNG")
    return buf.getvalue()


def image(k: int, channels: int = 3) -> np.ndarray:
    return (np.arange(2 * 3 * channels, dtype=np.uint8).reshape(2, 3, channels) + k * 10)


FEATURES = features_dict({
    "image": {"pythonClassName": CLS + "image_feature.Image", "image": {
        "shape": {"dimensions": ["-1", "-1", "3"]}, "dtype": "uint8", "encodingFormat": "png"}},
    "mask": {"pythonClassName": CLS + "image_feature.Image", "image": {
        "shape": {"dimensions": ["2", "3", "1"]}, "dtype": "uint8", "encodingFormat": "png"}},
    "text": {"pythonClassName": CLS + "text_feature.Text", "text": {}},
    "label": {"pythonClassName": CLS + "class_label_feature.ClassLabel",
              "classLabel": {"numClasses": "5"}},
    "matrix": tensor_feature("float32", [2, 3]),
    "flag": tensor_feature("bool", [], scalar=True),
    "wide": tensor_feature("float64", [], scalar=True),
    "raw": {"pythonClassName": CLS + "tensor_feature.Tensor", "tensor": {
        "shape": {"dimensions": ["2"]}, "dtype": "int32", "encoding": "zlib"}},
    "meta": features_dict({"source": {"pythonClassName": CLS + "text_feature.Text", "text": {}},
                           "score": tensor_feature("float32", [], scalar=True)}),
    "steps": {"pythonClassName": CLS + "sequence_feature.Sequence", "sequence": {
        "feature": features_dict({"action": tensor_feature("int64", [2]),
                                  "reward": tensor_feature("float32", [], scalar=True)}),
        "length": "-1"}},
    "tokens": {"pythonClassName": CLS + "sequence_feature.Sequence", "sequence": {
        "feature": {"pythonClassName": CLS + "sequence_feature.Sequence", "sequence": {
            "feature": tensor_feature("int64", [], scalar=True), "length": "-1"}},
        "length": "-1"}},
})


def example(split: str, k: int) -> dict:
    return {
        "image": [png(image(k))], "mask": [png(image(k, 1))], "text": ["héllo %d" % k],
        "label": np.array([k % 5]), "matrix": np.arange(6, dtype=np.float32) + k,
        "flag": np.array([k % 2]), "wide": np.array([0.5], np.float32),
        "raw": [zlib.compress(np.array([k, -k], np.int32).tobytes())],
        "meta/source": [b"src"], "meta/score": np.array([k / 2], np.float32),
        "steps/action": np.arange(2 * k), "steps/reward": np.ones(k, np.float32),
        # nested sequence [[k], [], [1, 2]] as TFDS stores it
        "tokens/ragged_flat_values": np.array([k, 1, 2]),
        "tokens/ragged_row_lengths_0": np.array([1, 0, 2]),
    }


def test_every_connector_decodes(tmp_path: Path) -> None:
    b = make(tmp_path, {"train": [2, 1]}, features=FEATURES, example=example)
    exs = list(b.as_dataset("train", read_config=tfds.ReadConfig(interleave_cycle_length=1)))
    assert len(exs) == 3
    ex = exs[2]
    assert ex["image"].dtype == np.uint8 and ex["image"].tolist() == image(2).tolist()
    assert ex["mask"].shape == (2, 3, 1) and ex["mask"].tolist() == image(2, 1).tolist()
    assert ex["text"] == "héllo 2".encode()
    assert ex["label"] == 2 and ex["label"].dtype == np.int64
    assert ex["matrix"].shape == (2, 3) and ex["matrix"][1, 2] == 7.0
    assert ex["flag"].dtype == np.bool_ and not ex["flag"]
    assert ex["wide"].dtype == np.float64
    assert ex["raw"].tolist() == [2, -2] and ex["raw"].dtype == np.int32
    assert ex["meta"]["source"] == b"src" and ex["meta"]["score"] == 1.0
    assert ex["steps"]["action"].shape == (2, 2) and ex["steps"]["reward"].shape == (2,)
    assert exs[0]["steps"]["action"].shape == (0, 2)  # an empty sequence
    assert [t.tolist() for t in ex["tokens"]] == [[2], [], [1, 2]]
    raw = next(iter(b.as_dataset("train", decoders={"image": tfds.decode.SkipDecoding()})))
    assert raw["image"] == png(image(0)) and raw["mask"].shape == (2, 3, 1)


def test_bad_values_name_the_record(tmp_path: Path) -> None:
    def short(split: str, k: int) -> dict:
        return {"id": np.array([k] * (2 if k == 3 else 1)), "label": np.array([1])}

    b = make(tmp_path, {"train": [5]}, example=short)
    it = iter(b.as_dataset("train"))
    with pytest.raises(FormatError, match=r"toy-train.tfrecord-00000-of-00001 record 3: feature "
                                          r"'id' holds 2 values, which do not fit its shape \(\)"):
        list(it)

    def missing(split: str, k: int) -> dict:
        return {"label": np.array([1])}

    b = make(tmp_path / "m", {"train": [2]}, example=missing)
    with pytest.raises(FormatError, match="record 0: feature 'id' is required"):
        list(b.as_dataset("train"))

    def wrong_kind(split: str, k: int) -> dict:
        return {"id": np.array([1.5], np.float32), "label": np.array([1])}

    b = make(tmp_path / "w", {"train": [2]}, example=wrong_kind)
    with pytest.raises(FormatError, match="feature 'id' holds a float_list, but a int64_list"):
        list(b.as_dataset("train"))


def test_shard_shorter_than_shard_lengths(tmp_path: Path) -> None:
    d = write_dataset(tmp_path, {"train": [3, 4]})
    info = json.loads((d / "dataset_info.json").read_text())
    info["splits"][0]["shardLengths"] = ["3", "5"]
    (d / "dataset_info.json").write_text(json.dumps(info))
    ds = tfds.builder_from_directory(d).as_dataset("train")
    message = (r"toy-train.tfrecord-00001-of-00002: the shard holds 4 records, but "
               r"dataset_info.json \(shardLengths\) says 5")
    with pytest.raises(FormatError, match=message):
        list(ds)


def test_missing_shard(tmp_path: Path) -> None:
    d = write_dataset(tmp_path, {"train": [3, 4]})
    (d / "toy-train.tfrecord-00001-of-00002").unlink()
    b = tfds.builder_from_directory(d)
    assert list(b.as_dataset("train[:3]", read_config=tfds.ReadConfig())) != []
    with pytest.raises(FileNotFoundError, match="shard file missing"):
        list(b.as_dataset("train"))


def test_corrupted_shard_names_file_and_offset(tmp_path: Path) -> None:
    d = write_dataset(tmp_path, {"train": [4]})
    path = d / "toy-train.tfrecord-00000-of-00001"
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF  # the last record's data CRC
    path.write_bytes(bytes(data))
    size = len(data)
    with pytest.raises(FormatError, match=r"toy-train.tfrecord-00000-of-00001: corrupted record 3 "
                                          r"at byte \d+: its data CRC"):
        list(tfds.builder_from_directory(d).as_dataset("train"))
    assert size > 0


@pytest.mark.parametrize("text, message", [
    ("{", r"dataset_info.json:1:2 \(byte 1\): malformed JSON"),
    ("[]", r"should be a JSON object \(TFDS's DatasetInfo\), but it is an array"),
    ('{"version": "1.0.0"}', r"expected the dataset's 'name' .*, but it has no 'name' \(its keys: "
                             r"'version'\)"),
    ('{"name": 7}', r"'name' should be a string \(the dataset's name\), but got name=7"),
    ('{"name": "x", "splits": [{"name": "train"}]}', "has no 'shardLengths'"),
    ('{"name": "x", "splits": [{"name": "train", "shardLengths": ["a"]}]}',
     "'shardLengths' should be a list of integers"),
    ('{"name": "x", "splits": [{"name": "t", "shardLengths": []}, '
     '{"name": "t", "shardLengths": []}]}',
     "listed twice"),
])
def test_malformed_dataset_info(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "dataset_info.json").write_text(text)
    with pytest.raises(FormatError, match=message):
        tfds.builder_from_directory(tmp_path)


def test_unsupported_feature_and_format(tmp_path: Path) -> None:
    feats = features_dict({"audio": {"pythonClassName": CLS + "audio_feature.Audio",
                                     "audio": {}}})
    with pytest.raises(FormatError, match=r"feature audio has the unsupported type "
                                          r"'tensorflow_datasets.core.features.audio_feature.Audio'"):
        make(tmp_path, {"train": [1]}, features=feats)
    b = make(tmp_path / "ar", {"train": [1]}, extra_info={"fileFormat": "array_record"})
    with pytest.raises(NotSupportedError, match="file format 'array_record' is not supported"):
        b.as_dataset("train")
    with pytest.raises(NotSupportedError, match="file format 'riegeli' is not supported"):
        make(tmp_path / "ok", {"train": [1]}).as_dataset(
            "train", read_config=tfds.ReadConfig(file_format="riegeli"))
    with pytest.raises(FileNotFoundError, match="not a TFDS dataset directory"):
        tfds.builder_from_directory(tmp_path / "nothing")


def test_builder_reads_only_json_at_open(tmp_path: Path) -> None:
    d = write_dataset(tmp_path, {"train": [2]})
    for shard in d.glob("*.tfrecord-*"):
        shard.unlink()
    b = tfds.builder_from_directory(d)  # no shard is touched
    assert b.info.splits["train"].num_examples == 2
    assert b.info.splits["train[:1]"].file_instructions[0].take == 1


def jpeg(array: np.ndarray, quality: int = 95) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(array.squeeze(-1) if array.shape[-1] == 1 else array).save(
        buf, "JPEG", quality=quality)
    return buf.getvalue()


def smooth(k: int, h: int = 16, w: int = 24, channels: int = 3) -> np.ndarray:
    """A smooth picture (JPEG keeps it within a few levels)."""
    y, x = np.mgrid[0:h, 0:w]
    planes = [40 + 3 * x + 2 * y + 20 * c + 5 * k for c in range(channels)]
    return np.stack(planes, axis=-1).astype(np.uint8)


def test_jpeg_images_decode_as_pillow_decodes_them(tmp_path: Path) -> None:
    from PIL import Image

    def image_spec(shape: list[str]) -> dict:
        return {"pythonClassName": CLS + "image_feature.Image", "image": {
            "shape": {"dimensions": shape}, "dtype": "uint8", "encodingFormat": "jpeg"}}

    features = features_dict({
        "photo": image_spec(["-1", "-1", "3"]), "gray": image_spec(["16", "24", "1"]),
        "gray_as_rgb": image_spec(["-1", "-1", "3"]),
        "frames": {"pythonClassName": CLS + "sequence_feature.Sequence", "sequence": {
            "feature": image_spec(["16", "24", "3"]), "length": "-1"}}})
    encoded = {k: {"photo": jpeg(smooth(k)), "gray": jpeg(smooth(k, channels=1)),
                   "gray_as_rgb": jpeg(smooth(k + 5, channels=1)),
                   "frames": [jpeg(smooth(k + i)) for i in range(k + 1)]} for k in range(3)}
    b = make(tmp_path, {"train": [3]}, features=features,
             example=lambda split, k: {key: v if isinstance(v, list) else [v]
                                       for key, v in encoded[k].items()})
    exs = list(b.as_dataset("train"))

    def pillow(data: bytes, mode: str) -> np.ndarray:
        with Image.open(io.BytesIO(data)) as img:
            a = np.asarray(img.convert(mode))
        return a[:, :, None] if a.ndim == 2 else a

    for k, ex in enumerate(exs):
        assert ex["photo"].shape == (16, 24, 3) and ex["photo"].dtype == np.uint8
        assert np.array_equal(ex["photo"], pillow(encoded[k]["photo"], "RGB"))  # exact
        assert np.abs(ex["photo"].astype(int) - smooth(k)).max() <= 8  # lossy, close
        assert np.array_equal(ex["gray"], pillow(encoded[k]["gray"], "L"))
        assert ex["gray"].shape == (16, 24, 1)
        rgb = ex["gray_as_rgb"]  # a grayscale JPEG in a 3-channel feature: replicated
        assert rgb.shape == (16, 24, 3) and np.array_equal(rgb[..., 0], rgb[..., 2])
        assert np.array_equal(rgb[..., :1], pillow(encoded[k]["gray_as_rgb"], "L"))
        assert ex["frames"].shape == (k + 1, 16, 24, 3)
        assert all(np.array_equal(f, pillow(e, "RGB"))
                   for f, e in zip(ex["frames"], encoded[k]["frames"]))
    raw = next(iter(b.as_dataset("train", decoders={"photo": tfds.decode.SkipDecoding()})))
    assert raw["photo"] == encoded[0]["photo"] and raw["photo"][:2] == b"\xff\xd8"
