"""Models of the PyTorch examples, built from a seed so that every rank starts identical.

- ResNet: a small residual network for 28x28 grey images (stem, three stages of one
  residual block each, global average pooling, linear classifier). It uses GroupNorm, so
  it has no buffers: all of its state is parameters, which the optimizer keeps identical
  on every rank (BatchNorm's running statistics would be per-rank buffers needing their
  own synchronization).
- CharTransformer: a byte-level causal language model: token and learned position
  embeddings, pre-LN blocks of causal multi-head self-attention (written out: scaled dot
  product with a causal mask) and a GELU MLP, a final LayerNorm and a linear head.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F


def _norm(channels):
    return nn.GroupNorm(min(8, channels), channels)


class ResidualBlock(nn.Module):
    def __init__(self, c_in, c_out, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.norm1 = _norm(c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
        self.norm2 = _norm(c_out)
        self.skip = nn.Sequential()
        if stride != 1 or c_in != c_out:
            self.skip = nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False), _norm(c_out))

    def forward(self, x):
        y = F.relu(self.norm1(self.conv1(x)))
        return F.relu(self.norm2(self.conv2(y)) + self.skip(x))


class ResNet(nn.Module):
    def __init__(self, widths=(16, 32, 64), classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, widths[0], 3, 1, 1, bias=False), _norm(widths[0]),
                                  nn.ReLU())
        blocks, c_in = [], widths[0]
        for i, c in enumerate(widths):
            blocks.append(ResidualBlock(c_in, c, 1 if i == 0 else 2))
            c_in = c
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(c_in, classes)

    def forward(self, x):
        return self.fc(self.blocks(self.stem(x)).mean(dim=(2, 3)))


class Dense(nn.Linear):
    """nn.Linear over the last axis of [batch, time, features], computed as a 1x1 convolution:
    Debian's torch 1.13 runs matmuls on the reference BLAS but convolutions on oneDNN, about
    10x faster here. Same parameters, same result up to fp32 rounding."""

    def forward(self, x):
        y = F.conv1d(x.transpose(1, 2), self.weight.unsqueeze(-1), self.bias)
        return y.transpose(1, 2)


class CausalSelfAttention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.qkv = Dense(width, 3 * width)
        self.out = Dense(width, width)

    def forward(self, x, mask):
        b, t, w = x.shape
        q, k, v = self.qkv(x).reshape(b, t, 3, self.heads, w // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(w // self.heads) + mask
        y = torch.softmax(scores, dim=-1) @ v
        return self.out(y.transpose(1, 2).reshape(b, t, w))


class Block(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(width)
        self.attn = CausalSelfAttention(width, heads)
        self.ln2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(Dense(width, 4 * width), nn.GELU(), Dense(4 * width, width))

    def forward(self, x, mask):
        x = x + self.attn(self.ln1(x), mask)
        return x + self.mlp(self.ln2(x))


class CharTransformer(nn.Module):
    def __init__(self, vocab, context, width=64, layers=2, heads=4):
        super().__init__()
        if width % heads:
            raise ValueError(f"width {width} is not a multiple of heads {heads}")
        self.embed = nn.Embedding(vocab, width)
        self.position = nn.Parameter(torch.zeros(context, width))
        nn.init.normal_(self.position, std=0.02)
        self.blocks = nn.ModuleList(Block(width, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(width)
        self.head = Dense(width, vocab)
        mask = torch.triu(torch.full((context, context), float("-inf")), diagonal=1)
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, tokens):
        t = tokens.shape[1]
        x = self.embed(tokens) + self.position[:t]
        for block in self.blocks:
            x = block(x, self.mask[:t, :t])
        return self.head(self.ln(x))


def build_model(name, seed, **sizes):
    """The model `name` ("resnet" or "transformer") with parameters drawn from `seed`."""
    torch.manual_seed(seed)
    return MODELS[name](**sizes)


MODELS = {"resnet": ResNet, "transformer": CharTransformer}
