"""minibatcher.config against CNTK's own reader-test config files (shipped in tests/data)."""

from __future__ import annotations

from pathlib import Path

import pytest

from minibatcher.config import (
    ConfigArray,
    ConfigNode,
    find_section,
    load_config,
    parse_config,
    render_config,
    to_dict,
)

CONFIG_DIR = (
    Path(__file__).resolve().parents[1]
    / "data"
    / "cntk-ctf"
    / "Tests"
    / "UnitTests"
    / "ReaderTests"
    / "Config"
)
CTF_DIR = CONFIG_DIR / "CNTKTextFormatReader"

THREE_FILES = ["dense.cntk", "edge_cases.cntk", "sparse.cntk"]
OLDER_FILES = ["CNTKTextFormatReaderMNIST_Config.cntk", "CNTKTextFormatReaderSimple_Config.cntk"]


def _sections(root: ConfigNode) -> list[ConfigNode]:
    return [value for _, value in root.items() if isinstance(value, ConfigNode)]


@pytest.mark.parametrize("name", THREE_FILES)
def test_every_section_parses_and_resolves(name: str) -> None:
    root = load_config(CTF_DIR / name)
    sections = _sections(root)
    assert len(sections) >= 4
    for section in sections:
        # Reading every value substitutes every $var$: none may be undefined.
        plain = to_dict(section)
        reader = section["reader"]
        assert isinstance(reader, ConfigNode)
        assert reader.has("input") or reader.has("deserializers"), section.path
        assert section.get_str("precision") in {"float", "double"}
        assert plain["reader"]


@pytest.mark.parametrize("name", THREE_FILES + [f"../{n}" for n in OLDER_FILES])
def test_render_round_trips_real_files(name: str) -> None:
    root = load_config(CTF_DIR / name)
    again = parse_config(render_config(root))
    assert to_dict(again, resolve=False) == to_dict(root, resolve=False)
    assert to_dict(again) == to_dict(root)


def test_source_is_the_file_path() -> None:
    root = load_config(CTF_DIR / "dense.cntk")
    mnist = find_section(root, "MNIST")
    assert mnist.source.endswith("dense.cntk")
    assert mnist.line > 1
    assert str(mnist.location_of("precision")).startswith(f"{mnist.source}:{mnist.line + 1}:")


def test_dense_mnist_defines_mb_size_default_and_override() -> None:
    path = CTF_DIR / "dense.cntk"
    root = load_config(path)
    labels = root["MNIST"]["reader"]["input"]["labels"]  # type: ignore[index,call-overload]
    assert isinstance(labels, ConfigNode)
    assert labels.path == "MNIST.reader.input.labels"
    assert labels["definesMbSize"] == "false"
    assert labels.get_bool("definesMbSize") is False

    overridden = load_config(path, overrides={"defMBSize": "true"})
    labels = overridden.get_node("MNIST").get_node("reader").get_node("input").get_node("labels")
    assert isinstance(labels, ConfigNode)
    assert labels["definesMbSize"] == "true"
    assert labels.get_bool("DEFINESMBSIZE") is True


def test_dense_precision_is_inherited_by_reader() -> None:
    mnist = find_section(load_config(CTF_DIR / "dense.cntk"), "mnist")
    reader = mnist.get_node("reader")
    assert reader.parent is mnist
    assert not reader.has("precision")
    assert reader.has("precision", inherit=True)
    assert reader.get("precision") == "double"
    assert reader.get("precision", "none", inherit=False) == "none"
    assert reader.get_node("input").get("precision") == "double"
    # deviceId is set at the very top and inherited through every level.
    assert reader.get_node("input").get_int("deviceId") == -1


def test_dense_composite_deserializers_do_not_inherit() -> None:
    section = find_section(load_config(CTF_DIR / "dense.cntk"), "5x10_and_5x5_jagged_composite")
    reader = section.get_node("reader")
    assert reader.get_bool("randomize") is True
    deserializers = reader.get_array("deserializers")
    assert isinstance(deserializers, ConfigArray)
    assert len(deserializers) == 2
    assert all(isinstance(d, ConfigNode) for d in deserializers)
    first, second = deserializers
    assert isinstance(first, ConfigNode) and isinstance(second, ConfigNode)
    assert [first["file"], second["file"]] == ["5x10_jagged.txt", "5x5_jagged.txt"]
    assert first.path == "5x10_and_5x5_jagged_composite.reader.deserializers[0]"
    for element in (first, second):
        assert element.parent is None
        assert element.get("randomize") is None
        assert not element.has("randomize", inherit=True)
        assert element.get("precision", "unset") == "unset"
        assert element.get_str("type") == "CNTKTextFormatDeserializer"
    assert first.get_node("input").get_node("features1").get_int("dim") == 10
    assert second.get_node("input").get_node("features2").get("alias") == "F1"
    # A block nested inside an element inherits from the element (a normal block).
    assert second.get_node("input").get("module") == "CNTKTextFormatReader"


def test_edge_cases_variable_lookup_is_case_insensitive() -> None:
    root = load_config(CTF_DIR / "edge_cases.cntk")
    assert root.keys()[0] == "defMbSize"
    features = (
        find_section(root, "space_separated").get_node("reader").get_node("input")["features1"]
    )
    assert isinstance(features, ConfigNode)
    assert features.raw_items()[0][1] == "$defMBSize$"
    assert features["definesMbSize"] == "false"
    assert features.get_int("dim") == 15  # "dim = 15 " has trailing blanks
    flipped = load_config(CTF_DIR / "edge_cases.cntk", overrides={"DEFMBSIZE": "true"})
    features = find_section(flipped, "blank_lines").get_node("reader").get_node("input")["features"]
    assert isinstance(features, ConfigNode)
    assert features.get_bool("definesMbSize") is True
    assert flipped.keys()[-1] == "DEFMBSIZE"


def test_sparse_and_dense_inputs() -> None:
    sparse = load_config(CTF_DIR / "sparse.cntk")
    features = find_section(sparse, "3x5_MI").get_node("reader").get_node("input")
    assert [features.get_node(k).get_str("format") for k in features] == ["sparse"] * 3
    assert [features.get_node(k).get_int("dim") for k in features.keys()] == [2, 20, 200]  # noqa: SIM118
    dense = find_section(load_config(CTF_DIR / "dense.cntk"), "10x1_MI").get_node("reader")
    assert dense.get_int("chunkSizeInBytes") == 50000  # "50000 # ~ 1/2 input size"
    assert dense.get_bool("keepDataInMemory") is True


@pytest.mark.parametrize("name", OLDER_FILES)
def test_older_configs_substitute_top_level_variables(name: str) -> None:
    root = load_config(CONFIG_DIR / name)
    command = root.get_str("command")
    reader = find_section(root, command).get_node("reader")
    assert reader.get_str("file").startswith("./CNTKTextFormatReader")
    assert reader.get_str("randomize") == "none"
    assert root.get_str("modelPath").startswith("models/")
    assert root["RootDir"] == "."
    moved = load_config(CONFIG_DIR / name, overrides={"RootDir": "/data"})
    assert find_section(moved, command).get_node("reader").get_str("file").startswith("/data/")


def test_find_section_lists_available_sections() -> None:
    root = load_config(CTF_DIR / "edge_cases.cntk")
    with pytest.raises(KeyError, match="available sections: space_separated, "):
        find_section(root, "no_such_test")
    with pytest.raises(ValueError, match="'defMbSize' is a value, not a section"):
        find_section(root, "defmbsize")
