"""tf.train.Example message classes built at run time with the protobuf
library (no generated code, no TensorFlow): the independent oracle of the
wire-format tests."""

from __future__ import annotations

from typing import Any


def example_class() -> Any:
    """The ``Example`` message class (needs the protobuf package; the benchmark uses it too)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    f = descriptor_pb2.FileDescriptorProto(name="mb_example_test.proto", package="mbtest",
                                           syntax="proto3")
    T = descriptor_pb2.FieldDescriptorProto

    def msg(name: str, fields: list[tuple[str, int, int, int, str]], oneof: bool = False) -> Any:
        m = f.message_type.add(name=name)
        if oneof:
            m.oneof_decl.add(name="kind")
        for fname, number, ftype, label, type_name in fields:
            fd = m.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                fd.type_name = type_name
            if oneof:
                fd.oneof_index = 0
        return m

    rep, opt = T.LABEL_REPEATED, T.LABEL_OPTIONAL
    msg("BytesList", [("value", 1, T.TYPE_BYTES, rep, "")])
    msg("FloatList", [("value", 1, T.TYPE_FLOAT, rep, "")])
    msg("Int64List", [("value", 1, T.TYPE_INT64, rep, "")])
    msg("Feature", [("bytes_list", 1, T.TYPE_MESSAGE, opt, ".mbtest.BytesList"),
                    ("float_list", 2, T.TYPE_MESSAGE, opt, ".mbtest.FloatList"),
                    ("int64_list", 3, T.TYPE_MESSAGE, opt, ".mbtest.Int64List")], oneof=True)
    entry_type = ".mbtest.Features.FeatureEntry"
    features = msg("Features", [("feature", 1, T.TYPE_MESSAGE, rep, entry_type)])
    entry = features.nested_type.add(name="FeatureEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=T.TYPE_STRING, label=opt)
    entry.field.add(name="value", number=2, type=T.TYPE_MESSAGE, label=opt,
                    type_name=".mbtest.Feature")
    msg("Example", [("features", 1, T.TYPE_MESSAGE, opt, ".mbtest.Features")])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("mbtest.Example"))


def to_proto(cls: Any, features: dict[str, Any]) -> bytes:
    """Serializes ``features`` (name -> (kind, values)) deterministically."""
    ex = cls()
    for name, (kind, values) in features.items():
        getattr(ex.features.feature[name], kind).value.extend(values)
    return ex.SerializeToString(deterministic=True)
