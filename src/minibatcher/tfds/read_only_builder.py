"""``tfds.core.read_only_builder``: builders over prepared folders.

Example:
    >>> from minibatcher.tfds.core import read_only_builder
    >>> read_only_builder.builder_from_files("absent", data_dir="/nonexistent")
    Traceback (most recent call last):
    ...
    minibatcher.tfds.load.DatasetNotFoundError: Could not find dataset files for: absent ...
"""

from .builder import ReadOnlyBuilder, builder_from_directories, builder_from_directory
from .load import builder as builder_from_files

__all__ = ["ReadOnlyBuilder", "builder_from_directories", "builder_from_directory",
           "builder_from_files"]
