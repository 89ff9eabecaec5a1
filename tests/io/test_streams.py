"""StreamDef / StreamDefs / StreamInformation with CNTK 2.7's signatures."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import numpy as np
import pytest

import minibatcher.io as io
from minibatcher import ConfigError, NotSupportedError


def test_streamdef_keeps_cntk_signature_and_order():
    names = list(inspect.signature(io.StreamDef).parameters)
    assert names == ["field", "shape", "is_sparse", "transforms", "context", "scp", "mlf",
                     "broadcast", "defines_mb_size"]
    sd = io.StreamDef("F", 3, True, None, (2, 3), "a.scp", None, False, True)
    assert (sd.field, sd.stream_alias, sd.dim, sd.is_sparse, sd.context, sd.scp, sd.broadcast,
            sd.defines_mb_size) == ("F", "F", 3, True, (2, 3), ("a.scp",), False, True)
    default = io.StreamDef()
    assert (default.field, default.shape, default.is_sparse, default.transforms, default.context,
            default.scp, default.mlf, default.broadcast, default.defines_mb_size) == (
        None, None, False, None, None, None, None, None, False)


def test_shapes_int_tuple_list_and_unspecified():
    assert io.StreamDef(shape=5).sample_shape == (5,) and io.StreamDef(shape=5).dim == 5
    assert io.StreamDef(shape=(2, 3)).sample_shape == (2, 3) and io.StreamDef(shape=[2, 3]).dim == 6
    assert io.StreamDef(shape=np.int64(7)).shape == 7
    # CNTK's default is None; CTF reads an unspecified shape as one value per sample
    assert io.StreamDef().shape is None and io.StreamDef().dim == 1
    for bad in (0, -1, (), (2, 0), 2.5, "3", True, (2, None)):
        with pytest.raises(ConfigError, match="shape should be a positive int"):
            io.StreamDef(shape=bad)


def test_htk_fields_are_validated_and_normalized():
    sd = io.StreamDef(shape=33, context=[5, 5], scp=[Path("a.scp"), "b.scp"])
    assert sd.context == (5, 5) and sd.scp == ("a.scp", "b.scp")
    labels = io.StreamDef(shape=132, mlf="labels.mlf")
    assert labels.mlf == ("labels.mlf",) and labels.is_sparse  # CNTK: MLF labels are sparse
    hash(sd), hash(labels)  # frozen and hashable
    for kwargs, message in (({"context": (1,)}, "context should be a pair"),
                            ({"context": (-1, 2)}, "context should be a pair"),
                            ({"scp": []}, "scp should be a path or a non-empty list"),
                            ({"mlf": [3]}, "mlf should be a path or a non-empty list"),
                            ({"scp": ""}, "scp should be a path"),
                            ({"broadcast": "yes"}, "broadcast should be True or False or None"),
                            ({"is_sparse": 1}, "is_sparse should be True or False"),
                            ({"defines_mb_size": None}, "defines_mb_size should be True or False"),
                            ({"field": ""}, "field should be a non-empty string")):
        with pytest.raises(ConfigError, match=message):
            io.StreamDef(shape=3, **kwargs)


def test_transforms_need_image_support():
    assert io.StreamDef(shape=3, transforms=[]).transforms == ()
    with pytest.raises(NotSupportedError, match="no image support"):
        io.StreamDef(field="image", transforms=[object()])
    with pytest.raises(ConfigError, match="transforms should be a list"):
        io.StreamDef(transforms="crop")


def test_replace_revalidates():
    sd = io.StreamDef(field="x", shape=(2, 2), scp="a.scp")
    assert dataclasses.replace(sd, defines_mb_size=True).scp == ("a.scp",)
    with pytest.raises(ConfigError):
        dataclasses.replace(sd, shape=0)


def test_streamdefs_attribute_access():
    defs = io.StreamDefs(features=io.StreamDef(field="F", shape=3))
    assert defs.features is defs["features"]
    with pytest.raises(AttributeError, match="no stream named 'labels'; streams: features"):
        defs.labels
    with pytest.raises(ConfigError, match="StreamDefs values should be StreamDef objects"):
        io.StreamDefs(x=3)


def test_streaminformation_cntk_and_native_signatures():
    cntk = io.StreamInformation("features", 0, "sparse", np.float32, (100,))
    keywords = io.StreamInformation(name="features", stream_id=0, storage_format="sparse",
                                    dtype=np.float32, shape=(100,))
    native = io.StreamInformation("features", 0, 100, True, np.float32)
    assert cntk == keywords == native and hash(cntk) == hash(native)
    assert (cntk.m_name, cntk.m_id, cntk.sample_shape, cntk.storage_format) == (
        "features", 0, (100,), "sparse")  # CNTK gives back the name it was given
    image = io.StreamInformation("f", 1, "dense", "float64", (2, 3))
    assert (image.dim, image.shape, image.dtype) == (6, (2, 3), np.dtype("float64"))
    for args, message in ((("x", 0, "csc?", np.float32, (1,)), "storage_format should be"),
                          (("x", 0, "dense", np.int32, (1,)), "dtype should be float32"),
                          (("x", 0, "dense", np.float32, (0,)), "shape should be a positive"),
                          (("", 0, 3, False), "name should be a non-empty string")):
        with pytest.raises(ConfigError, match=message):
            io.StreamInformation(*args)
    with pytest.raises(ConfigError, match="dim should be a positive int equal to the product"):
        io.StreamInformation("x", 0, 5, False, sample_shape=(2, 2))


def test_trace_level_enum_is_accepted(write):
    path = write("|x 1\n")
    streams = io.StreamDefs(x=io.StreamDef(shape=1))
    source = io.MinibatchSource(io.CTFDeserializer(str(path), streams),
                                trace_level=io.TraceLevel.Info)
    assert source.options.trace_level == 2 and io.TraceLevel.Error == 0
