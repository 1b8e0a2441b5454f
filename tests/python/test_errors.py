"""Bad input raises the package's exceptions (ValueError for input, OSError for files) with the
message headscope-cli prints for the same input, and never crashes the interpreter."""

import pytest

import headscope
from conftest import cli_error, gguf


def same_message(error, *cli_args):
    want = cli_error(*cli_args)
    assert str(error.value) == want, "the package says %r; headscope-cli says %r" % (str(error.value), want)


def test_missing_file_is_oserror(cli, tmp_path):
    path = str(tmp_path / "missing.gguf")
    with pytest.raises(OSError) as e:
        headscope.load(path)
    assert isinstance(e.value, headscope.IoError)
    same_message(e, "maps", "--model", path, "--sentence", "a")


def test_broken_file_is_format_error(cli, tmp_path):
    path = tmp_path / "broken.gguf"
    path.write_bytes(b"GGUF" + b"\x03\x00\x00\x00" + b"\xff" * 40)
    with pytest.raises(headscope.FormatError) as e:
        headscope.load(str(path))
    assert isinstance(e.value, OSError) and isinstance(e.value, ValueError)
    same_message(e, "maps", "--model", str(path), "--sentence", "a")


def test_token_id_outside_the_vocabulary(cli):
    m = headscope.load("stories260K")
    with pytest.raises(ValueError) as e:
        m.run(ids=[1, 365, 1217])
    assert isinstance(e.value, headscope.InputError)
    same_message(e, "maps", "--model", "stories260K", "--input-ids", "1,365,1217")


def test_gguf_token_id_outside_the_vocabulary(cli):
    path = gguf("stories260K_q8_0.gguf")
    with pytest.raises(ValueError) as e:
        headscope.load(path).run(ids=[1, 5000])
    same_message(e, "maps", "--model", path, "--input-ids", "1,5000")


def test_ablate_and_compare_refuse_as_the_cli(cli):
    m = headscope.load("stories260K")
    with pytest.raises(ValueError) as e:
        m.ablate("Lily saw a dog.", knock_out=[(9, 0)])
    same_message(e, "ablate", "--model", "stories260K", "--sentence", "Lily saw a dog.", "--knock-out", "9.0")
    with pytest.raises(ValueError) as e:
        m.ablate("Lily saw a dog.", target_position=40)
    same_message(e, "ablate", "--model", "stories260K", "--sentence", "Lily saw a dog.", "--target-position", "40")
    with pytest.raises(ValueError) as e:
        headscope.compare(m, "Lily saw the big dog.", "Lily saw the little cat.", target=" he", versus=" he")
    same_message(e, "compare", "--model", "stories260K", "--sentence", "Lily saw the big dog.", "--contrast",
                 "Lily saw the little cat.", "--target", " he", "--versus", " he")


@pytest.mark.parametrize("call, phrase", [
    (lambda m: m.run(""), "the text is empty"),
    (lambda m: m.run(), "no input"),
    (lambda m: m.run("a", ids=[1]), "either a text or ids"),
    (lambda m: m.run(ids=[]), "ids is empty"),
    (lambda m: m.run(ids=[-3]), "-3 is not a token id"),
    (lambda m: m.run("a", threads=0), "threads (0) must be a whole number from 1 to 4096"),
    (lambda m: m.ablate("Lily saw a dog.", mode="half"), "mode 'half' is not an ablation"),
    (lambda m: m.ablate("Lily saw a dog.", knock_out=[(1, 2, 3)]), "is not a (layer, head) pair"),
    (lambda m: m.ablate("Lily saw a dog.", knock_out="1-2"), "1-2"),
    (lambda m: m.run("Lily").map(5, 0), "layer 5 does not exist"),
    (lambda m: m.run("Lily").map(0, 8), "head 8 does not exist"),
    (lambda m: m.run("Lily").roles(threshold=2), "threshold (2.000000) must be from 0 to 1"),
    (lambda m: headscope.compare(m, "Lily", "Lily", target=" a"), "give target and versus together"),
    (lambda m: headscope.compare(m, "Lily", "", target=None), "the contrast sentence (b) is empty"),
])
def test_bad_input_is_valueerror(call, phrase):
    m = headscope.load("stories260K")
    with pytest.raises(ValueError) as e:
        call(m)
    assert phrase in str(e.value), "expected %r in %r" % (phrase, str(e.value))


def test_wrong_types_are_typeerror():
    m = headscope.load("stories260K")
    with pytest.raises(TypeError):
        m.run(42)
    with pytest.raises(TypeError):
        m.run(ids=["a"])
    with pytest.raises(TypeError):
        headscope.load(None)


def test_model_empty_name_and_folder(cli, tmp_path):
    with pytest.raises(ValueError) as e:
        headscope.load("")
    assert "the model is empty" in str(e.value)
    with pytest.raises(ValueError) as e:  # a folder without config.json: bad input, as the CLI says
        headscope.load(str(tmp_path))
    same_message(e, "maps", "--model", str(tmp_path), "--sentence", "a")
