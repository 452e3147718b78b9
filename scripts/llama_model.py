#!/usr/bin/env python3
"""A Llama-architecture model with every linear through ladder, against the same model in torch (issues 11, 12).

The model: LlamaForCausalLM from transformers, built from a config with random weights (nothing is
downloaded): hidden 4096, intermediate 14336, 32 heads / 8 KV heads, 4 layers, vocabulary 32000. Without a
working transformers (or with --impl mini) a hand-written Llama with the same module names and math is used.
ladder.patch replaces the linears ("ladder"); "ladder_fused" also fuses each MLP's gate/up into one SwiGLU
GEMM and adds the residuals in the o_proj / down_proj epilogues (decode loop only).

Parts (--parts, all by default):
  fp16     prefill of 512 tokens (tokens/s; eager and CUDA-graph replayed) and decode with CUDA-graph replay
           at batch 1, 8, 32 (tokens/s), torch vs ladder vs ladder_fused. Decode is a hand-written loop over
           the model's own modules with a static KV cache (checked against the model's forward first).
  bf16     the same in bf16, and the logits of torch bf16 and ladder bf16 against an fp32 copy of the model
           (normwise error, top-1 agreement with fp32); ladder's error must be in line with torch's (<= 1.25x).
  compile  torch.compile(fullgraph=True) of the patched bf16 model: it compiles only without graph breaks
           (where it fails, torch._dynamo.explain counts them), compile time, prefill speed against eager and
           against torch.compile of the torch model.

    python3 scripts/llama_model.py --out docs/results/llama-model.json --commit $(git rev-parse --short=12 HEAD)
    python3 scripts/llama_model.py --dry-run --out /tmp/llama.json      # CPU, tiny model, no graphs

Writes JSON and CSV (rows: part, variant, metric, value) and prints a table last. About 2-3 minutes on an
H200 (most of it torch.compile). Failures are reported per part; the run goes on.
"""
from __future__ import annotations

import argparse
import copy
import statistics
import sys
import time
from pathlib import Path

import torch_timing as tt


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, required=True, help="JSON path (the CSV goes beside it)")
    p.add_argument("--commit", help="git commit of the code (default: $LADDER_COMMIT, git, or the build stamp)")
    p.add_argument("--parts", default="fp16,bf16,compile")
    p.add_argument("--impl", choices=("auto", "hf", "mini"), default="auto",
                   help="transformers' LlamaForCausalLM (hf), the hand-written one (mini), or hf if it works")
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--hidden", type=int, default=4096)
    p.add_argument("--intermediate", type=int, default=14336)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--kv-heads", type=int, default=8)
    p.add_argument("--vocab", type=int, default=32000)
    p.add_argument("--prefill", type=int, default=512, help="prefill tokens (batch 1)")
    p.add_argument("--batches", default="1,8,32", help="decode batch sizes")
    p.add_argument("--context", type=int, default=512, help="tokens already in the KV cache when decode is timed")
    p.add_argument("--steps", type=int, default=32, help="decode steps per timed graph replay run")
    p.add_argument("--accuracy-tokens", type=int, default=128, help="sequence length of the bf16 logits check")
    p.add_argument("--no-compile-baseline", action="store_true", help="do not compile the torch model")
    p.add_argument("--compile-fused", action="store_true", help="also compile the ladder_fused model")
    p.add_argument("--compile-backend", default=None)
    p.add_argument("--dry-run", action="store_true", help="CPU, tiny model, eager decode: exercises every path")
    args = p.parse_args(argv)
    if args.dry_run:
        args.layers, args.hidden, args.intermediate, args.heads, args.kv_heads, args.vocab = 2, 64, 96, 4, 2, 128
        args.prefill, args.batches, args.context, args.steps, args.accuracy_tokens = 16, "1,2", 8, 3, 12
        args.compile_backend = args.compile_backend or "eager"
    args.compile_backend = args.compile_backend or "inductor"
    return args


# ---- the hand-written Llama (transformers' module names and math) ---------------------------------------------

def build_mini(torch, args):
    nn, F = torch.nn, torch.nn.functional
    head_dim = args.hidden // args.heads

    class RMSNorm(nn.Module):
        def __init__(self, n, eps=1e-6):
            super().__init__()
            self.weight, self.variance_epsilon = nn.Parameter(torch.ones(n)), eps

        def forward(self, x):
            dtype = x.dtype
            x = x.float()
            x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.variance_epsilon)
            return self.weight * x.to(dtype)

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.q_proj = nn.Linear(args.hidden, args.heads * head_dim, bias=False)
            self.k_proj = nn.Linear(args.hidden, args.kv_heads * head_dim, bias=False)
            self.v_proj = nn.Linear(args.hidden, args.kv_heads * head_dim, bias=False)
            self.o_proj = nn.Linear(args.heads * head_dim, args.hidden, bias=False)

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.gate_proj = nn.Linear(args.hidden, args.intermediate, bias=False)
            self.up_proj = nn.Linear(args.hidden, args.intermediate, bias=False)
            self.down_proj = nn.Linear(args.intermediate, args.hidden, bias=False)
            self.act_fn = nn.SiLU()

        def forward(self, x):
            return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.self_attn, self.mlp = Attention(), MLP()
            self.input_layernorm, self.post_attention_layernorm = RMSNorm(args.hidden), RMSNorm(args.hidden)

    class Rotary(nn.Module):
        def __init__(self, theta=10000.0):
            super().__init__()
            self.register_buffer("inv_freq", 1.0 / theta ** (torch.arange(0, head_dim, 2).float() / head_dim),
                                 persistent=False)

    class Body(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed_tokens = nn.Embedding(args.vocab, args.hidden)
            self.layers = nn.ModuleList(Layer() for _ in range(args.layers))
            self.norm, self.rotary_emb = RMSNorm(args.hidden), Rotary()

    class MiniLlama(nn.Module):
        def __init__(self):
            super().__init__()
            self.model, self.lm_head = Body(), nn.Linear(args.hidden, args.vocab, bias=False)
            for name, p in self.named_parameters():
                if p.dim() == 2:
                    nn.init.normal_(p, std=0.02)  # transformers' initializer_range

        def forward(self, ids, logits_to_keep=0):
            m = self.model
            x = m.embed_tokens(ids)
            b, t, _ = x.shape
            freqs = torch.arange(t, device=x.device, dtype=torch.float32)[:, None] * m.rotary_emb.inv_freq
            emb = torch.cat([freqs, freqs], dim=-1)
            cos, sin = emb.cos().to(x.dtype), emb.sin().to(x.dtype)
            for layer in m.layers:
                a = layer.self_attn
                h = layer.input_layernorm(x)
                q = a.q_proj(h).view(b, t, args.heads, head_dim).transpose(1, 2)
                k = a.k_proj(h).view(b, t, args.kv_heads, head_dim).transpose(1, 2)
                v = a.v_proj(h).view(b, t, args.kv_heads, head_dim).transpose(1, 2)
                q, k = q * cos + rotate_half(torch, q) * sin, k * cos + rotate_half(torch, k) * sin
                o = attention(torch, F, q, k, v, None)
                x = x + a.o_proj(o.transpose(1, 2).reshape(b, t, -1))
                x = x + layer.mlp(layer.post_attention_layernorm(x))
            x = m.norm(x)
            return self.lm_head(x[:, -logits_to_keep:] if logits_to_keep else x)

    return MiniLlama()


def rotate_half(torch, x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


def attention(torch, F, q, k, v, mask):
    """Scaled dot-product attention with grouped KV heads (causal when mask is None)."""
    try:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=mask is None, enable_gqa=True)
    except TypeError:  # torch without enable_gqa
        rep = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=mask is None)


def build_hf(torch, args):
    import transformers
    config = transformers.LlamaConfig(
        hidden_size=args.hidden, intermediate_size=args.intermediate, num_attention_heads=args.heads,
        num_key_value_heads=args.kv_heads, num_hidden_layers=args.layers, vocab_size=args.vocab,
        max_position_embeddings=max(4096, args.prefill, args.context + args.steps * 4 + 64),
        tie_word_embeddings=False)
    try:
        config._attn_implementation = "sdpa"
    except Exception:  # the default (sdpa where available) then
        pass
    model = transformers.LlamaForCausalLM(config)
    attn = getattr(model.config, "_attn_implementation", "?")
    return model, f"transformers {transformers.__version__} LlamaForCausalLM ({attn} attention)"


class Model:
    """A built model and how to call it: logits(ids, keep) = the forward with no cache."""

    def __init__(self, torch, module, hf: bool):
        self.torch, self.module, self.hf = torch, module, hf

    def logits(self, ids, keep=0, module=None):
        m = self.module if module is None else module
        if self.hf:
            return m(input_ids=ids, use_cache=False, logits_to_keep=keep).logits
        return m(ids, keep)


# ---- decode: a static KV cache and one token per step, over the model's own modules ---------------------------

class StaticDecoder:
    """One decode step for ``batch`` sequences at position ``pos`` (a device tensor), graph-capturable: the KV
    cache, the position and the next token ids are static tensors updated in place. With ``fused`` and ladder
    modules, the residual adds go into the o_proj and down_proj epilogues."""

    def __init__(self, torch, model, args, batch, max_len, dtype, device, fused=False):
        import ladder
        self.torch, self.F, self.ladder = torch, torch.nn.functional, ladder
        self.model, self.batch, self.fused = model, batch, fused
        self.heads, self.kv_heads, self.head_dim = args.heads, args.kv_heads, args.hidden // args.heads
        shape = (batch, self.kv_heads, max_len, self.head_dim)
        self.k = [torch.zeros(shape, dtype=dtype, device=device) for _ in model.model.layers]
        self.v = [torch.zeros(shape, dtype=dtype, device=device) for _ in model.model.layers]
        self.pos = torch.zeros((), dtype=torch.long, device=device)
        self.ids = torch.zeros((batch, 1), dtype=torch.long, device=device)
        self.slots = torch.arange(max_len, device=device)
        self.inv_freq = model.model.rotary_emb.inv_freq.to(device=device, dtype=torch.float32)

    def _add(self, proj, x, residual):
        if self.fused and isinstance(proj, self.ladder.nn.Linear):
            return proj(x, residual=residual)
        return residual + proj(x)

    def _mlp(self, mlp, h, residual):
        if self.fused and isinstance(mlp, self.ladder.nn.SwiGLU):
            return mlp(h, residual=residual)
        return residual + mlp(h)

    def step(self):
        torch, m, b = self.torch, self.model.model, self.batch
        x = m.embed_tokens(self.ids)                                        # [B, 1, H]
        freqs = self.pos.to(torch.float32) * self.inv_freq
        emb = torch.cat([freqs, freqs])
        cos, sin = emb.cos().to(x.dtype), emb.sin().to(x.dtype)
        mask = (self.slots <= self.pos)[None, None, None, :]               # the filled cache slots
        where = self.pos.view(1)
        for i, layer in enumerate(m.layers):
            a = layer.self_attn
            h = layer.input_layernorm(x)
            q = a.q_proj(h).view(b, 1, self.heads, self.head_dim).transpose(1, 2)
            k = a.k_proj(h).view(b, 1, self.kv_heads, self.head_dim).transpose(1, 2)
            v = a.v_proj(h).view(b, 1, self.kv_heads, self.head_dim).transpose(1, 2)
            q, k = q * cos + rotate_half(torch, q) * sin, k * cos + rotate_half(torch, k) * sin
            self.k[i].index_copy_(2, where, k)
            self.v[i].index_copy_(2, where, v)
            o = attention(torch, self.F, q, self.k[i], self.v[i], mask)
            x = self._add(a.o_proj, o.transpose(1, 2).reshape(b, 1, -1), x)
            x = self._mlp(layer.mlp, layer.post_attention_layernorm(x), x)
        logits = self.model.lm_head(m.norm(x))[:, -1, :]
        self.ids.copy_(logits.argmax(-1, keepdim=True))                   # greedy: the next step's input
        self.pos += 1
        return logits


# ---- the run ------------------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    args = parse(argv)
    import torch

    import ladder

    device = tt.gpu_or_cpu(torch, args.dry_run, "llama_model")
    if device is None:
        return 2
    meta = tt.provenance(torch, args.commit, device)
    meta.update(script="scripts/llama_model.py", argv=sys.argv[1:] if argv is None else list(argv),
                dry_run=args.dry_run, config=dict(layers=args.layers, hidden=args.hidden,
                                                  intermediate=args.intermediate, heads=args.heads,
                                                  kv_heads=args.kv_heads, vocab=args.vocab))
    rows = []
    cuda = device.type == "cuda"
    patch_devices = ("cuda",) if cuda else ("cpu",)
    batches = [int(b) for b in args.batches.split(",")]
    parts = args.parts.split(",")

    def add(part, variant, metric, value, **extra):
        rows.append(dict(part=part, variant=variant, metric=metric, value=value, **extra))
        print(f"  {part:8} {variant:13} {metric:34} {value}", flush=True)

    def sync():
        if cuda:
            torch.cuda.synchronize()

    # The model, built once in fp32 on the device: the accuracy reference, and copied to fp16 / bf16.
    t0 = time.perf_counter()
    torch.manual_seed(0)
    built = None
    if args.impl in ("auto", "hf"):
        try:
            with torch.device(device):
                module, meta["model"] = build_hf(torch, args)
            built = Model(torch, module.eval(), hf=True)
        except Exception as e:
            if args.impl == "hf":
                raise
            meta["model_fallback_reason"] = f"{type(e).__name__}: {e}"
    if built is None:
        with torch.device(device):
            built = Model(torch, build_mini(torch, args).eval(), hf=False)
        meta["model"] = "hand-written Llama (transformers' module names and math)"
    meta["build_s"] = round(time.perf_counter() - t0, 1)
    fp32 = built.module
    meta["parameters"] = sum(p.numel() for p in fp32.parameters())
    print(f"model: {meta['model']}, {meta['parameters'] / 1e9:.2f} B parameters", flush=True)

    def variants(dtype):
        """torch, ladder (patched) and ladder_fused (patched with fuse_swiglu) copies in ``dtype``."""
        base = copy.deepcopy(fp32).to(dtype)
        out = {"torch": base}
        for name, fuse in (("ladder", False), ("ladder_fused", True)):
            m = copy.deepcopy(base)
            report = ladder.patch(m, fuse_swiglu=fuse, devices=patch_devices)
            meta[f"patch_{name}_{str(dtype).replace('torch.', '')}"] = str(report)
            out[name] = m
        return out

    def graphed(fn):
        """fn captured in a CUDA graph (tt.graphed); on the CPU (dry run) fn itself."""
        return tt.graphed(torch, fn) if cuda else (fn, None)

    def timed(fn, reps):
        """Median milliseconds of fn() over reps samples."""
        clock = tt.Clock(torch, device)
        fn()
        return statistics.median(clock.ms([clock.sample(fn) for _ in range(reps)]))

    def prefill(part, models, dtype):
        ids = torch.randint(0, args.vocab, (1, args.prefill), device=device,
                            generator=torch.Generator(device=device).manual_seed(1))
        for name, m in models.items():
            ms = timed(lambda: built.logits(ids, 1, m), 10)
            add(part, name, f"prefill{args.prefill}_eager_tokens_per_s", args.prefill / ms * 1e3, ms=ms)
            if cuda:
                try:
                    replay, _ = graphed(lambda: built.logits(ids, 1, m))
                    ms = timed(replay, 10)
                    add(part, name, f"prefill{args.prefill}_graph_tokens_per_s", args.prefill / ms * 1e3, ms=ms)
                except Exception as e:
                    add(part, name, f"prefill{args.prefill}_graph_tokens_per_s", None,
                        status=f"error: {type(e).__name__}: {e}")

    def decode(part, models, dtype):
        max_len = args.context + args.steps * 4 + 16
        # The decode loop against the model's own forward: a short prompt fed one token at a time.
        prompt = torch.randint(0, args.vocab, (1, 8), device=device,
                               generator=torch.Generator(device=device).manual_seed(2))
        for name, m in models.items():
            dec = StaticDecoder(torch, m, args, 1, max_len, dtype, device, fused=name == "ladder_fused")
            for t in range(prompt.shape[1]):
                dec.ids.copy_(prompt[:, t:t + 1])
                last = dec.step()
            ref = built.logits(prompt, 1, m)[:, -1, :]
            add(part, name, "decode_loop_vs_forward_rel_err", tt.rel_err(last, ref))
        for b in batches:
            for name, m in models.items():
                dec = StaticDecoder(torch, m, args, b, max_len, dtype, device, fused=name == "ladder_fused")
                g = torch.Generator(device=device).manual_seed(3)
                for cache in dec.k + dec.v:  # a filled context (its values do not change the cost)
                    cache.normal_(generator=g)
                dec.ids.copy_(torch.randint(0, args.vocab, (b, 1), device=device, generator=g))
                replay, _ = graphed(dec.step)

                def run():
                    dec.pos.fill_(args.context)
                    for _ in range(args.steps):
                        replay()

                ms = timed(run, 5)
                add(part, name, f"decode_b{b}_tokens_per_s", b * args.steps / ms * 1e3,
                    ms_per_step=ms / args.steps, graph=cuda, context=args.context)
        if cuda:
            torch.cuda.empty_cache()

    def speedups(part):
        by = {(r["variant"], r["metric"]): r["value"] for r in rows if r["part"] == part}
        for (variant, metric), value in list(by.items()):
            base = by.get(("torch", metric))
            if variant != "torch" and metric.endswith("tokens_per_s") and value and base:
                add(part, variant, metric.replace("tokens_per_s", "speedup_vs_torch"), value / base)

    def run_part(part, fn):
        tt.guarded(rows, dict(part=part, variant="", metric="part"), fn)
        return []

    with torch.inference_mode():
        if "fp16" in parts:
            def fp16_part():
                models = variants(torch.float16)
                prefill("fp16", models, torch.float16)
                decode("fp16", models, torch.float16)
                speedups("fp16")
                return []
            print("fp16", flush=True)
            run_part("fp16", fp16_part)

        if "bf16" in parts or "compile" in parts:
            bf16 = {}

            def bf16_part():
                bf16.update(variants(torch.bfloat16))
                if "bf16" not in parts:
                    return []
                ids = torch.randint(0, args.vocab, (2, args.accuracy_tokens), device=device,
                                    generator=torch.Generator(device=device).manual_seed(4))
                ref = built.logits(ids, 0, fp32).float()
                top1 = ref.argmax(-1)
                errs = {}
                for name, m in bf16.items():
                    got = built.logits(ids, 0, m).float()
                    errs[name] = tt.rel_err(got, ref)
                    add("bf16", name, "logits_rel_err_vs_fp32", errs[name])
                    add("bf16", name, "top1_agreement_with_fp32", (got.argmax(-1) == top1).float().mean().item())
                for name in ("ladder", "ladder_fused"):
                    add("bf16", name, "error_in_line_with_torch_bf16", errs[name] <= 1.25 * errs["torch"],
                        ratio=errs[name] / errs["torch"])
                prefill("bf16", bf16, torch.bfloat16)
                decode("bf16", bf16, torch.bfloat16)
                speedups("bf16")
                return []
            print("bf16", flush=True)
            run_part("bf16", bf16_part)

            if "compile" in parts and bf16:
                def compile_part():
                    ids = torch.randint(0, args.vocab, (1, args.prefill), device=device,
                                        generator=torch.Generator(device=device).manual_seed(5))
                    targets = {"ladder": bf16["ladder"]}
                    if args.compile_fused:
                        targets["ladder_fused"] = bf16["ladder_fused"]
                    if not args.no_compile_baseline:
                        targets["torch"] = bf16["torch"]
                    for name, m in targets.items():
                        fn = (lambda ids, m=m: built.logits(ids, 1, m))
                        torch._dynamo.reset()
                        t0 = time.perf_counter()
                        try:  # fullgraph=True compiles only a graph without breaks: success means 0 breaks
                            compiled = torch.compile(fn, fullgraph=True, backend=args.compile_backend)
                            out = compiled(ids)
                            sync()
                        except Exception as e:
                            torch._dynamo.reset()
                            explain = torch._dynamo.explain(fn)(ids)
                            add("compile", name, "graph_breaks", explain.graph_break_count, graphs=explain.graph_count,
                                reasons="; ".join(str(r.reason) for r in explain.break_reasons[:3]),
                                status=f"error: fullgraph compile failed: {type(e).__name__}: {str(e)[:200]}")
                            continue
                        add("compile", name, "graph_breaks", 0, how="torch.compile(fullgraph=True) succeeded")
                        add("compile", name, "compile_s", time.perf_counter() - t0)
                        add("compile", name, "compiled_vs_eager_rel_err", tt.rel_err(out, built.logits(ids, 1, m)))
                        ms = timed(lambda: compiled(ids), 10)
                        add("compile", name, f"prefill{args.prefill}_compiled_tokens_per_s", args.prefill / ms * 1e3,
                            ms=ms)
                        eager = next((r["value"] for r in rows if r["part"] == "bf16" and r["variant"] == name
                                      and r["metric"] == f"prefill{args.prefill}_eager_tokens_per_s"), None)
                        if eager:
                            add("compile", name, "compiled_speedup_vs_eager", args.prefill / ms * 1e3 / eager)
                    by = {r["variant"]: r["value"] for r in rows
                          if r["part"] == "compile" and r["metric"].endswith("compiled_tokens_per_s")}
                    for name in ("ladder", "ladder_fused"):
                        if by.get(name) and by.get("torch"):
                            add("compile", name, "compiled_speedup_vs_torch_compiled", by[name] / by["torch"])
                    return []
                print("compile", flush=True)
                run_part("compile", compile_part)

    csv_path = tt.write_results(args.out, meta, rows)
    print(f"\n{meta['model']}; {meta['gpu']}, torch {meta['torch']}, commit {meta['commit']}; {args.out} and {csv_path}")
    print(tt.table(rows, ["part", "variant", "metric", "value", "status"]))
    bad = [r for r in rows if str(r.get("status", "")).startswith("error")
           or (r["metric"] == "error_in_line_with_torch_bf16" and r["value"] is False)
           or (r["metric"] == "graph_breaks" and r["variant"] != "torch" and r["value"] != 0)
           or (r["metric"] == "decode_loop_vs_forward_rel_err" and r["value"] > 2e-2)]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
