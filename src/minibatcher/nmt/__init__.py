"""``minibatcher.nmt``: tensorflow/nmt's input pipeline (``vocab_utils``,
``iterator_utils``) batch for batch, without TensorFlow, fast and exactly resumable.

Port code by changing its imports: ``from minibatcher.nmt import iterator_utils,
vocab_utils``. See docs/nmt.md.

Example:
    >>> import pathlib, tempfile
    >>> from minibatcher.tfdata import TextLineDataset
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "v").write_text("<unk>\\n<s>\\n</s>\\nhallo\\nwelt\\nhello\\nworld\\n")
    >>> _ = (d / "de").write_text("hallo welt\\n"); _ = (d / "en").write_text("hello world\\n")
    >>> table, _ = vocab_utils.create_vocab_tables(str(d / "v"), str(d / "v"), True)
    >>> src, tgt = TextLineDataset(str(d / "de")), TextLineDataset(str(d / "en"))
    >>> it = iterator_utils.get_iterator(src, tgt, table, table, batch_size=2, sos="<s>",
    ...                                  eos="</s>", random_seed=1, num_buckets=5)
    >>> b = next(iter(it))
    >>> b.source.tolist(), b.target_input.tolist(), b.target_output.tolist()
    ([[3, 4]], [[1, 5, 6]], [[5, 6, 2]])
"""

from . import iterator_utils, vocab_utils
from .dataset import BatchedInput
from .iterator_utils import get_infer_iterator, get_iterator
from .vocab_utils import (
                          EOS,
                          SOS,
                          UNK,
                          UNK_ID,
                          ReverseVocabTable,
                          VocabTable,
                          check_vocab,
                          create_vocab_tables,
                          index_table_from_file,
                          index_to_string_table_from_file,
                          load_vocab,
)

__all__ = [
    "BatchedInput",
    "EOS",
    "ReverseVocabTable",
    "SOS",
    "UNK",
    "UNK_ID",
    "VocabTable",
    "check_vocab",
    "create_vocab_tables",
    "get_infer_iterator",
    "get_iterator",
    "index_table_from_file",
    "index_to_string_table_from_file",
    "iterator_utils",
    "load_vocab",
    "vocab_utils",
]
