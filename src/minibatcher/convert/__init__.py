"""Moving data between formats: every input as examples, every writer from examples.

Inputs (:mod:`.sources`, :mod:`.records`): CTF files, HTK features with MLF
labels, TFRecord files, text files, TFDS folders. Outputs: TFRecord files
(:func:`write_tfrecord`), TFDS folders (:func:`write_tfds`, which TFDS's
``builder_from_directory`` opens), Parquet (:func:`write_parquet`, for the
Hugging Face ``datasets`` world). ``minibatcher convert`` is the command line
of this package.

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "t.ctf").write_text("|x 1 2\\n|x 3 4\\n")
    >>> write_parquet(ctf_examples(d / "t.ctf"), d / "t.parquet")
    2
"""

from .examples import ExampleSource, check_name, dataset_name
from .parquet import write_parquet
from .records import tfrecord_examples
from .sources import ctf_examples, htk_examples, text_examples, tfds_examples
from .writers import write_tfds, write_tfrecord

__all__ = ["ExampleSource", "check_name", "ctf_examples", "dataset_name", "htk_examples",
           "text_examples", "tfds_examples", "tfrecord_examples", "write_parquet", "write_tfds",
           "write_tfrecord"]
