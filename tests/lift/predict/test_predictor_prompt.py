"""The predictor prompt, the per-cut seed, the sampling request and Z's clean-up (no model)."""

from __future__ import annotations

import hashlib

import pytest

from readout_audit.lift import clean_forecast, forecast_seed, predictor_prompt
from readout_audit.lift._predict import default_max_new_tokens, default_setting, target_chars
from readout_audit.model import GenerationSettings
from readout_audit.model._served import sampling_fields

EXPECTED_EQUATION_PROMPT = r"""You are given recent context from a technical paper and the beginning of a LaTeX display equation.
Continue the equation from exactly where it stops, in about 140 characters or fewer.
Write only the continuation. Do not write explanatory prose. Do not write \end{align}.

Recent paper context:
Let us first take the following ansatz for the eigenfunctions,
\begin{equation}
	\Psi_\lambda(z)=\sum_{n\geq 0} q^n J_{\lambda,n}(z)\,.
\end{equation}
Here $J_\lambda(z)$ denotes the $A_1$ Jack polynomials, the well-known
eigenfunctions of the Lam\'{e} equation in the limit $q\rightarrow 0$.
The first few Jack polynomials take the following form.

Equation prefix:
\begin{align}
J^{(\alpha)}_0(z)&=1~,\nonumber\\
	J^{(\alpha)}_1(z)&=z+\frac{1}{z}~,\\
	J^{(\alpha)}_2(z)&=z^2+\frac{1}{z^2}+\frac{2 \alpha }{\alpha +"""  # noqa: E501


def test_equation_prompt_is_appendix_c_with_the_target_length_rounded_up(make_cut):
    cut = make_cut()
    assert len(cut.target) == 132
    assert target_chars(cut) == 140
    assert predictor_prompt(cut) == EXPECTED_EQUATION_PROMPT
    assert cut.target not in predictor_prompt(cut)


@pytest.mark.parametrize(("length", "asked"), [(50, 50), (51, 60), (130, 130), (400, 400)])
def test_target_chars_rounds_up_to_tens(make_cut, length, asked):
    cut = make_cut(target="x" * length)
    assert target_chars(cut) == asked
    assert default_max_new_tokens(cut) == asked // 2 + 16


def test_prose_prompt_asks_for_1800_characters_after_the_context(make_cut):
    cut = make_cut("block3", kind="prose")
    prompt = predictor_prompt(cut)
    assert prompt.startswith(
        "You are given recent context from a technical paper, written in LaTeX.\n"
        "Continue the paper from exactly where it stops, in about 1800 characters or fewer.\n"
        "Write only the continuation, as LaTeX source. Do not comment on the paper or the task."
        "\n\nRecent paper context:\nLet us first take"
    )
    assert prompt.endswith("take the following form.")
    assert default_max_new_tokens(cut) == 916


def test_forecast_seed_is_sha256_of_seed_and_cut_id():
    def independent(seed: int, cut_id: str) -> int:
        return int(hashlib.sha256(f"{seed}:{cut_id}".encode()).hexdigest()[:8], 16) // 2

    assert forecast_seed(0, "2604.19885:eq7") == 1532604078
    assert forecast_seed(3, "2604.19885:eq7") == 1753989560
    for seed, cut_id in [(0, "a:eq1"), (1, "a:eq1"), (0, "a:eq2"), (12345, "ünï:block9")]:
        assert forecast_seed(seed, cut_id) == independent(seed, cut_id)
        assert 0 <= forecast_seed(seed, cut_id) < 2**31


CLOSE = "\\end{align}"


@pytest.mark.parametrize(
    ("raw", "z"),
    [
        ("1}~,\\nonumber", "1}~,\\nonumber"),
        (" 1}\n\\end{align}", " 1}"),  # leading space kept, the one before the close dropped
        ("1}~.\n\\end{align}\nwhere $\\alpha>0$.", "1}~."),
        ("```latex\n1}~,\\\\\nJ_3\n```", "1}~,\\\\\nJ_3"),
        ("```\n1}\n\\end{align}\n```\n", "1}"),
        ("<think>the next one is J_3</think>\n1}~,", "1}~,"),
        ("<think>still thinking about J_3", ""),
        ("", ""),
        ("1} ```", "1} ```"),  # a fence that does not enclose the text stays
    ],
)
def test_clean_forecast(raw, z):
    assert clean_forecast(raw, CLOSE) == z


def test_clean_forecast_of_a_prose_cut_cuts_at_no_delimiter():
    assert clean_forecast("text \\end{align} more", "") == "text \\end{align} more"


def test_sampling_fields_ask_every_server_for_pure_sampling():
    pure = GenerationSettings(do_sample=True, temperature=1.0, top_k=0, top_p=1.0)
    assert sampling_fields("llama-cpp-python", pure) == {
        "temperature": 1.0,
        "top_p": 1.0,
        "top_k": 0,
        "min_p": 0.0,
        "repeat_penalty": 1.0,
    }
    assert sampling_fields("vllm", pure) == {
        "temperature": 1.0,
        "top_p": 1.0,
        "top_k": -1,
        "min_p": 0.0,
        "repetition_penalty": 1.0,
    }
    assert sampling_fields("openai", pure) == {"temperature": 1.0, "top_p": 1.0}
    polygraph = GenerationSettings(do_sample=True, top_k=50, repetition_penalty=1.2)
    assert sampling_fields("openai", polygraph) == {
        "temperature": 1.0,
        "top_p": 1.0,
        "top_k": 50,
        "repetition_penalty": 1.2,
    }
    greedy = GenerationSettings(do_sample=False)
    assert sampling_fields("llama.cpp", greedy) == {"temperature": 0.0, "repeat_penalty": 1.0}
    assert sampling_fields("openai", greedy) == {"temperature": 0.0}


@pytest.mark.parametrize(
    ("spec", "setting"),
    [
        ("smollm2-135m", "smollm2-135m-t1"),
        ("hf:Qwen/Qwen3-8B@main", "qwen3-8b-main-t1"),
        ("gguf:/models/SmolLM2-135M-Instruct.Q4_1.gguf", "smollm2-135m-instruct.q4_1-t1"),
        ("openai:http://127.0.0.1:8080/v1#smollm2", "smollm2-t1"),
    ],
)
def test_default_setting_names_the_model(spec, setting):
    assert default_setting(spec) == setting
