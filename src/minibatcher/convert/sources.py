"""Example sources of CTF files, HTK features with MLF labels, text files and
TFDS folders (TFRecord files: :mod:`.records`); layouts in :mod:`.examples`.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
    >>> _ = p.write_text("0 |x 1 2 |y 3:1\\n0 |x 3 4\\n7 |x 5 6 |y 0:2\\n")
    >>> src = ctf_examples(p)
    >>> sorted(src.features.features), src.count
    (['sequence_id', 'x', 'y'], 2)
    >>> ex = list(src)[1]
    >>> ex["sequence_id"], ex["x"].tolist(), ex["y"]["indices"].tolist(), ex["y"]["lengths"].tolist()
    (7, [[5.0, 6.0]], [0], [1])
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from ..streams import StreamDef
from ..tfds.connectors import ClassLabel, FeaturesDict, Scalar
from ..tfds.connectors import Sequence as SequenceFeature
from ..tfds.connectors import Tensor, Text, from_json
from ..formats.small_files import decode_text, read_json, read_small_file
from .examples import ExampleSource, dataset_name


def _ctf_features(streams: list[Any]) -> FeaturesDict:
    features: dict[str, Any] = {"sequence_id": Scalar("int64")}
    for sd in streams:
        name = sd.name
        if sd.is_sparse:
            features[name] = FeaturesDict({"indices": Tensor((None,), "int64"),
                                           "values": Tensor((None,), "float32"),
                                           "lengths": Tensor((None,), "int64")})
        else:
            features[name] = Tensor((None, sd.dim), "float32")
    return FeaturesDict(features)


def _ctf_sequence(chunk: Any, i: int, names: list[str], key: int) -> dict[str, Any]:
    ex: dict[str, Any] = {"sequence_id": key}
    for name, s in zip(names, chunk.streams):
        sl = s.sequence_slice(i)
        if s.is_sparse:
            lo, hi = int(s.indptr[sl.start]), int(s.indptr[sl.stop])
            ex[name] = {"indices": np.asarray(s.indices[lo:hi], np.int64),
                        "values": np.asarray(s.values[lo:hi], np.float32),
                        "lengths": np.diff(s.indptr[sl.start:sl.stop + 1]).astype(np.int64)}
        else:
            ex[name] = np.asarray(s.values[sl], np.float32)
    return ex


def ctf_examples(path: str | os.PathLike, streams: Mapping[str, StreamDef] | None = None,
                 **options: Any) -> ExampleSource:
    """One example per CTF sequence (``streams``: default the surveyed ones;
    ``options`` go to :class:`~minibatcher.CTFDeserializer`)."""
    from ..formats.ctf import CTFDeserializer

    reader = CTFDeserializer(path, streams, **options)
    table, names = reader.table(), [s.name for s in reader.streams]

    def examples() -> Iterator[dict[str, Any]]:
        keys = table.keys
        for c in range(table.num_chunks):
            chunk, first = reader.load_chunk(c), int(table.chunk_starts[c])
            for i in range(chunk.num_sequences):
                yield _ctf_sequence(chunk, i, names, int(keys[first + i]))

    return ExampleSource(dataset_name(os.fspath(path)), _ctf_features(reader.streams), examples,
                         table.num_sequences, "sequences")


def htk_examples(scp: str | os.PathLike, mlf: Sequence[str | os.PathLike] = (), *,
                 labels: str | os.PathLike | None = None, label_dim: int | None = None,
                 context: tuple[int, int] | None = None, **options: Any) -> ExampleSource:
    """One example per utterance of an SCP list: its name, its frames (with
    ``context`` neighbours) and, with ``mlf``, a class per frame (``labels``:
    the state list, which names the classes; else ``label_dim`` classes)."""
    from ..engine.source import MinibatchSource
    from ..formats.htk import HTKFeatureDeserializer, HTKMLFDeserializer, read_state_list

    features = HTKFeatureDeserializer({"features": StreamDef(scp=os.fspath(scp),
                                                             context=context)}, **options)
    parts: list[Any] = [features]
    spec: dict[str, Any] = {"name": Text(), "features": Tensor((None, features.streams[0].dim))}
    if mlf:
        states = read_state_list(labels) if labels is not None else None
        dim = len(states) if states else label_dim
        parts.append(HTKMLFDeserializer(labels, {"labels": StreamDef(
            mlf=[os.fspath(m) for m in mlf], shape=dim)}, max_errors=options.get("max_errors", 0)))
        spec["labels"] = SequenceFeature(ClassLabel(num_classes=dim, names=states))
    names = {int(k): features.key_name(i) for i, k in enumerate(features.table().keys.tolist())}
    source = MinibatchSource(parts, randomize=False, max_sweeps=1)

    def examples() -> Iterator[dict[str, Any]]:
        source.restore_from_checkpoint(start_state)
        while mb := source.next_minibatch(1 << 20):
            x = mb["features"]
            for j, (key, a, b) in enumerate(zip(x.keys.tolist(), x.offsets[:-1].tolist(),
                                                x.offsets[1:].tolist())):
                ex = {"name": names[int(key)], "features": np.asarray(x.values[a:b], np.float32)}
                if mlf:
                    ex["labels"] = np.asarray(mb["labels"].values.indices[a:b], np.int64)
                yield ex

    start_state = source.get_checkpoint_state()
    count = source.deserializer.table().num_sequences
    return ExampleSource(dataset_name(os.fspath(scp)), FeaturesDict(spec), examples, count,
                         "utterances")


def text_examples(path: str | os.PathLike) -> ExampleSource:
    """One example per line (``TextLineDataset``'s line rules)."""
    from ..tfdata import TextLineDataset

    lines = TextLineDataset(os.fspath(path))
    count = sum(len(source) for source in lines.sources)
    return ExampleSource(dataset_name(os.fspath(path)), FeaturesDict({"text": Text()}),
                         lambda: ({"text": bytes(line)} for line in lines), count, "lines")


def class_names(folder: str | os.PathLike, name: str) -> list[str] | None:
    """The class names TFDS wrote for ClassLabel feature ``name`` (nested names joined with
    '-', as TFDS does) in ``<folder>/<name>.labels.txt``; None when there is no such file
    (one that is there is read by the one file rule: a FIFO or a directory is a
    ``NotARegularFileError`` naming it, never skipped).

    Example:
        >>> import tempfile
        >>> d = Path(tempfile.mkdtemp()); _ = (d / "labels.labels.txt").write_text("sil\\nah\\n")
        >>> class_names(d, "labels"), class_names(d, "other")
        (['sil', 'ah'], None)
    """
    path = Path(folder) / f"{name}.labels.txt"
    if not os.path.lexists(path):
        return None
    text = decode_text(read_small_file(path, "label names file"), path, "label names file")
    return [line for line in text.splitlines() if line]


def _label_names(feature: Any, folder: Path, name: str = "") -> Any:
    """``feature`` with the class names of the folder's ``<name>.labels.txt`` files."""
    if isinstance(feature, FeaturesDict):
        return FeaturesDict({k: _label_names(v, folder, f"{name}-{k}" if name else k)
                             for k, v in feature.features.items()})
    if isinstance(feature, SequenceFeature):
        return SequenceFeature(_label_names(feature.feature, folder, name), feature.length)
    names = class_names(folder, name) if isinstance(feature, ClassLabel) else None
    return ClassLabel(names=names) if names is not None else feature


def tfds_examples(folder: str | os.PathLike, split: str, *, verify_crc: bool = True,
                  max_errors: int = 0) -> ExampleSource:
    """The examples of ``split`` of a TFDS folder, in its default read order (``verify_crc``
    and ``max_errors`` as :class:`~minibatcher.tfds.ReadConfig`)."""
    from ..tfds import ReadConfig, builder_from_directory

    builder = builder_from_directory(folder)
    spec = read_json(Path(folder, "features.json"), "features.json")
    dataset = builder.as_dataset(split, read_config=ReadConfig(verify_crc=verify_crc,
                                                               max_errors=max_errors))
    count = builder.info.splits[split].num_examples
    features = _label_names(from_json(spec), Path(folder))
    return ExampleSource(builder.name, features, lambda: iter(dataset), count, "examples")


__all__ = ["class_names", "ctf_examples", "htk_examples", "tfds_examples", "text_examples"]
