"""headscope from Python: every head's attention map of a checkpoint as a NumPy array, the head
roles, ablations and minimal pairs as headscope-cli computes them, and the app on maps made in
Python. docs/python.md has the whole API with an example.

    import headscope
    m = headscope.load("stories260K")          # a GGUF file, HF folder, llama2.c .bin, "teaching"
    r = m.run("Lily saw a big dog.")           # or m.run(ids=[1, 365, 1217])
    r.tokens, r.token_ids                      # list[str], list[int]
    r.attention                                # np.float32 [layers, heads, T, T], as `maps --json`
    r.roles()                                  # every head's role scores (as `heads --json`)
    m.ablate("...")                            # as `ablate --json`
    headscope.compare(m, "A ...", "B ...")     # as `compare --json`
    headscope.show(r.attention, r.tokens)      # open the app on maps made in Python
"""
import atexit
import json
import os

from . import _core
from .attention_file import save_attention, stack_attention
from .viewer import show, show_command

__all__ = ["load", "Model", "Result", "compare", "show", "show_command", "save_attention", "stack_attention",
           "InputError", "FormatError", "IoError", "__version__"]
__version__ = _core.version


class InputError(ValueError):
    """Bad input: an argument, a text, a setting ("heads (3) must divide d_model (8)")."""


class FormatError(OSError, ValueError):
    """A file whose content is not what its format promises (also a ValueError)."""


class IoError(OSError):
    """A file that cannot be found, opened, read or written."""


_core._set_error_types(InputError, FormatError, IoError)

# The shipped models: $HEADSCOPE_SHIPPED_MODELS, then this package's models/ (pip) or the prefix's
# share/headscope/models (cmake --install puts the package in <prefix>/lib/python3/dist-packages).
# An installed package never looks in a source tree; the build tree's module keeps core's default,
# the source tree's assets/models.
_HERE = os.path.dirname(os.path.abspath(__file__))
_installed = [d for d in (os.path.join(_HERE, "models"),
                          os.path.normpath(os.path.join(_HERE, "..", "..", "..", "..", "share", "headscope", "models")))
              if os.path.isdir(d)]
_env = [os.environ["HEADSCOPE_SHIPPED_MODELS"]] if os.environ.get("HEADSCOPE_SHIPPED_MODELS") else []
_core._set_model_dirs(_env + (_installed or _core._model_dirs()))
atexit.register(_core._wait_for_abandoned_work)


class Result:
    """One run of a model on one input: tokens, maps, and the numbers the CLI derives from them."""

    def __init__(self, model, core_result):
        self._model = model
        self._r = core_result

    @property
    def tokens(self):
        """The T tokens as shown on the axes (list of str)."""
        return self._r.tokens

    @property
    def token_ids(self):
        """The T token ids the model ran (list of int; empty for models without ids)."""
        return self._r.token_ids

    @property
    def next_tokens(self):
        """Language models: the most likely next token after each position (list of str)."""
        return self._r.next_tokens

    @property
    def config(self):
        """The model's shape: d_model, n_heads, n_kv_heads, d_head, n_layers, causal, ..."""
        return self._r.config

    @property
    def attention(self):
        """Every head's map, np.float32 [layers, heads, T, T], read-only: row = query, column = key,
        rows sum to 1 (masked keys are 0). Equal to `headscope-cli maps --json`'s "attention"."""
        return self._r.attention

    def map(self, layer, head):
        """One head's map [T, T], a read-only view of the engine's own buffer (no copy)."""
        return self._r.map(layer, head)

    @property
    def head_difference(self):
        """np.float32 [layers, heads, heads]: the mean over all T x T cells of |A_a - A_b|
        (`maps --json` "head_difference")."""
        return self._r.head_difference

    def roles(self, local_window=3, threshold=0.4, chance_margin=0.1, probe_seeds=5, probe_seed=18, threads=None):
        """Every head's role scores and label on this input, as `headscope-cli heads --json` writes
        them (the same defaults and options): a dict with "scores" {role: [layer][head]}, "chance",
        "label", the definitions. Runs the model again with the roles' induction probes."""
        return json.loads(self._r._roles_json(local_window, threshold, chance_margin, probe_seeds, probe_seed, threads))

    def __repr__(self):
        c = self.config
        return "<headscope.Result %s: %d tokens, %d layers x %d heads>" % (c.get("name", ""), len(self.tokens),
                                                                          c.get("n_layers", 0), c.get("n_heads", 0))


class Model:
    """A checkpoint opened once; every call runs on it. Made by headscope.load()."""

    def __init__(self, model, tokenizer=None, threads=None):
        self._m = _core.Model(os.fspath(model), os.fspath(tokenizer) if tokenizer else "", threads)

    @property
    def name(self):
        return self._m.name

    @property
    def config(self):
        """The model's shape (d_model, n_heads, n_kv_heads, d_head, n_layers, causal, ...)."""
        return self._m.config

    def run(self, text=None, *, ids=None, threads=None):
        """The model on a text (its own tokenizer) or on token ids (the whole sequence as the model
        reads it: no special token is added). Returns a Result."""
        return Result(self, self._m.run(text, ids=ids, threads=threads))

    def ablate(self, text=None, *, ids=None, knock_out=None, target=None, target_position=None, mode="zero",
               reference=None, threads=None):
        """Knock out each head in turn (or the heads of knock_out together: [(1, 3), (2, 5)] or
        "1.3,2.5") and measure the change in the mean next-token loss (or with target /
        target_position, one prediction's log-prob). Returns the dict `headscope-cli ablate --json`
        writes; mode "mean" with reference (a text file) as --ablation mean --reference."""
        return json.loads(self._m._ablate_json(text, ids, knock_out, target, target_position, mode,
                                               os.fspath(reference) if reference is not None else None, threads))

    def __repr__(self):
        return "<headscope.Model %s>" % self.name


def load(model, tokenizer=None, threads=None):
    """Opens a checkpoint: "stories260K" or "teaching" (shipped), a GGUF file, a Hugging Face
    folder, a llama2.c .bin (tokenizer: its tokenizer.bin when not beside it). threads: the
    default for every call (None: every core). Raises IoError / FormatError / InputError."""
    return Model(model, tokenizer, threads)


def compare(model, a, b, *, target=None, versus=None, patch=False, threads=None):
    """A minimal pair: how each head's attention changes from sentence a to sentence b; with
    target and versus (" are", " is") the logit difference of the two continuations, and with
    patch=True each head's share of it by activation patching. Returns the dict
    `headscope-cli compare --json` writes."""
    return json.loads(_core._compare_json(model._m, a, b, target, versus, patch, threads))
