"""The names of ``tf.io`` (TF 2.21) that ``tfdata.io`` does not provide: each exists, and
calling it (or using ``gfile``) raises ``NotSupportedError`` saying so and what to use.

Example:
    >>> from minibatcher.tfdata import io
    >>> io.serialize_tensor([1])
    Traceback (most recent call last):
    ...
    minibatcher.errors.NotSupportedError: tf.io.serialize_tensor is not provided by tfdata.io: TensorFlow's TensorProto format has no use without TensorFlow; save NumPy arrays (np.save) or write tf.train.Examples instead
"""

from __future__ import annotations

from typing import Any, Callable

from ...errors import NotSupportedError

_PROTO = "TensorFlow's TensorProto format has no use without TensorFlow"
_SPARSE = "sparse tensors are serialized as TensorProtos"
NOT_PROVIDED: dict[str, str] = {
    "decode_and_crop_jpeg": "decode_jpeg, then crop the array",
    "decode_base64": "use base64.urlsafe_b64decode",
    "encode_base64": "use base64.urlsafe_b64encode",
    "decode_compressed": "use zlib.decompress or gzip.decompress",
    "decode_csv": "use the csv module or numpy.loadtxt in a map function",
    "decode_json_example": "use json and encode the features yourself",
    "decode_jxl": "JPEG XL needs a decoder that Pillow does not have",
    "decode_webp": "decode it with Pillow (Image.open) in a map function",
    "decode_proto": "use the protobuf library",
    "encode_proto": "use the protobuf library",
    "encode_jpeg": "use Pillow (Image.fromarray(a).save(buf, 'JPEG'))",
    "encode_png": "use Pillow (Image.fromarray(a).save(buf, 'PNG'))",
    "extract_jpeg_shape": "use Pillow (Image.open(buf).size)",
    "is_jpeg": "test the first bytes: data[:3] == b'\\xff\\xd8\\xff'",
    "match_filenames_once": "use glob.glob (sorted)",
    "matching_files": "use glob.glob (sorted)",
    "read_file": "read the bytes with open(path, 'rb')",
    "write_file": "write the bytes with open(path, 'wb')",
    "write_graph": "there is no TensorFlow graph",
    "parse_tensor": f"{_PROTO}; load NumPy arrays (np.load) instead",
    "serialize_tensor": f"{_PROTO}; save NumPy arrays (np.save) or write tf.train.Examples "
                        "instead",
    "serialize_sparse": f"{_SPARSE}; keep the SparseTensor's indices, values and dense_shape",
    "serialize_many_sparse": f"{_SPARSE}; keep the SparseTensor's indices, values and "
                             "dense_shape",
    "deserialize_many_sparse": f"{_SPARSE}; build tfdata.SparseTensor from its parts",
}


def _message(name: str) -> str:
    return f"tf.io.{name} is not provided by tfdata.io: {NOT_PROVIDED[name]}"


def unsupported(name: str) -> Callable[..., Any]:
    """A stand-in for ``tf.io.<name>`` that raises NotSupportedError when called.

    Example:
        >>> read_file = unsupported("read_file")
        >>> read_file.__name__
        'read_file'
        >>> read_file("x.txt")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        minibatcher.errors.NotSupportedError: tf.io.read_file is not provided by tfdata.io: ...
    """
    def stand_in(*args: Any, **kwargs: Any) -> Any:
        raise NotSupportedError(_message(name))

    stand_in.__name__ = stand_in.__qualname__ = name
    stand_in.__doc__ = f"Not provided: {_message(name)}."
    return stand_in


class UnsupportedNamespace:
    """A stand-in for a ``tf.io`` sub-module (``gfile``): any attribute raises.

    Example:
        >>> UnsupportedNamespace("gfile", "use os and pathlib").exists("x")
        Traceback (most recent call last):
        ...
        minibatcher.errors.NotSupportedError: tf.io.gfile.exists is not provided by tfdata.io: use os and pathlib
    """

    def __init__(self, name: str, hint: str) -> None:
        self._name, self._hint = name, hint

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise NotSupportedError(f"tf.io.{self._name}.{attr} is not provided by tfdata.io: "
                                f"{self._hint}")


gfile = UnsupportedNamespace("gfile", "use os, shutil, glob and pathlib (open for GFile)")
STAND_INS = {name: unsupported(name) for name in NOT_PROVIDED}

__all__ = ["NOT_PROVIDED", "STAND_INS", "UnsupportedNamespace", "gfile", "unsupported"]
