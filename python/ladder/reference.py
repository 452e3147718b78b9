"""The ops' math in plain torch, in fp32: the reference the tests and scripts compare with, and the ops' CPU kernel.

    pre = alpha · (x · weightᵀ) + bias            accumulated in fp32
    out = act(pre) + beta · residual               (SwiGLU: silu(pre[..., :I]) · pre[..., I:] + beta · residual)

rounded once to the output dtype (``round_to=None`` keeps fp32), like ladder's epilogue in registers.
"""
from __future__ import annotations

from typing import Optional

import torch
import torch.nn.functional as F

from ._launch import ACTIVATIONS
from ._library import Activation


def activate(pre: torch.Tensor, activation: str) -> torch.Tensor:
    """act(pre) for an activation name of ladder.linear ('none', 'relu', 'gelu', 'gelu_tanh', 'silu')."""
    kind = ACTIVATIONS[activation]
    if kind == Activation.NONE:
        return pre
    if kind == Activation.RELU:
        return torch.relu(pre)
    if kind == Activation.GELU_ERF:
        return F.gelu(pre)
    if kind == Activation.GELU_TANH:
        return F.gelu(pre, approximate="tanh")
    return F.silu(pre)


def activation_grad(pre: torch.Tensor, activation: str) -> Optional[torch.Tensor]:
    """d act / d pre at ``pre`` (None for 'none': the identity)."""
    kind = ACTIVATIONS[activation]
    if kind == Activation.NONE:
        return None
    if kind == Activation.RELU:
        return (pre > 0).to(pre.dtype)
    if kind == Activation.SILU:
        s = torch.sigmoid(pre)
        return s * (1 + pre * (1 - s))
    if kind == Activation.GELU_ERF:
        return 0.5 * (1 + torch.erf(pre * 0.7071067811865476)) + pre * torch.exp(-0.5 * pre * pre) * 0.3989422804014327
    c = 0.7978845608028654  # √(2/π)
    t = torch.tanh(c * (pre + 0.044715 * pre ** 3))
    return 0.5 * (1 + t) + 0.5 * pre * (1 - t * t) * c * (1 + 3 * 0.044715 * pre * pre)


def preactivation(x, weight, bias=None, alpha: float = 1.0, compute_dtype=torch.float32) -> torch.Tensor:
    """alpha · x · weightᵀ + bias in ``compute_dtype``."""
    pre = torch.matmul(x.to(compute_dtype), weight.to(compute_dtype).T)
    if alpha != 1.0:
        pre = pre * alpha
    if bias is not None:
        pre = pre + bias.to(compute_dtype)
    return pre


def linear(x, weight, bias=None, activation: str = "none", residual=None, alpha: float = 1.0, beta: float = 1.0,
           round_to=None, compute_dtype=torch.float32) -> torch.Tensor:
    """act(alpha · x · weightᵀ + bias) + beta · residual, in ``compute_dtype``, then cast to ``round_to``."""
    out = activate(preactivation(x, weight, bias, alpha, compute_dtype), activation)
    if residual is not None:
        out = out + beta * residual.to(compute_dtype)
    return out if round_to is None else out.to(round_to)


def swiglu(x, weight, bias=None, residual=None, alpha: float = 1.0, beta: float = 1.0, round_to=None,
           compute_dtype=torch.float32) -> torch.Tensor:
    """silu(gate) · up + beta · residual, with gate and up the two halves of alpha · x · weightᵀ + bias."""
    gate, up = preactivation(x, weight, bias, alpha, compute_dtype).chunk(2, dim=-1)
    out = F.silu(gate) * up
    if residual is not None:
        out = out + beta * residual.to(compute_dtype)
    return out if round_to is None else out.to(round_to)
