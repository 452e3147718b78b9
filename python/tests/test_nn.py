"""ladder.nn.Linear, ladder.nn.SwiGLU and ladder.patch on CPU (the ops' fp32 reference kernel runs them).

Skips without torch; the Hugging Face tests also skip without transformers. test_gpu_ops.py runs the
same modules through libladder.
"""
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (CI has none; these run where it is)")
import torch.nn.functional as F  # noqa: E402

import ladder  # noqa: E402
import ladder.nn  # noqa: E402

CPU = ("cpu",)  # patch only replaces CUDA modules unless told otherwise


def rel_err(got, ref):
    return (torch.linalg.norm(got.float() - ref.float()) / torch.linalg.norm(ref.float())).item()


def test_linear_is_an_nn_linear_with_the_same_parameters_and_init():
    torch.manual_seed(0)
    plain = torch.nn.Linear(64, 32, dtype=torch.bfloat16)
    torch.manual_seed(0)
    ours = ladder.nn.Linear(64, 32, dtype=torch.bfloat16)
    assert isinstance(ours, torch.nn.Linear)
    assert torch.equal(plain.weight, ours.weight) and torch.equal(plain.bias, ours.bias)
    assert ours.state_dict().keys() == plain.state_dict().keys()
    assert "activation" not in repr(ours)
    assert "activation='silu'" in repr(ladder.nn.Linear(4, 4, activation="silu"))
    with pytest.raises(ValueError, match="activation must be one of"):
        ladder.nn.Linear(4, 4, activation="tanh")


def test_from_linear_shares_the_tensors_and_matches_the_forward():
    plain = torch.nn.Linear(64, 48, dtype=torch.bfloat16)
    ours = ladder.nn.Linear.from_linear(plain)
    assert ours.weight is plain.weight and ours.bias is plain.bias
    nobias = ladder.nn.Linear.from_linear(torch.nn.Linear(64, 48, bias=False))
    assert nobias.bias is None and "bias" in nobias._parameters  # registered as None, like nn.Linear's
    x = torch.randn(2, 5, 64).bfloat16()
    assert rel_err(ours(x), plain(x)) < 8e-3  # both round to bf16 from fp32 accumulation
    residual = torch.randn(2, 5, 48).bfloat16()
    gelu = ladder.nn.Linear.from_linear(plain, activation="gelu_tanh")
    assert rel_err(gelu(x, residual), F.gelu(plain(x).float(), approximate="tanh") + residual.float()) < 8e-3
    with pytest.raises(TypeError, match="takes a torch.nn.Linear"):
        ladder.nn.Linear.from_linear(torch.nn.ReLU())


def test_fp32_weights_and_mismatched_autocast_use_torch():
    plain = torch.nn.Linear(16, 8)
    ours = ladder.nn.Linear.from_linear(plain, activation="relu")
    x = torch.randn(3, 16)
    assert torch.equal(ours(x), torch.relu(plain(x)))
    half = ladder.nn.Linear.from_linear(torch.nn.Linear(16, 8, dtype=torch.bfloat16))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert half(torch.randn(3, 16)).dtype == torch.bfloat16  # fp32 input cast to the weight's dtype


def test_patch_replaces_every_eligible_linear_and_says_why_it_left_the_rest():
    shared = torch.nn.Linear(32, 32)
    model = torch.nn.ModuleDict({
        "a": torch.nn.Sequential(shared, torch.nn.ReLU(), torch.nn.Linear(32, 16)),
        "b": shared,                                               # the same module under a second name
        "fp32": torch.nn.Linear(32, 8, dtype=torch.float32),
        "mha": torch.nn.MultiheadAttention(32, 4),                 # out_proj subclasses nn.Linear
        "hooked": torch.nn.Linear(32, 8),
    }).bfloat16()
    model["fp32"].float()
    model["hooked"].register_forward_hook(lambda *args: None)
    report = ladder.patch(model, devices=CPU)
    assert sorted(n for n, _ in report.replaced) == ["a.0", "a.2"]
    assert model["a"][0] is model["b"] and isinstance(model["b"], ladder.nn.Linear)
    assert model["b"].weight is shared.weight
    why = dict(report.skipped)
    assert "weight is torch.float32" in why["fp32"]
    assert "subclasses nn.Linear" in why["mha.out_proj"]
    assert "has hooks" in why["hooked"]
    text = str(report)
    assert text.startswith("ladder.patch: 2 nn.Linear replaced by ladder.nn.Linear, 0 MLPs fused")
    assert "left fp32: weight is torch.float32" in text
    again = ladder.patch(model, devices=CPU)  # already patched: nothing to do, nothing to report as left
    assert again.replaced == [] and "a.0" not in dict(again.skipped)


def test_patch_leaves_cpu_weights_by_default_and_honours_include():
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Linear(8, 8)).half()
    report = ladder.patch(model)
    assert report.replaced == [] and all("weight on cpu" in why for _, why in report.skipped)
    report = ladder.patch(model, devices=CPU, include=lambda name, m: name != "1")
    assert [n for n, _ in report.replaced] == ["0"] and dict(report.skipped)["1"] == "excluded by include()"
    with pytest.raises(TypeError, match="from_linear"):
        ladder.patch(torch.nn.Linear(8, 8))


class TinyMLP(torch.nn.Module):
    def __init__(self, hidden=32, inter=48, swapped=False):
        super().__init__()
        self.gate_proj = torch.nn.Linear(hidden, inter, bias=False)
        self.up_proj = torch.nn.Linear(hidden, inter, bias=False)
        self.down_proj = torch.nn.Linear(inter, hidden, bias=False)
        self.act_fn = torch.nn.SiLU()
        self.swapped = swapped

    def forward(self, x):
        if self.swapped:  # looks like a Llama MLP, computes something else
            return self.down_proj(self.act_fn(self.up_proj(x)) * self.gate_proj(x))
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))


def test_fuse_swiglu_keeps_outputs_and_state_dict_keys():
    torch.manual_seed(0)
    model = torch.nn.Sequential(TinyMLP(), TinyMLP(swapped=True)).bfloat16()
    x = torch.randn(3, 32).bfloat16()
    expected = model(x)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    report = ladder.patch(model, fuse_swiglu=True, devices=CPU)
    assert isinstance(model[0], ladder.nn.SwiGLU) and not isinstance(model[1], ladder.nn.SwiGLU)
    assert [n for n, _ in report.fused] == ["0"] and "copied" in report.fused[0][1]
    assert "not fused: its forward is not down_proj(silu(gate_proj(x)) * up_proj(x))" in dict(report.skipped)["1"]
    assert sorted(n for n, _ in report.replaced) == ["1.down_proj", "1.gate_proj", "1.up_proj"]
    assert rel_err(model(x), expected) < 2e-2
    assert model.state_dict().keys() == state.keys()
    assert all(torch.equal(model.state_dict()[k], v) for k, v in state.items())
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
    model.load_state_dict(state)  # the unfused checkpoint loads into the fused module
    assert rel_err(model(x), expected) < 2e-2


transformers = None
try:
    import transformers  # noqa: F811
except ImportError:
    pass
needs_transformers = pytest.mark.skipif(transformers is None, reason="transformers is not installed")


def tiny_llama(dtype=torch.bfloat16):
    config = transformers.LlamaConfig(hidden_size=64, intermediate_size=96, num_attention_heads=4,
                                      num_key_value_heads=2, num_hidden_layers=2, vocab_size=128,
                                      max_position_embeddings=64)
    torch.manual_seed(0)
    return transformers.LlamaForCausalLM(config).to(dtype).eval()


@needs_transformers
@pytest.mark.parametrize("fuse", [False, True])
def test_patched_llama_matches_and_compiles_without_graph_breaks(fuse):
    model = tiny_llama()
    ids = torch.randint(0, 128, (2, 9), generator=torch.Generator().manual_seed(1))
    with torch.inference_mode():
        expected = model(ids).logits.float()
    report = ladder.patch(model, fuse_swiglu=fuse, devices=CPU)
    # q, k, v, o, (gate, up, down: in the fused MLP) per layer, and lm_head
    assert len(report.replaced) == (4 if fuse else 7) * 2 + 1 and len(report.fused) == (2 if fuse else 0)
    assert report.skipped == []
    with torch.inference_mode():
        got = model(ids).logits.float()
        assert rel_err(got, expected) < 2e-2
        torch._dynamo.reset()
        explain = torch._dynamo.explain(model)(ids)
        assert explain.graph_break_count == 0, explain.break_reasons
        compiled = torch.compile(model, fullgraph=True, backend="aot_eager")
        assert rel_err(compiled(ids).logits.float(), got) < 1e-3
