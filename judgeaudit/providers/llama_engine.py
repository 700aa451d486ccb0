"""llama.cpp in process, through its C API, from the prebuilt library of the `xllamacpp` wheel.

`xllamacpp` (MIT, Xorbits) ships llama.cpp compiled for portable x86-64 (AVX2, no AVX-512 or
AMX) as one Python extension that also exports llama.cpp's C API (`llama.h`). We call that API
with ctypes and do what llama-cpp-python's `Llama.create_completion` does for a plain prompt, so
the `local/` provider needs no compiler: the prompt is tokenized with a BOS token and special
tokens parsed, evaluated in chunks of `n_batch` tokens at positions 0, n_batch, 2 n_batch, ...
(logits for each chunk's last token), then
each token is drawn by a sampler chain of llama.cpp's own samplers in llama-cpp-python's order
(penalties, the GBNF grammar, then greedy at temperature 0, else top-k, typical, top-p, min-p,
temperature and a seeded draw), stopping at an end-of-generation token, a stop string (cut there)
or `max_tokens`.

Reuse of the previous call's work, exact (the same logits to the last bit as a fresh evaluation, so the
same answers): a prompt equal to the previous one is not evaluated again (its KV cache entries and the
logits of its last token are kept), and a prompt sharing a prefix with it keeps the shared whole
chunks of `n_batch` tokens (a fresh evaluation computes those chunks from the same tokens in the same
batches, and the chunks after them at the same positions). A small `n_batch` keeps more of a shared
prefix: the `local/` provider's default, 64, evaluates prompts as fast as 512 on this model. Any other
reuse changes the batches and so the last bits of the logits: `reuse_prefix=True` keeps the whole
longest common prefix (at least one token is evaluated), faster, but a sampled answer may then differ
from the fresh one.

Under a grammar, the tokens it allows in each of its states are computed by llama.cpp's grammar
sampler once per engine and then applied from memory (`GrammarMasks`, `Sampler`): the same draws,
without scanning the whole vocabulary for every token. In a state not in memory (free text allows
too many tokens to keep) the grammar first judges only the `SHORTLIST` highest logits; when the
allowed ones among them decide the draw (greedy, or top-k with k + 1 untied), the whole vocabulary
is not scanned (`Sampler._shortlist`): again the same draws.

The struct layouts below are those of the pinned `xllamacpp` release (`LIBRARY_VERSION`); another
release is refused with a clear error, since a layout change would corrupt memory silently.
"""

from __future__ import annotations

import ctypes
import importlib.metadata
import importlib.util
import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LIBRARY_PACKAGE = "xllamacpp"
LIBRARY_VERSION = "2026.10.11549"
DEFAULT_SEED = (
    0xFFFFFFFF  # llama.cpp's LLAMA_DEFAULT_SEED: the base of the seed drawn when none is given
)
PENALTY_LAST_N = 64  # tokens the repetition penalties look back on (llama-cpp-python's default)
SHORTLIST = 1024  # highest logits whose grammar verdicts often decide a draw (`Sampler._shortlist`)
FLASH_ATTN_DISABLED = 0


class EngineError(RuntimeError):
    """The llama.cpp library is missing, of another release, or refused a model, grammar or prompt."""


c_token = ctypes.c_int32
c_pos = ctypes.c_int32
c_seq = ctypes.c_int32
LOG_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)


class ModelParams(ctypes.Structure):
    """struct llama_model_params."""

    _fields_ = [
        ("devices", ctypes.c_void_p),
        ("tensor_buft_overrides", ctypes.c_void_p),
        ("n_gpu_layers", ctypes.c_int32),
        ("split_mode", ctypes.c_int),
        ("load_mode", ctypes.c_int),
        ("lazy_mode", ctypes.c_int),
        ("main_gpu", ctypes.c_int32),
        ("tensor_split", ctypes.c_void_p),
        ("progress_callback", ctypes.c_void_p),
        ("progress_callback_user_data", ctypes.c_void_p),
        ("kv_overrides", ctypes.c_void_p),
        ("vocab_only", ctypes.c_bool),
        ("check_tensors", ctypes.c_bool),
        ("use_extra_bufts", ctypes.c_bool),
        ("no_host", ctypes.c_bool),
        ("no_alloc", ctypes.c_bool),
        ("load_mtp", ctypes.c_bool),
    ]


class ContextParams(ctypes.Structure):
    """struct llama_context_params."""

    _fields_ = [
        ("n_ctx", ctypes.c_uint32),
        ("n_batch", ctypes.c_uint32),
        ("n_ubatch", ctypes.c_uint32),
        ("n_seq_max", ctypes.c_uint32),
        ("n_rs_seq", ctypes.c_uint32),
        ("n_outputs_max", ctypes.c_uint32),
        ("n_outputs_max_per_seq", ctypes.c_uint32),
        ("n_threads", ctypes.c_int32),
        ("n_threads_batch", ctypes.c_int32),
        ("ctx_type", ctypes.c_int),
        ("rope_scaling_type", ctypes.c_int),
        ("pooling_type", ctypes.c_int),
        ("attention_type", ctypes.c_int),
        ("flash_attn_type", ctypes.c_int),
        ("rope_freq_base", ctypes.c_float),
        ("rope_freq_scale", ctypes.c_float),
        ("yarn_ext_factor", ctypes.c_float),
        ("yarn_attn_factor", ctypes.c_float),
        ("yarn_beta_fast", ctypes.c_float),
        ("yarn_beta_slow", ctypes.c_float),
        ("yarn_orig_ctx", ctypes.c_uint32),
        ("defrag_thold", ctypes.c_float),
        ("cb_eval", ctypes.c_void_p),
        ("cb_eval_user_data", ctypes.c_void_p),
        ("type_k", ctypes.c_int),
        ("type_v", ctypes.c_int),
        ("moe_cache_size", ctypes.c_size_t),
        ("abort_callback", ctypes.c_void_p),
        ("abort_callback_data", ctypes.c_void_p),
        ("embeddings", ctypes.c_bool),
        ("offload_kqv", ctypes.c_bool),
        ("no_perf", ctypes.c_bool),
        ("op_offload", ctypes.c_bool),
        ("swa_full", ctypes.c_bool),
        ("kv_unified", ctypes.c_bool),
        ("samplers", ctypes.c_void_p),
        ("n_samplers", ctypes.c_size_t),
        ("ctx_other", ctypes.c_void_p),
    ]


class Batch(ctypes.Structure):
    """struct llama_batch."""

    _fields_ = [
        ("n_tokens", ctypes.c_int32),
        ("token", ctypes.POINTER(c_token)),
        ("embd", ctypes.POINTER(ctypes.c_float)),
        ("pos", ctypes.POINTER(c_pos)),
        ("n_seq_id", ctypes.POINTER(ctypes.c_int32)),
        ("seq_id", ctypes.POINTER(ctypes.POINTER(c_seq))),
        ("logits", ctypes.POINTER(ctypes.c_int8)),
    ]


class TokenData(ctypes.Structure):
    """struct llama_token_data."""

    _fields_ = [("id", c_token), ("logit", ctypes.c_float), ("p", ctypes.c_float)]


class TokenDataArray(ctypes.Structure):
    """struct llama_token_data_array."""

    _fields_ = [
        ("data", ctypes.c_void_p),
        ("size", ctypes.c_size_t),
        ("selected", ctypes.c_int64),
        ("sorted", ctypes.c_bool),
    ]


class ChainParams(ctypes.Structure):
    """struct llama_sampler_chain_params."""

    _fields_ = [("no_perf", ctypes.c_bool)]


P = ctypes.c_void_p
# name -> (result type, argument types): the part of llama.h this engine calls
_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "llama_backend_init": (None, []),
    "llama_log_set": (None, [LOG_CALLBACK, P]),
    "llama_model_default_params": (ModelParams, []),
    "llama_context_default_params": (ContextParams, []),
    "llama_sampler_chain_default_params": (ChainParams, []),
    "llama_model_load_from_file": (P, [ctypes.c_char_p, ModelParams]),
    "llama_model_free": (None, [P]),
    "llama_init_from_model": (P, [P, ContextParams]),
    "llama_free": (None, [P]),
    "llama_model_get_vocab": (P, [P]),
    "llama_vocab_n_tokens": (ctypes.c_int32, [P]),
    "llama_vocab_bos": (c_token, [P]),
    "llama_vocab_get_add_bos": (ctypes.c_bool, [P]),
    "llama_vocab_is_eog": (ctypes.c_bool, [P, c_token]),
    "llama_tokenize": (
        ctypes.c_int32,
        [
            P,
            ctypes.c_char_p,
            ctypes.c_int32,
            ctypes.POINTER(c_token),
            ctypes.c_int32,
            ctypes.c_bool,
            ctypes.c_bool,
        ],
    ),
    "llama_token_to_piece": (
        ctypes.c_int32,
        [P, c_token, ctypes.c_char_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_bool],
    ),
    "llama_batch_init": (Batch, [ctypes.c_int32, ctypes.c_int32, ctypes.c_int32]),
    "llama_batch_free": (None, [Batch]),
    "llama_decode": (ctypes.c_int32, [P, Batch]),
    "llama_get_memory": (P, [P]),
    "llama_memory_clear": (None, [P, ctypes.c_bool]),
    "llama_memory_seq_rm": (ctypes.c_bool, [P, c_seq, c_pos, c_pos]),
    "llama_sampler_chain_init": (P, [ChainParams]),
    "llama_sampler_chain_add": (None, [P, P]),
    "llama_sampler_free": (None, [P]),
    "llama_sampler_sample": (c_token, [P, P, ctypes.c_int32]),
    "llama_sampler_apply": (None, [P, ctypes.POINTER(TokenDataArray)]),
    "llama_sampler_accept": (None, [P, c_token]),
    "llama_get_logits_ith": (ctypes.POINTER(ctypes.c_float), [P, ctypes.c_int32]),
    "llama_sampler_init_penalties": (
        P,
        [ctypes.c_int32, ctypes.c_int32, ctypes.c_float, ctypes.c_float, ctypes.c_float],
    ),
    "llama_sampler_init_grammar": (P, [P, ctypes.c_char_p, ctypes.c_char_p]),
    "llama_sampler_init_greedy": (P, []),
    "llama_sampler_init_dist": (P, [ctypes.c_uint32]),
    "llama_sampler_init_top_k": (P, [ctypes.c_int32]),
    "llama_sampler_init_typical": (P, [ctypes.c_float, ctypes.c_size_t]),
    "llama_sampler_init_top_p": (P, [ctypes.c_float, ctypes.c_size_t]),
    "llama_sampler_init_min_p": (P, [ctypes.c_float, ctypes.c_size_t]),
    "llama_sampler_init_temp": (P, [ctypes.c_float]),
}

_LIB: Any = None
_LIB_LOCK = threading.Lock()


@LOG_CALLBACK
def _quiet(level: int, text: bytes | None, data: int | None) -> None:
    """llama.cpp's log lines are dropped (errors reach the caller as return codes)."""


def library_path() -> Path:
    """The shared object of the installed `xllamacpp` release this engine was written against."""
    try:
        version = importlib.metadata.version(LIBRARY_PACKAGE)
    except importlib.metadata.PackageNotFoundError as ex:
        raise EngineError(
            f"local/ models need {LIBRARY_PACKAGE}: pip install 'judgeaudit[local]'"
        ) from ex
    if version != LIBRARY_VERSION:
        raise EngineError(
            f"local/ models need {LIBRARY_PACKAGE}=={LIBRARY_VERSION} (its llama.cpp C API is the one "
            f"this provider declares), found {version}: pip install 'judgeaudit[local]'"
        )
    spec = importlib.util.find_spec(LIBRARY_PACKAGE)
    folder = Path(spec.origin).parent if spec and spec.origin else None
    found = sorted(folder.glob("xllamacpp*.so")) if folder else []
    if not found:
        raise EngineError(
            f"no llama.cpp library in the installed {LIBRARY_PACKAGE} package ({folder})"
        )
    return found[0]


def library() -> Any:
    """The llama.cpp C API (loaded, typed and initialised once per process)."""
    global _LIB
    with _LIB_LOCK:
        if _LIB is None:
            lib = ctypes.CDLL(str(library_path()))
            for name, (restype, argtypes) in _SIGNATURES.items():
                fn = getattr(lib, name)
                fn.restype, fn.argtypes = restype, argtypes
            lib.llama_log_set(_quiet, None)
            lib.llama_backend_init()
            _LIB = lib
    return _LIB


@dataclass(frozen=True)
class SamplingParams:
    """How tokens are drawn (llama-cpp-python's `create_completion` defaults)."""

    temperature: float = 0.8
    top_k: int = 40
    top_p: float = 0.95
    min_p: float = 0.05
    typical_p: float = 1.0
    repeat_penalty: float = 1.0
    frequency_penalty: float = 0.0
    presence_penalty: float = 0.0
    seed: int | None = None


@dataclass
class Completion:
    """One completion: the text, why it ended, token counts and where the time went."""

    text: str
    finish_reason: str  # "stop" (end of generation or a stop string) or "length"
    prompt_tokens: int
    completion_tokens: int
    evaluated_prompt_tokens: (
        int  # prompt tokens actually evaluated (fewer when a prefix was reused)
    )
    prefill_seconds: float
    decode_seconds: float

    def response(self) -> dict[str, Any]:
        """The completion as llama-cpp-python's `create_completion` returns it (OpenAI-style)."""
        return {
            "object": "text_completion",
            "choices": [
                {
                    "text": self.text,
                    "index": 0,
                    "logprobs": None,
                    "finish_reason": self.finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "total_tokens": self.prompt_tokens + self.completion_tokens,
            },
            "timings": {
                "prompt_evaluated": self.evaluated_prompt_tokens,
                "prefill_seconds": self.prefill_seconds,
                "decode_seconds": self.decode_seconds,
            },
        }


def _chain(samplers: list[Any]) -> Any:
    """A llama.cpp sampler chain of `samplers` (which it then owns)."""
    lib = library()
    chain = lib.llama_sampler_chain_init(lib.llama_sampler_chain_default_params())
    for sampler in samplers:
        lib.llama_sampler_chain_add(chain, sampler)
    return chain


@dataclass
class GrammarMasks:
    """The tokens a grammar allows after a given sequence of accepted tokens (small sets only), by
    (grammar text, accepted tokens): a grammar state's allowed set depends on nothing else, so it is
    computed by llama.cpp's grammar sampler once (about 25 ms over Gemma's 262k-token vocabulary)."""

    max_tokens: int = 4096  # sets larger than this (free text) are not kept
    max_entries: int = 4096
    _sets: dict[tuple[str, tuple[int, ...]], Any] = field(default_factory=dict)

    def get(self, key: tuple[str, tuple[int, ...]]) -> Any:
        """The allowed token ids (ascending) of a state, or None when not known."""
        return self._sets.get(key)

    def put(self, key: tuple[str, tuple[int, ...]], allowed: Any) -> None:
        """Keep a state's allowed ids when the set is small (the oldest state makes room)."""
        if len(allowed) <= self.max_tokens:
            if len(self._sets) >= self.max_entries:
                del self._sets[next(iter(self._sets))]
            self._sets[key] = allowed


@dataclass
class Sampler:
    """One completion's samplers. Without a grammar: one chain that llama.cpp applies to the
    context's logits (`llama_sampler_sample`). With one, three parts in the chain's order
    (penalties, grammar, draw) applied here to a copy of the logits: the grammar part sets the logit
    of every token the grammar refuses to -inf, which a known state's cached allowed set
    (`GrammarMasks`) does identically without scanning the vocabulary. Either way the token is the
    one `llama_sampler_sample` draws from the whole chain."""

    first: Any  # the whole chain, or the penalties before the grammar
    n_vocab: int
    draw_chain: Any = None
    grammar: Any = None
    grammar_text: str = ""
    masks: GrammarMasks | None = None
    accepted: tuple[int, ...] = ()
    # allowed tokens that decide the draw (see `_shortlist`): 1 for greedy, top_k + 1 for a top-k
    # draw (the one after the top k tells whether the k-th is tied), 0 when every allowed token counts
    deciding: int = 0

    def draw(self, ctx: Any, logits: Any = None) -> int:
        """Draw a token from `logits` (saved ones) or the context's last, and accept it."""
        import numpy as np

        lib = library()
        if logits is None and self.grammar is None:
            return int(lib.llama_sampler_sample(self.first, ctx, -1))
        if logits is None:
            logits = np.ctypeslib.as_array(lib.llama_get_logits_ith(ctx, -1), shape=(self.n_vocab,))
        data = np.zeros(
            len(logits), dtype=[("id", np.int32), ("logit", np.float32), ("p", np.float32)]
        )
        data["id"] = np.arange(len(logits), dtype=np.int32)
        data["logit"] = logits
        cur = TokenDataArray(data.ctypes.data_as(ctypes.c_void_p), len(logits), -1, False)
        lib.llama_sampler_apply(self.first, ctypes.byref(cur))
        if self.grammar is not None:
            self._apply_grammar(data, cur)
            lib.llama_sampler_apply(self.draw_chain, ctypes.byref(cur))
        if not 0 <= cur.selected < cur.size:
            raise EngineError("llama.cpp's samplers selected no token")
        token = int(ctypes.cast(cur.data, ctypes.POINTER(TokenData))[cur.selected].id)
        for part in (self.first, self.grammar, self.draw_chain):
            if part is not None:
                lib.llama_sampler_accept(part, token)
        self.accepted += (token,)
        return token

    def _apply_grammar(self, data: Any, cur: TokenDataArray) -> None:
        """The grammar part on candidates in token-id order (the penalties keep that order)."""
        import numpy as np

        assert self.masks is not None
        key = (self.grammar_text, self.accepted)
        allowed = self.masks.get(key)
        if allowed is None:
            allowed = self._shortlist(data)
        if allowed is not None:
            kept = data["logit"][allowed]
            data["logit"] = -np.inf
            data["logit"][allowed] = kept
            return
        all_finite = bool(np.isfinite(data["logit"]).all())
        library().llama_sampler_apply(self.grammar, ctypes.byref(cur))
        if all_finite:  # then the finite logits are exactly the allowed tokens
            self.masks.put(key, np.flatnonzero(np.isfinite(data["logit"])))

    def _shortlist(self, data: Any) -> Any:
        """The allowed tokens among the `SHORTLIST` highest logits when they decide the draw as the whole
        vocabulary's would, else None (then the grammar scans the whole vocabulary).

        Every token outside the shortlist has a lower logit than every token in it (ties at its edge are
        taken in), so greedy draws the same highest allowed token, and a top-k draw keeps the same k
        tokens in the same order when k + 1 allowed tokens with distinct logits are in the shortlist
        (the draw's later samplers see only those k). The grammar judges each token on its own, so
        scanning the shortlist gives the verdicts a whole scan gives for those tokens."""
        import numpy as np

        logits = data["logit"]
        if not self.deciding or len(logits) <= SHORTLIST or not np.isfinite(logits).all():
            return None
        edge = np.partition(logits, len(logits) - SHORTLIST)[len(logits) - SHORTLIST]
        short = data[logits >= edge]  # a copy, in token-id order as in the whole array
        cur = TokenDataArray(short.ctypes.data_as(ctypes.c_void_p), len(short), -1, False)
        library().llama_sampler_apply(self.grammar, ctypes.byref(cur))
        ok = np.isfinite(short["logit"])
        if ok.sum() < self.deciding:
            return None
        if self.deciding > 1:
            top = np.sort(short["logit"][ok])[::-1][: self.deciding]
            if not bool((np.diff(top) < 0).all()):  # a tie among them: its order is the sort's
                return None
        return short["id"][ok]

    def free(self) -> None:
        """Free the chains and the grammar sampler."""
        lib = library()
        for part in (self.first, self.grammar, self.draw_chain):
            if part is not None:
                lib.llama_sampler_free(part)


@dataclass
class Engine:
    """One model file in one llama.cpp context; not thread-safe (callers serialise)."""

    path: Path
    n_ctx: int
    n_threads: int
    n_threads_batch: int
    n_batch: int
    _model: Any = field(default=None, repr=False)
    _ctx: Any = field(default=None, repr=False)
    _vocab: Any = field(default=None, repr=False)
    _batch: Batch | None = field(default=None, repr=False)
    # tokens whose state is in the KV cache, in order
    _evaluated: list[int] = field(default_factory=list, repr=False)
    _last_seed: int = field(default=DEFAULT_SEED, repr=False)
    # the last prompt evaluated (a prefix of `_evaluated`), the logits after its last token (a numpy
    # copy), and whether it was evaluated as a fresh evaluation would be (the same batches)
    _prompt: list[int] = field(default_factory=list, repr=False)
    _prompt_logits: Any = field(default=None, repr=False)
    _exact: bool = field(default=True, repr=False)
    _grammar_masks: GrammarMasks = field(default_factory=lambda: GrammarMasks(), repr=False)

    def __post_init__(self) -> None:
        lib = library()
        self.n_batch = min(self.n_ctx, self.n_batch)
        model_params = lib.llama_model_default_params()
        self._model = lib.llama_model_load_from_file(str(self.path).encode(), model_params)
        if not self._model:
            raise EngineError(f"llama.cpp could not load the model file {self.path}")
        params = lib.llama_context_default_params()
        params.n_ctx, params.n_batch, params.n_ubatch = self.n_ctx, self.n_batch, self.n_batch
        params.n_threads, params.n_threads_batch = self.n_threads, self.n_threads_batch
        params.flash_attn_type = FLASH_ATTN_DISABLED
        self._ctx = lib.llama_init_from_model(self._model, params)
        if not self._ctx:
            lib.llama_model_free(self._model)
            raise EngineError(
                f"llama.cpp could not create a context of {self.n_ctx} tokens for {self.path}"
            )
        self._vocab = lib.llama_model_get_vocab(self._model)
        self._batch = lib.llama_batch_init(self.n_batch, 0, 1)

    def close(self) -> None:
        """Free the context, the batch and the model."""
        lib = library()
        if self._batch is not None:
            lib.llama_batch_free(self._batch)
            self._batch = None
        if self._ctx:
            lib.llama_free(self._ctx)
            self._ctx = None
        if self._model:
            lib.llama_model_free(self._model)
            self._model = None

    def tokenize(self, text: str, add_bos: bool = True) -> list[int]:
        """Token ids of `text` (special tokens parsed), after a BOS token when the model wants one."""
        lib = library()
        data = text.encode("utf-8")
        bos = (
            [lib.llama_vocab_bos(self._vocab)]
            if add_bos and lib.llama_vocab_get_add_bos(self._vocab)
            else []
        )
        size = len(data) + 1
        out = (c_token * size)()
        n = lib.llama_tokenize(self._vocab, data, len(data), out, size, False, True)
        if n < 0:
            size = -n
            out = (c_token * size)()
            n = lib.llama_tokenize(self._vocab, data, len(data), out, size, False, True)
            if n < 0:
                raise EngineError(f"llama.cpp could not tokenize a text of {len(data)} bytes")
        return bos + list(out[:n])

    def piece(self, token: int) -> bytes:
        """The bytes of one token as generated text (special tokens rendered empty)."""
        lib = library()
        buf = ctypes.create_string_buffer(64)
        n = lib.llama_token_to_piece(self._vocab, token, buf, 64, 0, False)
        if n < 0:
            buf = ctypes.create_string_buffer(-n)
            n = lib.llama_token_to_piece(self._vocab, token, buf, -n, 0, False)
        return buf.raw[:n]

    def check_grammar(self, grammar: str) -> None:
        """Raise EngineError when llama.cpp's GBNF parser refuses `grammar` (root rule `root`)."""
        lib = library()
        sampler = lib.llama_sampler_init_grammar(self._vocab, grammar.encode("utf-8"), b"root")
        if not sampler:
            raise EngineError("llama.cpp could not parse the grammar (GBNF) given")
        lib.llama_sampler_free(sampler)

    def _sampler(self, params: SamplingParams, seed: int, grammar: str | None) -> Sampler:
        """A fresh sampler chain in llama-cpp-python's order: penalties, the grammar, then the draw."""
        lib = library()
        n_vocab = lib.llama_vocab_n_tokens(self._vocab)
        compiled = None
        if grammar is not None:
            compiled = lib.llama_sampler_init_grammar(self._vocab, grammar.encode("utf-8"), b"root")
            if not compiled:
                raise EngineError("llama.cpp could not parse the grammar (GBNF) given")
        penalties = lib.llama_sampler_init_penalties(
            n_vocab,
            PENALTY_LAST_N,
            params.repeat_penalty,
            params.frequency_penalty,
            params.presence_penalty,
        )
        deciding = 0  # a plain seeded draw: every allowed token counts
        if params.temperature < 0:
            draw = [lib.llama_sampler_init_dist(seed)]
        elif params.temperature == 0:
            draw, deciding = [lib.llama_sampler_init_greedy()], 1
        else:
            deciding = params.top_k + 1 if params.top_k > 0 else 0
            draw = [
                lib.llama_sampler_init_top_k(params.top_k),
                lib.llama_sampler_init_typical(params.typical_p, 1),
                lib.llama_sampler_init_top_p(params.top_p, 1),
                lib.llama_sampler_init_min_p(params.min_p, 1),
                lib.llama_sampler_init_temp(params.temperature),
                lib.llama_sampler_init_dist(seed),
            ]
        if (
            compiled is None or grammar is None
        ):  # one chain, drawn by llama.cpp from the context's logits
            return Sampler(_chain([penalties, *draw]), n_vocab)
        return Sampler(
            _chain([penalties]),
            n_vocab,
            _chain(draw),
            compiled,
            grammar,
            self._grammar_masks,
            deciding=deciding,
        )

    def _evaluate(self, tokens: list[int]) -> None:
        """Decode `tokens` after the evaluated ones in chunks ending at multiples of `n_batch` positions
        (so a prompt's chunks are the same whatever whole chunks were kept), logits for each chunk's last token."""
        lib = library()
        batch = self._batch
        assert batch is not None
        start = 0
        while start < len(tokens):
            n_past = len(self._evaluated)
            chunk = tokens[start : start + self.n_batch - n_past % self.n_batch]
            start += len(chunk)
            batch.n_tokens = len(chunk)
            for i, token in enumerate(chunk):
                batch.token[i] = token
                batch.pos[i] = n_past + i
                batch.n_seq_id[i] = 1
                batch.seq_id[i][0] = 0
                batch.logits[i] = 0
            batch.logits[len(chunk) - 1] = 1
            code = lib.llama_decode(self._ctx, batch)
            if code != 0:
                self.reset()
                raise EngineError(
                    f"llama.cpp could not evaluate {len(chunk)} tokens (llama_decode returned {code})"
                )
            self._evaluated.extend(chunk)

    def reset(self) -> None:
        """Forget every evaluated token (the next prompt is evaluated from scratch)."""
        lib = library()
        lib.llama_memory_clear(
            lib.llama_get_memory(self._ctx), False
        )  # cells freed; stale data is masked
        self._evaluated, self._prompt, self._prompt_logits, self._exact = [], [], None, True

    def _truncate(self, keep: int) -> bool:
        """Drop the evaluated tokens from position `keep` on; False if llama.cpp cannot (then nothing is kept)."""
        lib = library()
        if keep <= 0 or not lib.llama_memory_seq_rm(lib.llama_get_memory(self._ctx), -1, keep, -1):
            self.reset()
            return False
        del self._evaluated[keep:]
        if len(self._prompt) > keep:
            self._prompt, self._prompt_logits = [], None
        return True

    def _keep_prefix(self, tokens: list[int], any_length: bool) -> int:
        """Keep what of the evaluated tokens `tokens` can reuse (see module docstring); how many."""
        common = 0
        for a, b in zip(self._evaluated, tokens, strict=False):
            if a != b:
                break
            common += 1
        common = min(common, len(tokens) - 1)
        if (
            not any_length
        ):  # whole chunks the last prompt's evaluation computed as a fresh one would
            common = (
                min(common, len(self._prompt)) // self.n_batch * self.n_batch if self._exact else 0
            )
        return common if self._truncate(common) else 0

    def _last_logits(self) -> Any:
        """A copy of the logits after the last evaluated token."""
        import numpy as np

        lib = library()
        n_vocab = lib.llama_vocab_n_tokens(self._vocab)
        return np.ctypeslib.as_array(
            lib.llama_get_logits_ith(self._ctx, -1), shape=(n_vocab,)
        ).copy()

    def complete(
        self,
        prompt: str,
        max_tokens: int,
        stop: list[str],
        params: SamplingParams,
        grammar: str | None = None,
        reuse_prefix: bool = False,
    ) -> Completion:
        """Complete `prompt` (see module docstring); a prompt that does not fit the context is a ValueError."""
        tokens = self.tokenize(prompt)
        if len(tokens) >= self.n_ctx:
            raise ValueError(
                f"Requested tokens ({len(tokens)}) exceed context window of {self.n_ctx}"
            )
        if max_tokens <= 0 or max_tokens + len(tokens) >= self.n_ctx:
            max_tokens = self.n_ctx - len(tokens)
        if params.seed is not None:
            seed = params.seed
        else:  # as llama-cpp-python: a seed drawn from the previous one
            seed = random.Random(self._last_seed).randint(0, 2**32)
        self._last_seed = seed
        sampler = self._sampler(params, seed & 0xFFFFFFFF, grammar)
        try:
            start = time.perf_counter()
            if (
                tokens == self._prompt
                and (reuse_prefix or self._exact)
                and self._truncate(len(tokens))
            ):
                kept, logits = len(tokens), self._prompt_logits  # the last prompt again
            else:
                exact = self._exact
                kept = self._keep_prefix(tokens, reuse_prefix)
                self._evaluate(tokens[kept:])
                logits = None
                self._prompt, self._prompt_logits = list(tokens), self._last_logits()
                self._exact = kept == 0 or (exact and kept % self.n_batch == 0)
            prefill = time.perf_counter() - start
            text, finish, generated = self._generate(
                sampler, max_tokens, [s.encode("utf-8") for s in stop], logits
            )
            decode = time.perf_counter() - start - prefill
        finally:
            sampler.free()
        return Completion(text, finish, len(tokens), generated, len(tokens) - kept, prefill, decode)

    def _generate(
        self, sampler: Sampler, max_tokens: int, stops: list[bytes], logits: Any = None
    ) -> tuple[str, str, int]:
        """Draw tokens until an end-of-generation token, a stop string or `max_tokens`: (text, reason, count).

        The first token is drawn from `logits` when given (saved ones), else from the context's.
        As llama-cpp-python: the first stop string in list order that occurs cuts the text, and
        while the text ends inside a multi-byte UTF-8 character neither stops nor the budget are checked.
        """
        lib = library()
        out = b""
        count = 0
        pending = 0
        while True:
            token, logits = sampler.draw(self._ctx, logits), None
            if lib.llama_vocab_is_eog(self._vocab, token):
                return out.decode("utf-8", errors="ignore"), "stop", count
            count += 1
            out += self.piece(token)
            pending = unfinished_utf8(out, pending)
            if pending > 0:
                pending -= 1
            else:
                hit = next((s for s in stops if s in out), None)
                if hit is not None:
                    return out[: out.index(hit)].decode("utf-8", errors="ignore"), "stop", count
                if count >= max_tokens:
                    return out.decode("utf-8", errors="ignore"), "length", count
            self._evaluate([token])


def unfinished_utf8(text: bytes, pending: int) -> int:
    """Tokens still to wait for because `text` ends inside a multi-byte UTF-8 character (llama-cpp-python's rule)."""
    for k, byte in enumerate(text[-3:]):
        k = 3 - k
        for num, pattern in ((2, 192), (3, 224), (4, 240)):
            if num > k and pattern & byte == pattern:
                pending = num - k
    return pending
