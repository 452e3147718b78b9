"""Modules over the ladder ops: a drop-in ``Linear``, a fused ``SwiGLU`` MLP, and ``patch(model)``.

    layer = ladder.nn.Linear.from_linear(torch_linear)    # shares the weight and bias tensors (no copy)
    report = ladder.patch(model)                           # every eligible nn.Linear -> ladder.nn.Linear
    print(report)                                          # what was replaced, and why anything was left
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F

from . import _launch, ops, reference

__all__ = ["Linear", "SwiGLU", "patch", "PatchReport"]

_HALF = (torch.float16, torch.bfloat16)


def _check_activation(activation: str) -> str:
    if activation not in _launch.ACTIVATIONS:
        raise ValueError(f"activation must be one of {', '.join(map(repr, _launch.ACTIVATIONS))}, not {activation!r}")
    return activation


class Linear(torch.nn.Linear):
    """``torch.nn.Linear`` whose forward is one ladder GEMM with the epilogue fused (torch.ops.ladder.linear).

    Same constructor, parameters, state_dict and initialisation as nn.Linear (it is one), plus:

    - ``activation``: 'none', 'relu', 'gelu' (erf), 'gelu_tanh' or 'silu', applied in the GEMM's epilogue;
    - ``forward(input, residual=None)``: ``residual`` (the output's shape and dtype) is added in the epilogue.

    fp16 and bf16 weights run through ladder (CUDA: libladder; CPU: the torch reference). Inputs [..., K] whose
    leading dimensions flatten into rows (any contiguous input, slices of the sequence dimension) are not
    copied; others are copied once. Under autocast the input is cast to the weight's dtype when that is the
    autocast dtype; otherwise, and for fp32/fp64 weights, the forward is torch's (F.linear and the activation).
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None, *,
                 activation: str = "none"):
        super().__init__(in_features, out_features, bias, device, dtype)
        self.activation = _check_activation(activation)

    @classmethod
    def from_linear(cls, linear: torch.nn.Linear, *, activation: str = "none") -> "Linear":
        """A ladder Linear over ``linear``'s own weight and bias Parameters (shared, not copied)."""
        if not isinstance(linear, torch.nn.Linear):
            raise TypeError(f"from_linear takes a torch.nn.Linear, not {type(linear).__name__}")
        new = cls.__new__(cls)
        torch.nn.Module.__init__(new)
        new.in_features, new.out_features = linear.in_features, linear.out_features
        new.weight = linear.weight
        new.register_parameter("bias", linear.bias)
        new.activation = _check_activation(activation)
        new.train(linear.training)
        return new

    def forward(self, input: torch.Tensor, residual: Optional[torch.Tensor] = None) -> torch.Tensor:
        weight = self.weight
        if weight.dtype in _HALF:
            if input.dtype != weight.dtype:  # autocast: F.linear would cast both to the autocast dtype
                device_type = input.device.type
                if torch.is_autocast_enabled(device_type):
                    if torch.get_autocast_dtype(device_type) != weight.dtype:
                        return self._torch_forward(input, residual)
                    input = input.to(weight.dtype)
            op = ops._linear_entry(input, weight, self.bias, residual)
            return op(input, weight, self.bias, self.activation, residual, 1.0, 1.0, None, None)
        return self._torch_forward(input, residual)

    def _torch_forward(self, input, residual):
        out = reference.activate(F.linear(input, self.weight, self.bias), self.activation)
        return out if residual is None else out + residual

    def extra_repr(self) -> str:
        text = super().extra_repr()
        return text if self.activation == "none" else f"{text}, activation={self.activation!r}"


class SwiGLU(torch.nn.Module):
    """A Llama-style MLP, ``down_proj(silu(gate_proj(x)) · up_proj(x))``, in two ladder GEMMs.

    ``gate_up_proj`` holds the concatenated weight [gate; up] (2·I × H) and runs as one GEMM whose epilogue
    writes silu(gate)·up (torch.ops.ladder.swiglu); ``down_proj`` is a ladder Linear, and ``forward(x, residual)``
    adds a residual in its epilogue. ``state_dict()`` and ``load_state_dict()`` use the separate keys
    ``gate_proj.weight`` / ``up_proj.weight`` (and biases), so checkpoints of the unfused MLP load unchanged.
    """

    def __init__(self, hidden_size: int, intermediate_size: int, bias: bool = False, device=None, dtype=None):
        super().__init__()
        self.hidden_size, self.intermediate_size = hidden_size, intermediate_size
        self.gate_up_proj = Linear(hidden_size, 2 * intermediate_size, bias, device, dtype)
        self.down_proj = Linear(intermediate_size, hidden_size, bias, device, dtype)
        self.register_state_dict_post_hook(_split_gate_up)
        self.register_load_state_dict_pre_hook(_merge_gate_up)

    @classmethod
    def from_mlp(cls, mlp: torch.nn.Module) -> "SwiGLU":
        """From a module with ``gate_proj``, ``up_proj``, ``down_proj`` (nn.Linear) and a SiLU ``act_fn``.

        The gate and up weights are COPIED into one [gate; up] tensor (2·I·H elements); the originals stay
        alive only while something else holds them. down_proj's weight is shared, not copied.
        """
        gate, up, down = mlp.gate_proj, mlp.up_proj, mlp.down_proj
        new = cls.__new__(cls)
        torch.nn.Module.__init__(new)
        new.hidden_size, new.intermediate_size = gate.in_features, gate.out_features
        with torch.no_grad():
            fused = Linear(gate.in_features, 2 * gate.out_features, gate.bias is not None, device="meta")
            fused.weight = torch.nn.Parameter(torch.cat([gate.weight, up.weight]), gate.weight.requires_grad)
            if gate.bias is not None:
                fused.bias = torch.nn.Parameter(torch.cat([gate.bias, up.bias]), gate.bias.requires_grad)
        new.gate_up_proj = fused
        new.down_proj = down if isinstance(down, Linear) else Linear.from_linear(down)
        new.register_state_dict_post_hook(_split_gate_up)
        new.register_load_state_dict_pre_hook(_merge_gate_up)
        new.train(mlp.training)
        return new

    def forward(self, x: torch.Tensor, residual: Optional[torch.Tensor] = None) -> torch.Tensor:
        p = self.gate_up_proj
        if p.weight.dtype not in _HALF:
            gate, up = F.linear(x, p.weight, p.bias).chunk(2, dim=-1)
            return self.down_proj(F.silu(gate) * up, residual)
        op = ops._swiglu_entry(x, p.weight, p.bias)
        h = op(x, p.weight, p.bias, None, 1.0, 1.0, None, None)
        return self.down_proj(h, residual)

    def extra_repr(self) -> str:
        return f"hidden_size={self.hidden_size}, intermediate_size={self.intermediate_size}"


def _split_gate_up(module, state_dict, prefix, local_metadata) -> None:
    for kind in ("weight", "bias"):
        key = f"{prefix}gate_up_proj.{kind}"
        if key in state_dict:
            gate, up = state_dict.pop(key).chunk(2, dim=0)
            state_dict[f"{prefix}gate_proj.{kind}"] = gate
            state_dict[f"{prefix}up_proj.{kind}"] = up


def _merge_gate_up(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                   error_msgs) -> None:
    for kind in ("weight", "bias"):
        gate_key, up_key = f"{prefix}gate_proj.{kind}", f"{prefix}up_proj.{kind}"
        if gate_key in state_dict and up_key in state_dict:
            state_dict[f"{prefix}gate_up_proj.{kind}"] = torch.cat([state_dict.pop(gate_key),
                                                                    state_dict.pop(up_key)])


# ---- patch --------------------------------------------------------------------------------------------------

@dataclass
class PatchReport:
    """What :func:`patch` did: ``replaced`` and ``fused`` (name, what it became), ``skipped`` (name, why)."""

    replaced: List[Tuple[str, str]] = field(default_factory=list)
    fused: List[Tuple[str, str]] = field(default_factory=list)
    skipped: List[Tuple[str, str]] = field(default_factory=list)

    def __str__(self) -> str:
        lines = [f"ladder.patch: {len(self.replaced)} nn.Linear replaced by ladder.nn.Linear, "
                 f"{len(self.fused)} MLPs fused into SwiGLU, {len(self.skipped)} modules left as they were"]
        if self.replaced:
            lines.append("  replaced: " + _names(n for n, _ in self.replaced))
        for name, what in self.fused:
            lines.append(f"  fused {name}: {what}")
        by_reason: Dict[str, List[str]] = {}
        for name, why in self.skipped:
            by_reason.setdefault(why, []).append(name)
        for why, names in by_reason.items():
            lines.append(f"  left {_names(names)}: {why}")
        return "\n".join(lines)

    __repr__ = __str__


def _names(names, limit: int = 6) -> str:
    names = list(names)
    shown = ", ".join(n or "<root>" for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _has_hooks(m: torch.nn.Module) -> bool:
    return bool(m._forward_hooks or m._forward_pre_hooks or m._backward_hooks or
                getattr(m, "_backward_pre_hooks", None))


def _why_not_linear(m: torch.nn.Linear, devices: Tuple[str, ...] = ("cuda",)) -> Optional[str]:
    if isinstance(m, Linear):
        return "already a ladder.nn.Linear"
    if type(m) is not torch.nn.Linear:
        return f"{type(m).__module__}.{type(m).__qualname__} subclasses nn.Linear: its forward may differ"
    w = m.weight
    if w.dtype not in _HALF:
        return f"weight is {w.dtype}: ladder computes fp16 and bf16 (convert the model first, e.g. model.bfloat16())"
    if w.device.type not in devices:
        return f"weight on {w.device}: ladder runs on CUDA GPUs (move the model first)"
    if _launch.as_matrix(w) is None:
        return f"weight is not row-major (strides {tuple(w.stride())})"
    if m.bias is not None and (m.bias.dtype not in (*_HALF, torch.float32) or m.bias.stride(0) != 1):
        return f"bias is {m.bias.dtype} with stride {m.bias.stride(0)}: ladder takes contiguous fp16/bf16/fp32 biases"
    if _has_hooks(m):
        return "has hooks, which a replacement would not carry over"
    return None


def _why_not_mlp(m: torch.nn.Module, devices: Tuple[str, ...]) -> Optional[str]:
    gate, up, down = m.gate_proj, m.up_proj, m.down_proj
    if type(getattr(m, "act_fn", None)).__name__ not in ("SiLU", "SiLUActivation"):
        return f"act_fn is {type(getattr(m, 'act_fn', None)).__name__}, not SiLU"
    for name, lin in (("gate_proj", gate), ("up_proj", up), ("down_proj", down)):
        if not isinstance(lin, torch.nn.Linear) or getattr(lin, "activation", "none") != "none":
            return f"{name} is a {type(lin).__name__}, not a plain nn.Linear"
        why = None if isinstance(lin, Linear) else _why_not_linear(lin, devices)
        if why:
            return f"{name}: {why}"
    if (gate.weight.shape != up.weight.shape or gate.weight.dtype != up.weight.dtype
            or (gate.bias is None) != (up.bias is None) or down.in_features != gate.out_features):
        return "gate_proj and up_proj differ in shape, dtype or bias, or down_proj does not follow them"
    if _has_hooks(m):
        return "has hooks, which a replacement would not carry over"
    return None


def _probe_matches(mlp: torch.nn.Module, fused: SwiGLU) -> Optional[str]:
    """Runs both on a few random rows: a module that only looks like a Llama MLP is not fused."""
    w = mlp.gate_proj.weight
    g = torch.Generator(device=w.device).manual_seed(0)
    x = torch.randn((4, w.shape[1]), generator=g, device=w.device, dtype=torch.float32).to(w.dtype)
    with torch.no_grad():
        expected, got = mlp(x).float(), fused(x).float()
    err = (torch.linalg.norm(got - expected) / torch.linalg.norm(expected).clamp_min(1e-30)).item()
    if not math.isfinite(err) or err > 3e-2:
        return f"its forward is not down_proj(silu(gate_proj(x)) * up_proj(x)) (probe error {err:.1e})"
    return None


def patch(model: torch.nn.Module, *, fuse_swiglu: bool = False,
          include: Optional[Callable[[str, torch.nn.Module], bool]] = None, devices: Tuple[str, ...] = ("cuda",),
          verbose: bool = False) -> PatchReport:
    """Replaces ``model``'s nn.Linear modules, in place, by ladder.nn.Linear over the same Parameters.

    A module is left as it was, with the reason in the report, when its weight is not fp16/bf16 or not on a
    device whose type is in ``devices`` (CUDA; on CPU the ops run the fp32 reference, which is for tests), it
    is a subclass of nn.Linear (its forward may differ), it has hooks, or ``include(name, module)`` returns
    False. ``fuse_swiglu=True`` also replaces Llama-style MLPs (gate_proj, up_proj, down_proj,
    SiLU act_fn; checked on a probe input first) by :class:`SwiGLU`, which COPIES the gate and up weights into
    one [gate; up] tensor. A module reached under several names is replaced once, everywhere.
    Returns a :class:`PatchReport` (also printed with ``verbose=True``).
    """
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"patch takes a torch.nn.Module, not {type(model).__name__}")
    report = PatchReport()
    seen: Dict[int, torch.nn.Module] = {}   # id(old) -> replacement (or old itself when left alone)
    names = {id(m): n for n, m in model.named_modules()}

    def replacement(name: str, child: torch.nn.Module) -> torch.nn.Module:
        if id(child) in seen:
            return seen[id(child)]
        new = child
        if include is not None and not include(name, child):
            if isinstance(child, torch.nn.Linear) or (fuse_swiglu and _looks_like_mlp(child)):
                report.skipped.append((name, "excluded by include()"))
        elif fuse_swiglu and _looks_like_mlp(child):
            why = _why_not_mlp(child, devices)
            if why is None:
                fused = SwiGLU.from_mlp(child)
                try:
                    why = _probe_matches(child, fused)
                except Exception as e:  # e.g. a library without ladder_gemm_v2: leave the MLP unfused
                    why = f"the probe run failed: {type(e).__name__}: {e}"
                if why is None:
                    new = fused
                    w = fused.gate_up_proj.weight
                    report.fused.append((name, f"{type(child).__name__} -> ladder.nn.SwiGLU (gate_proj and up_proj "
                                               f"copied into one [gate; up] weight, "
                                               f"{w.numel() * w.element_size() / 2 ** 20:.1f} MiB; down_proj a "
                                               "ladder.nn.Linear over its own weight)"))
            if new is child:
                report.skipped.append((name, f"not fused: {why}"))
        elif isinstance(child, torch.nn.Linear):
            why = _why_not_linear(child, devices)
            if why is None:
                new = Linear.from_linear(child)
                report.replaced.append((name, "ladder.nn.Linear"))
            elif not isinstance(child, Linear):
                report.skipped.append((name, why))
        seen[id(child)] = new
        return new

    def walk(parent: torch.nn.Module, prefix: str) -> None:
        for attr, child in list(parent._modules.items()):
            if child is None:
                continue
            name = names.get(id(child), f"{prefix}{attr}")
            new = replacement(name, child)
            if new is not child:
                setattr(parent, attr, new)
            elif id(child) not in walked:  # left as it was: its own children may still be replaced
                walked.add(id(child))
                walk(child, f"{name}.")

    if isinstance(model, torch.nn.Linear):
        raise TypeError("patch replaces a model's submodules; for one layer use ladder.nn.Linear.from_linear(layer)")
    walked = {id(model)}
    walk(model, "")
    if verbose:
        print(report)
    return report


def _looks_like_mlp(m: torch.nn.Module) -> bool:
    return all(isinstance(getattr(m, a, None), torch.nn.Module) for a in ("gate_proj", "up_proj", "down_proj"))
