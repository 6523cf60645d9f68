"""YOLOv8n / YOLO11n-style detector (written here, random weights, no ultralytics dependency).

Follows the public ultralytics model configs (yolov8.yaml, yolo11.yaml) and
module definitions (ultralytics/nn/modules/{conv,block,head}.py):

- Conv = Conv2d(bias=False) + BatchNorm2d(eps=1e-3, momentum=0.03) + SiLU
- C2f: 1x1 conv, ``chunk(2, 1)``, n Bottlenecks each appended, ``cat``, 1x1 conv
- C3k2 (YOLO11): a C2f whose inner modules are Bottlenecks (c3k=False) or C3k blocks
  (C3 with k x k bottlenecks: two 1x1 branches, ``cat``, 1x1)
- SPPF: 1x1 conv, three chained 5x5/stride 1 max pools, ``cat`` of the four, 1x1 conv
- C2PSA (YOLO11): 1x1 conv, ``split``, PSABlocks (multi-head attention over H*W
  positions with a 1x1 qkv conv, ``view`` / ``split``, ``q^T k`` (bmm) * scale,
  ``softmax``, ``v attn^T`` (bmm), a depthwise 3x3 positional conv, 1x1 proj, then
  a 2-layer 1x1 FFN; both residual), ``cat``, 1x1 conv
- neck: nearest 2x upsample + ``cat`` (FPN) and stride-2 convs + ``cat`` (PAN)
- Detect: decoupled head per level: box branch (2 x Conv3x3, 1x1 to 4*16) and
  class branch (YOLOv8: 2 x Conv3x3 + 1x1; YOLO11: (DWConv3x3 + Conv1x1) x 2 + 1x1);
  DFL = ``softmax`` over 16 bins + 1x1 conv with fixed arange(16) weights;
  distances -> boxes (xywh, pixels) with anchor points / strides baked in as
  constants; output ``cat((boxes, sigmoid(cls)), 1)`` of shape [N, 4 + nc, A]
  (the raw prediction tensor ultralytics exports; no NMS).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
import torch.nn as nn


def autopad(k: int, d: int = 1) -> int:
    if d > 1:
        k = d * (k - 1) + 1
    return k // 2


class Conv(nn.Module):
    def __init__(self, c1: int, c2: int, k: int = 1, s: int = 1, g: int = 1, d: int = 1, act: bool = True):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, autopad(k, d), groups=g, dilation=d, bias=False)
        self.bn = nn.BatchNorm2d(c2, eps=1e-3, momentum=0.03)
        self.act = nn.SiLU() if act else nn.Identity()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class DWConv(Conv):
    def __init__(self, c1: int, c2: int, k: int = 1, s: int = 1, act: bool = True):
        super().__init__(c1, c2, k, s, g=math.gcd(c1, c2), act=act)


class Bottleneck(nn.Module):
    def __init__(
        self, c1: int, c2: int, shortcut: bool = True, g: int = 1, k: tuple[int, int] = (3, 3), e: float = 0.5
    ):
        super().__init__()
        c_ = int(c2 * e)
        self.cv1 = Conv(c1, c_, k[0], 1)
        self.cv2 = Conv(c_, c2, k[1], 1, g=g)
        self.add = shortcut and c1 == c2

    def forward(self, x):
        y = self.cv2(self.cv1(x))
        return x + y if self.add else y


class C2f(nn.Module):
    def __init__(self, c1: int, c2: int, n: int = 1, shortcut: bool = False, g: int = 1, e: float = 0.5):
        super().__init__()
        self.c = int(c2 * e)
        self.cv1 = Conv(c1, 2 * self.c, 1, 1)
        self.cv2 = Conv((2 + n) * self.c, c2, 1)
        self.m = nn.ModuleList(Bottleneck(self.c, self.c, shortcut, g, k=(3, 3), e=1.0) for _ in range(n))

    def forward(self, x):
        y = list(self.cv1(x).chunk(2, 1))
        for m in self.m:
            y.append(m(y[-1]))
        return self.cv2(torch.cat(y, 1))


class C3(nn.Module):
    def __init__(self, c1: int, c2: int, n: int = 1, shortcut: bool = True, g: int = 1, e: float = 0.5):
        super().__init__()
        c_ = int(c2 * e)
        self.cv1 = Conv(c1, c_, 1, 1)
        self.cv2 = Conv(c1, c_, 1, 1)
        self.cv3 = Conv(2 * c_, c2, 1)
        self.m = nn.Sequential(*(Bottleneck(c_, c_, shortcut, g, k=(1, 3), e=1.0) for _ in range(n)))

    def forward(self, x):
        return self.cv3(torch.cat((self.m(self.cv1(x)), self.cv2(x)), 1))


class C3k(C3):
    def __init__(self, c1: int, c2: int, n: int = 1, shortcut: bool = True, g: int = 1, e: float = 0.5, k: int = 3):
        super().__init__(c1, c2, n, shortcut, g, e)
        c_ = int(c2 * e)
        self.m = nn.Sequential(*(Bottleneck(c_, c_, shortcut, g, k=(k, k), e=1.0) for _ in range(n)))


class C3k2(C2f):
    def __init__(
        self, c1: int, c2: int, n: int = 1, c3k: bool = False, e: float = 0.5, g: int = 1, shortcut: bool = True
    ):
        super().__init__(c1, c2, n, shortcut, g, e)
        self.m = nn.ModuleList(
            C3k(self.c, self.c, 2, shortcut, g) if c3k else Bottleneck(self.c, self.c, shortcut, g) for _ in range(n)
        )


class SPPF(nn.Module):
    def __init__(self, c1: int, c2: int, k: int = 5):
        super().__init__()
        c_ = c1 // 2
        self.cv1 = Conv(c1, c_, 1, 1)
        self.cv2 = Conv(c_ * 4, c2, 1, 1)
        self.m = nn.MaxPool2d(kernel_size=k, stride=1, padding=k // 2)

    def forward(self, x):
        y = [self.cv1(x)]
        for _ in range(3):
            y.append(self.m(y[-1]))
        return self.cv2(torch.cat(y, 1))


class Attention(nn.Module):
    def __init__(self, dim: int, num_heads: int = 8, attn_ratio: float = 0.5):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.key_dim = int(self.head_dim * attn_ratio)
        self.scale = self.key_dim**-0.5
        nh_kd = self.key_dim * num_heads
        h = dim + nh_kd * 2
        self.qkv = Conv(dim, h, 1, act=False)
        self.proj = Conv(dim, dim, 1, act=False)
        self.pe = Conv(dim, dim, 3, 1, g=dim, act=False)

    def forward(self, x):
        B, C, H, W = x.shape
        N = H * W
        qkv = self.qkv(x)
        q, k, v = qkv.view(B, self.num_heads, self.key_dim * 2 + self.head_dim, N).split(
            [self.key_dim, self.key_dim, self.head_dim], dim=2
        )
        attn = (q.transpose(-2, -1) @ k) * self.scale
        attn = attn.softmax(dim=-1)
        x = (v @ attn.transpose(-2, -1)).view(B, C, H, W) + self.pe(v.reshape(B, C, H, W))
        return self.proj(x)


class PSABlock(nn.Module):
    def __init__(self, c: int, attn_ratio: float = 0.5, num_heads: int = 4, shortcut: bool = True):
        super().__init__()
        self.attn = Attention(c, attn_ratio=attn_ratio, num_heads=num_heads)
        self.ffn = nn.Sequential(Conv(c, c * 2, 1), Conv(c * 2, c, 1, act=False))
        self.add = shortcut

    def forward(self, x):
        x = x + self.attn(x) if self.add else self.attn(x)
        x = x + self.ffn(x) if self.add else self.ffn(x)
        return x


class C2PSA(nn.Module):
    def __init__(self, c1: int, c2: int, n: int = 1, e: float = 0.5, num_heads: int | None = None):
        super().__init__()
        assert c1 == c2
        self.c = int(c1 * e)
        self.cv1 = Conv(c1, 2 * self.c, 1, 1)
        self.cv2 = Conv(2 * self.c, c1, 1)
        heads = num_heads if num_heads is not None else self.c // 64
        self.m = nn.Sequential(*(PSABlock(self.c, attn_ratio=0.5, num_heads=heads) for _ in range(n)))

    def forward(self, x):
        a, b = self.cv1(x).split((self.c, self.c), dim=1)
        b = self.m(b)
        return self.cv2(torch.cat((a, b), 1))


class DFL(nn.Module):
    """Distribution focal loss integral: softmax over c1 bins, expectation by a fixed 1x1 conv."""

    def __init__(self, c1: int = 16):
        super().__init__()
        self.conv = nn.Conv2d(c1, 1, 1, bias=False).requires_grad_(False)
        self.conv.weight.data[:] = torch.arange(c1, dtype=torch.float).view(1, c1, 1, 1)
        self.c1 = c1

    def forward(self, x):
        b, _, a = x.shape
        return self.conv(x.view(b, 4, self.c1, a).transpose(2, 1).softmax(1)).view(b, 4, a)


def make_anchors(sizes: Sequence[tuple[int, int]], strides: Sequence[int], offset: float = 0.5):
    pts, strs = [], []
    for (h, w), s in zip(sizes, strides):
        sx = torch.arange(w, dtype=torch.float32) + offset
        sy = torch.arange(h, dtype=torch.float32) + offset
        yy, xx = torch.meshgrid(sy, sx, indexing="ij")
        pts.append(torch.stack((xx, yy), -1).view(-1, 2))
        strs.append(torch.full((h * w, 1), float(s)))
    return torch.cat(pts).transpose(0, 1).contiguous(), torch.cat(strs).transpose(0, 1).contiguous()


class Detect(nn.Module):
    def __init__(
        self,
        nc: int,
        ch: Sequence[int],
        strides: Sequence[int],
        imgsz: int,
        version: str,
        reg_max: int = 16,
        box_channels: int | None = None,
    ):
        super().__init__()
        self.nc = nc
        self.nl = len(ch)
        self.reg_max = reg_max
        self.no = nc + reg_max * 4
        c2 = box_channels if box_channels is not None else max(16, ch[0] // 4, reg_max * 4)
        c3 = max(ch[0], min(nc, 100))
        self.cv2 = nn.ModuleList(
            nn.Sequential(Conv(x, c2, 3), Conv(c2, c2, 3), nn.Conv2d(c2, 4 * reg_max, 1)) for x in ch
        )
        if version == "v8":
            self.cv3 = nn.ModuleList(nn.Sequential(Conv(x, c3, 3), Conv(c3, c3, 3), nn.Conv2d(c3, nc, 1)) for x in ch)
        else:
            self.cv3 = nn.ModuleList(
                nn.Sequential(
                    nn.Sequential(DWConv(x, x, 3), Conv(x, c3, 1)),
                    nn.Sequential(DWConv(c3, c3, 3), Conv(c3, c3, 1)),
                    nn.Conv2d(c3, nc, 1),
                )
                for x in ch
            )
        self.dfl = DFL(reg_max)
        sizes = [(imgsz // s, imgsz // s) for s in strides]
        anchors, stride_t = make_anchors(sizes, strides)
        self.register_buffer("anchors", anchors.unsqueeze(0))  # [1, 2, A]
        self.register_buffer("strides", stride_t.unsqueeze(0))  # [1, 1, A]
        # ultralytics' Detect.bias_init (class bias log(5 / nc / (imgsz / s)^2), about -11)
        # is not applied: with random weights it would push every class score to ~1e-5.

    def forward(self, xs: list[torch.Tensor]):
        B = xs[0].shape[0]
        outs = [torch.cat((self.cv2[i](xs[i]), self.cv3[i](xs[i])), 1) for i in range(self.nl)]
        x_cat = torch.cat([o.view(B, self.no, -1) for o in outs], 2)
        box, cls = x_cat.split((self.reg_max * 4, self.nc), 1)
        dist = self.dfl(box)
        lt, rb = dist.chunk(2, 1)
        x1y1 = self.anchors - lt
        x2y2 = self.anchors + rb
        dbox = torch.cat(((x1y1 + x2y2) / 2, x2y2 - x1y1), 1) * self.strides
        return torch.cat((dbox, cls.sigmoid()), 1)


class YOLO(nn.Module):
    """YOLOv8 / YOLO11 detection model (backbone + PAN-FPN neck + Detect), no NMS.

    width / depth / max_channels are the ultralytics scale factors
    (n: 0.25 / 0.50 (11) or 0.33 (v8) / 1024).
    """

    def __init__(
        self,
        version: str = "11",
        nc: int = 80,
        imgsz: int = 640,
        width: float = 0.25,
        depth: float = 0.5,
        max_channels: int = 1024,
        psa_heads: int | None = None,
        box_channels: int | None = None,
    ):
        super().__init__()
        assert version in ("v8", "11")
        assert imgsz % 32 == 0
        self.version = version

        def ch(c: int) -> int:
            c = min(c, max_channels) * width
            return int(math.ceil(c / 8) * 8)

        def nrep(n: int) -> int:
            return max(round(n * depth), 1) if n > 1 else n

        c64, c128, c256, c512, c1024 = ch(64), ch(128), ch(256), ch(512), ch(1024)
        if version == "v8":
            # yolov8.yaml
            self.b0 = Conv(3, c64, 3, 2)
            self.b1 = Conv(c64, c128, 3, 2)
            self.b2 = C2f(c128, c128, nrep(3), True)
            self.b3 = Conv(c128, c256, 3, 2)
            self.b4 = C2f(c256, c256, nrep(6), True)
            self.b5 = Conv(c256, c512, 3, 2)
            self.b6 = C2f(c512, c512, nrep(6), True)
            self.b7 = Conv(c512, c1024, 3, 2)
            self.b8 = C2f(c1024, c1024, nrep(3), True)
            self.b9 = SPPF(c1024, c1024, 5)
            self.b10 = nn.Identity()
            self.h13 = C2f(c1024 + c512, c512, nrep(3))
            self.h16 = C2f(c512 + c256, c256, nrep(3))
            self.h17 = Conv(c256, c256, 3, 2)
            self.h19 = C2f(c256 + c512, c512, nrep(3))
            self.h20 = Conv(c512, c512, 3, 2)
            self.h22 = C2f(c512 + c1024, c1024, nrep(3))
        else:
            # yolo11.yaml
            self.b0 = Conv(3, c64, 3, 2)
            self.b1 = Conv(c64, c128, 3, 2)
            self.b2 = C3k2(c128, c256, nrep(2), False, 0.25)
            self.b3 = Conv(c256, c256, 3, 2)
            self.b4 = C3k2(c256, c512, nrep(2), False, 0.25)
            self.b5 = Conv(c512, c512, 3, 2)
            self.b6 = C3k2(c512, c512, nrep(2), True)
            self.b7 = Conv(c512, c1024, 3, 2)
            self.b8 = C3k2(c1024, c1024, nrep(2), True)
            self.b9 = SPPF(c1024, c1024, 5)
            self.b10 = C2PSA(c1024, c1024, nrep(2), num_heads=psa_heads)
            self.h13 = C3k2(c1024 + c512, c512, nrep(2), False)
            self.h16 = C3k2(c512 + c512, c256, nrep(2), False)
            self.h17 = Conv(c256, c256, 3, 2)
            self.h19 = C3k2(c256 + c512, c512, nrep(2), False)
            self.h20 = Conv(c512, c512, 3, 2)
            self.h22 = C3k2(c512 + c1024, c1024, nrep(2), True)
        p4_ch = c512
        self.up = nn.Upsample(scale_factor=2.0, mode="nearest")
        self.detect = Detect(nc, (c256, p4_ch, c1024), (8, 16, 32), imgsz, version, box_channels=box_channels)
        self.channels = dict(c64=c64, c128=c128, c256=c256, c512=c512, c1024=c1024)

    def forward(self, x):
        x = self.b1(self.b0(x))
        x = self.b2(x)
        p3 = self.b4(self.b3(x))
        p4 = self.b6(self.b5(p3))
        p5 = self.b10(self.b9(self.b8(self.b7(p4))))
        h13 = self.h13(torch.cat((self.up(p5), p4), 1))
        h16 = self.h16(torch.cat((self.up(h13), p3), 1))
        h19 = self.h19(torch.cat((self.h17(h16), h13), 1))
        h22 = self.h22(torch.cat((self.h20(h19), p5), 1))
        return self.detect([h16, h19, h22])
