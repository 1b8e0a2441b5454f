"""Every call of the package against headscope-cli's JSON (maps, heads, ablate, compare) on the
shipped models and GGUF files, to 1e-6; the maps' array layout; threads=."""
import numpy as np
import pytest

import headscope
from conftest import assert_maps_equal, assert_same, cli_json, gguf

SENTENCE = "Lily saw a big dog."
CONFIG_KEYS = ["d_model", "n_heads", "n_kv_heads", "d_head", "n_layers", "causal"]


def check_run(r, maps, what):
    assert r.tokens == maps["tokens"], "%s: tokens %r, the CLI's %r" % (what, r.tokens, maps["tokens"])
    assert r.token_ids == maps.get("token_ids", []), "%s: token ids %r, the CLI's %r" % (what, r.token_ids, maps.get("token_ids"))
    assert r.attention.dtype == np.float32
    assert_maps_equal(r.attention, maps["attention"], what + " attention")
    assert_maps_equal(r.head_difference, maps["head_difference"], what + " head_difference")
    for k in CONFIG_KEYS:
        assert r.config[k] == maps["config"][k], "%s: config %s is %r, the CLI's %r" % (what, k, r.config[k], maps["config"][k])


@pytest.mark.parametrize("model", ["stories260K", "teaching"])
def test_run_text_equals_maps_json(cli, model):
    text = SENTENCE if model == "stories260K" else "the cat sat on the mat"
    r = headscope.load(model).run(text)
    check_run(r, cli_json("maps", "--model", model, "--sentence", text), "%s on %r" % (model, text))


@pytest.mark.parametrize("name", ["stories260K_f32.gguf", "stories260K_q8_0.gguf"])
def test_run_gguf_equals_maps_json(cli, name):
    path = gguf(name)
    m = headscope.load(path)
    check_run(m.run(SENTENCE), cli_json("maps", "--model", path, "--sentence", SENTENCE), name)
    check_run(m.run(ids=[1, 365, 300, 42]), cli_json("maps", "--model", path, "--input-ids", "1,365,300,42"), name + " ids")


def test_run_ids_equals_maps_json(cli):
    r = headscope.load("stories260K").run(ids=[1, 365, 300])
    check_run(r, cli_json("maps", "--model", "stories260K", "--input-ids", "1,365,300"), "stories260K ids")


def test_issue_example_shape():
    a = headscope.load("stories260K").run("Lily saw a dog.").attention
    assert a.shape[:2] == (5, 8) and a.shape[2] == a.shape[3], a.shape
    assert np.allclose(a.sum(-1), 1, atol=1e-5), "rows do not sum to 1"


def test_maps_without_copies():
    r = headscope.load("stories260K").run(SENTENCE)
    a = r.attention
    assert r.attention is a, "attention is made once and kept, not copied on every access"
    assert not a.flags.writeable
    v = r.map(2, 3)
    assert not v.flags.owndata and not v.flags.writeable, "map(l, h) is a view of the engine's buffer"
    assert np.shares_memory(v, r.map(2, 3)), "two views of one head share the engine's buffer"
    assert np.array_equal(v, a[2, 3])
    del r
    assert np.array_equal(v, a[2, 3]), "the view keeps the run alive"


def test_roles_equal_heads_json(cli):
    r = headscope.load("stories260K").run(SENTENCE)
    assert_same(r.roles(), cli_json("heads", "--model", "stories260K", "--sentence", SENTENCE), "roles()")
    assert_same(r.roles(threshold=0.3, probe_seeds=2, local_window=2),
                cli_json("heads", "--model", "stories260K", "--sentence", SENTENCE, "--threshold", "0.3",
                         "--probe-seeds", "2", "--local-window", "2"), "roles(threshold=0.3, ...)")


def without_time(d):
    d = dict(d)
    d.pop("compute_ms", None)
    return d


def test_ablate_equals_ablate_json(cli):
    m = headscope.load("stories260K")
    base = ["ablate", "--model", "stories260K", "--quiet"]
    assert_same(without_time(m.ablate(SENTENCE)), without_time(cli_json(*base, "--sentence", SENTENCE)), "ablate()")
    assert_same(without_time(m.ablate(SENTENCE, knock_out=[(1, 3), (2, 5)], mode="mean")),
                without_time(cli_json(*base, "--sentence", SENTENCE, "--knock-out", "1.3,2.5", "--ablation", "mean")),
                "ablate(knock_out=..., mode='mean')")
    assert_same(without_time(m.ablate(SENTENCE, knock_out="0.1", target=" cat", target_position=3)),
                without_time(cli_json(*base, "--sentence", SENTENCE, "--knock-out", "0.1", "--target", " cat",
                                      "--target-position", "3")), "ablate(target=...)")


def test_ablate_gguf_equals_ablate_json(cli):
    path = gguf("stories260K_q8_0.gguf")
    assert_same(without_time(headscope.load(path).ablate(ids=[1, 365, 300, 42, 7])),
                without_time(cli_json("ablate", "--model", path, "--quiet", "--input-ids", "1,365,300,42,7")), "GGUF ablate()")


def test_compare_equals_compare_json(cli):
    m = headscope.load("stories260K")
    a, b = "Lily saw the big dog.", "Lily saw the little cat."
    assert_same(headscope.compare(m, a, b),
                cli_json("compare", "--model", "stories260K", "--sentence", a, "--contrast", b), "compare()")
    a, b = "Once upon a time, there was a boy. One day,", "Once upon a time, there was a girl. One day,"
    assert_same(headscope.compare(m, a, b, target=" he", versus=" she", patch=True),
                cli_json("compare", "--model", "stories260K", "--sentence", a, "--contrast", b, "--target", " he",
                         "--versus", " she", "--patch"), "compare(target=..., patch=True)")


def test_compare_gguf_equals_compare_json(cli):
    path = gguf("stories260K_f32.gguf")
    a, b = "Lily saw the big dog.", "Lily saw the little cat."
    assert_same(headscope.compare(headscope.load(path), a, b),
                cli_json("compare", "--model", path, "--sentence", a, "--contrast", b), "GGUF compare()")


def test_threads_do_not_change_the_numbers():
    m = headscope.load("stories260K", threads=1)
    one = m.run(SENTENCE).attention
    assert np.array_equal(one, m.run(SENTENCE, threads=2).attention)
    assert np.array_equal(one, headscope.load("stories260K").run(SENTENCE).attention)
