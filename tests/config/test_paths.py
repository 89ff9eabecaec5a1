"""Relative paths in configs: one rule (base_dir, default the config file's folder) everywhere."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from minibatcher import ConfigError, MinibatchSource
from minibatcher.cli import main
from minibatcher.config import ConfigFileNotFoundError, ConfigPaths, parse_config

LEGACY = ('reader = [ readerType = "CNTKTextFormatReader"; file = "{file}"; randomize = false; '
          'input = [ x = [ dim = 1; format = "dense" ] ] ]\n')
COMPOSITE = ('Train = [ reader = { randomize = false; deserializers = ( { type = '
             '"CNTKTextFormatDeserializer"; file = "{file}"; input = { x = { dim = 1; '
             'format = "dense" } } } ) } ]\n')


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """configs/ holds the config and its data (data/d.ctf); the working directory is elsewhere."""
    (tmp_path / "configs" / "data").mkdir(parents=True)
    (tmp_path / "configs" / "data" / "d.ctf").write_text("|x 1\n|x 2\n")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    return tmp_path


def values(source: MinibatchSource) -> list[float]:
    return source.next_minibatch(10)["x"].values.ravel().tolist()


@pytest.mark.parametrize("template", [LEGACY, COMPOSITE], ids=["legacy", "composite"])
def test_relative_paths_resolve_against_the_config_folder(layout: Path, template: str) -> None:
    config = layout / "configs" / "r.cntk"
    config.write_text(template.replace("{file}", "data/d.ctf"))
    section = "Train" if template is COMPOSITE else None
    assert values(MinibatchSource.from_config(config, section)) == [1.0, 2.0]
    assert values(MinibatchSource.from_config(str(config), section)) == [1.0, 2.0]


def test_base_dir_overrides_the_config_folder(layout: Path) -> None:
    config = layout / "configs" / "r.cntk"
    config.write_text(LEGACY.replace("{file}", "d.ctf"))
    source = MinibatchSource.from_config(config, base_dir=layout / "configs" / "data")
    assert values(source) == [1.0, 2.0]


def test_config_text_resolves_against_the_working_directory(
        layout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = LEGACY.replace("{file}", "data/d.ctf")
    monkeypatch.chdir(layout / "configs")
    assert values(MinibatchSource.from_config(text)) == [1.0, 2.0]


def test_absolute_paths_are_used_as_written(layout: Path) -> None:
    config = layout / "elsewhere" / "r.cntk"
    config.write_text(LEGACY.replace("{file}", str(layout / "configs" / "data" / "d.ctf")))
    assert values(MinibatchSource.from_config(config, base_dir="/no/such/dir")) == [1.0, 2.0]


def test_missing_file_names_the_key_the_path_tried_and_base_dir(layout: Path) -> None:
    config = layout / "configs" / "r.cntk"
    config.write_text(LEGACY.replace("{file}", "d.ctf"))
    with pytest.raises(FileNotFoundError) as info:
        MinibatchSource.from_config(config)
    error = info.value
    tried = layout / "configs" / "d.ctf"
    assert isinstance(error, ConfigError) and error.errno == errno.ENOENT
    assert error.key == "reader.file" and error.path == str(tried)
    assert error.base_dir == str(layout / "configs")
    message = str(error)
    assert f"{config}:1:" in message and "reader.file = 'd.ctf'" in message
    assert f"tried {tried}" in message
    assert f"resolve against {layout / 'configs'} (the config file's folder); pass base_dir=DIR " \
        "to change it" in message


def test_missing_file_in_a_composite_names_the_array_element(layout: Path) -> None:
    config = layout / "configs" / "r.cntk"
    config.write_text(COMPOSITE.replace("{file}", "nope.ctf"))
    with pytest.raises(ConfigFileNotFoundError, match=r"Train\.reader\.deserializers\[0\]\.file"):
        MinibatchSource.from_config(config, "Train", base_dir=layout)
    with pytest.raises(ConfigFileNotFoundError, match=rf"resolve against base_dir={layout}; "
                       "pass another base_dir=DIR to change it"):
        MinibatchSource.from_config(config, "Train", base_dir=layout)


def test_inherited_file_key_names_the_block_that_holds_it(layout: Path) -> None:
    text = ('Train = [ file = "gone.ctf"\n reader = [ readerType = "CNTKTextFormatReader"; '
            'input = [ x = [ dim = 1; format = "dense" ] ] ] ]\n')
    with pytest.raises(ConfigFileNotFoundError) as info:
        MinibatchSource.from_config(text, "Train")
    assert info.value.key == "Train.file" and "<config>:1:" in str(info.value)
    assert "the working directory (the config was given as text)" in str(info.value)


def test_a_config_path_that_does_not_exist_is_a_file_not_found_error(layout: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no-such.cntk"):
        MinibatchSource.from_config("no-such.cntk")


def test_helper_resolves_values_from_any_front_end(tmp_path: Path) -> None:
    (tmp_path / "a.scp").write_text("")
    paths = ConfigPaths.for_config(tmp_path / "x.cntk")
    node = parse_config('r = [ scpFile = "a.scp"; mlfFile = "b.mlf" ]')["r"]
    assert paths.file(node, "scpFile") == tmp_path / "a.scp"
    assert paths.file(node, "mlfFile", must_exist=False) == tmp_path / "b.mlf"
    with pytest.raises(ConfigFileNotFoundError, match=r"r\.mlfFile = 'b\.mlf'"):
        paths.file(node, "mlfFile")


def test_cli_uses_the_same_rule_and_exits_2_when_a_file_is_missing(layout: Path, capsys) -> None:
    config = layout / "configs" / "r.cntk"
    config.write_text(LEGACY.replace("{file}", "data/d.ctf"))
    assert main(["cat", str(config), "--count", "1"]) == 0
    capsys.readouterr()
    config.write_text(LEGACY.replace("{file}", "d.ctf"))
    assert main(["cat", str(config)]) == 2
    err = capsys.readouterr().err
    assert "reader.file = 'd.ctf'" in err and f"tried {layout / 'configs' / 'd.ctf'}" in err


def test_cntk_suite_config_without_base_dir_names_what_to_pass(ctf_suite: Path) -> None:
    # CNTK ran its reader tests from the data folder; its configs live in another folder.
    config = ctf_suite / "Config" / "CNTKTextFormatReader" / "dense.cntk"
    with pytest.raises(ConfigFileNotFoundError) as info:
        MinibatchSource.from_config(config, "Simple")
    assert info.value.key == "Simple.reader.file"
    assert info.value.base_dir == str(config.parent) and "pass base_dir=" in str(info.value)
    data = ctf_suite / "Data" / "CNTKTextFormatReader"
    source = MinibatchSource.from_config(config, "Simple", base_dir=data, randomize=False)
    assert source.next_minibatch(1)
