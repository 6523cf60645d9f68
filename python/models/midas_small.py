"""MiDaS-small-style monocular depth network (random weights).

Structure of MiDaS v2.1 small (``MidasNet_small``, isl-org/MiDaS
midas/midas_net_custom.py + blocks.py, features=64, backbone
efficientnet_lite3, blocks={'expand': True}, non_negative=True,
align_corners=True), re-written without timm:

Encoder: EfficientNet-Lite (timm ``tf_efficientnet_lite3``: no squeeze-excite,
ReLU6, BatchNorm eps 1e-3, TF "same" padding for strided convs, i.e. an
explicit asymmetric zero pad before stride-2 convolutions):

    layer1 = stem conv3x3/s2 + stage0 (depthwise-separable) + stage1 (MBConv e6 k3 s2)   stride 4
    layer2 = stage2 (MBConv e6 k5 s2)                                                       stride 8
    layer3 = stage3 (MBConv e6 k3 s2) + stage4 (MBConv e6 k5 s1)                            stride 16
    layer4 = stage5 (MBConv e6 k5 s2) + stage6 (MBConv e6 k3 s1)                            stride 32

Decoder ("scratch"): 3x3 convs (no bias) to features * (1, 2, 4, 8); four
FeatureFusionBlocks (ResidualConvUnit = ReLU, conv3x3, ReLU, conv3x3, + input;
fusion add; bilinear x2 with align_corners=True; 1x1 out conv halving the
channels, except the last); head conv3x3 -> bilinear x2 (align_corners=False)
-> conv3x3 -> ReLU -> conv1x1 to one channel -> ReLU; squeeze(1) gives the
[N, H, W] inverse-depth map.

The input size must be a multiple of 32.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn as nn
import torch.nn.functional as F

BN_EPS = 1e-3


class TfSamePad(nn.Module):
    """TensorFlow 'SAME' padding for a strided conv (asymmetric: extra pixel bottom/right)."""

    def __init__(self, k: int, s: int):
        super().__init__()
        self.k, self.s = k, s

    def forward(self, x):
        ih, iw = x.shape[-2:]

        def pad(i):
            return max((-(-i // self.s) - 1) * self.s + self.k - i, 0)

        ph, pw = pad(ih), pad(iw)
        return F.pad(x, [pw // 2, pw - pw // 2, ph // 2, ph - ph // 2])


def conv_bn_act(c1: int, c2: int, k: int, s: int = 1, groups: int = 1, act: bool = True) -> nn.Sequential:
    layers: list[nn.Module] = []
    if s > 1:
        layers.append(TfSamePad(k, s))
        pad = 0
    else:
        pad = k // 2
    layers += [nn.Conv2d(c1, c2, k, s, pad, groups=groups, bias=False), nn.BatchNorm2d(c2, eps=BN_EPS)]
    if act:
        layers.append(nn.ReLU6())
    return nn.Sequential(*layers)


class DepthwiseSeparable(nn.Module):
    def __init__(self, c1: int, c2: int, k: int, s: int):
        super().__init__()
        self.dw = conv_bn_act(c1, c1, k, s, groups=c1)
        self.pw = conv_bn_act(c1, c2, 1, act=False)
        self.skip = s == 1 and c1 == c2

    def forward(self, x):
        y = self.pw(self.dw(x))
        return x + y if self.skip else y


class MBConv(nn.Module):
    def __init__(self, c1: int, c2: int, k: int, s: int, e: int):
        super().__init__()
        mid = c1 * e
        self.pw = conv_bn_act(c1, mid, 1)
        self.dw = conv_bn_act(mid, mid, k, s, groups=mid)
        self.pwl = conv_bn_act(mid, c2, 1, act=False)
        self.skip = s == 1 and c1 == c2

    def forward(self, x):
        y = self.pwl(self.dw(self.pw(x)))
        return x + y if self.skip else y


# (block type, kernel, stride, expansion) of the seven EfficientNet-Lite stages
STAGES = [
    ("ds", 3, 1, 1),
    ("ir", 3, 2, 6),
    ("ir", 5, 2, 6),
    ("ir", 3, 2, 6),
    ("ir", 5, 1, 6),
    ("ir", 5, 2, 6),
    ("ir", 3, 1, 6),
]


class EfficientNetLiteEncoder(nn.Module):
    def __init__(self, stem: int, channels: Sequence[int], repeats: Sequence[int]):
        super().__init__()
        assert len(channels) == len(repeats) == len(STAGES)
        stages: list[nn.Module] = []
        cin = stem
        for (kind, k, s, e), c, r in zip(STAGES, channels, repeats):
            blocks: list[nn.Module] = []
            for i in range(r):
                stride = s if i == 0 else 1
                blocks.append(DepthwiseSeparable(cin, c, k, stride) if kind == "ds" else MBConv(cin, c, k, stride, e))
                cin = c
            stages.append(nn.Sequential(*blocks))
        self.layer1 = nn.Sequential(conv_bn_act(3, stem, 3, 2), stages[0], stages[1])
        self.layer2 = nn.Sequential(stages[2])
        self.layer3 = nn.Sequential(stages[3], stages[4])
        self.layer4 = nn.Sequential(stages[5], stages[6])
        self.out_channels = [channels[1], channels[2], channels[4], channels[6]]


class ResidualConvUnit(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.conv1 = nn.Conv2d(features, features, 3, 1, 1, bias=True)
        self.conv2 = nn.Conv2d(features, features, 3, 1, 1, bias=True)
        self.act = nn.ReLU(False)

    def forward(self, x):
        out = self.conv1(self.act(x))
        out = self.conv2(self.act(out))
        return out + x


class FeatureFusionBlock(nn.Module):
    def __init__(self, features: int, expand: bool):
        super().__init__()
        out_features = features // 2 if expand else features
        self.resConfUnit1 = ResidualConvUnit(features)
        self.resConfUnit2 = ResidualConvUnit(features)
        self.out_conv = nn.Conv2d(features, out_features, 1, 1, 0, bias=True)

    def forward(self, *xs):
        output = xs[0]
        if len(xs) == 2:
            output = output + self.resConfUnit1(xs[1])
        output = self.resConfUnit2(output)
        output = F.interpolate(output, scale_factor=2, mode="bilinear", align_corners=True)
        return self.out_conv(output)


class MidasSmall(nn.Module):
    def __init__(
        self,
        features: int = 64,
        stem: int = 32,
        channels: Sequence[int] = (24, 32, 48, 96, 136, 232, 384),
        repeats: Sequence[int] = (1, 3, 3, 5, 5, 6, 1),
        head_channels: int = 32,
    ):
        super().__init__()
        self.pretrained = EfficientNetLiteEncoder(stem, channels, repeats)
        f1, f2, f3, f4 = features, features * 2, features * 4, features * 8
        c1, c2, c3, c4 = self.pretrained.out_channels
        self.layer1_rn = nn.Conv2d(c1, f1, 3, 1, 1, bias=False)
        self.layer2_rn = nn.Conv2d(c2, f2, 3, 1, 1, bias=False)
        self.layer3_rn = nn.Conv2d(c3, f3, 3, 1, 1, bias=False)
        self.layer4_rn = nn.Conv2d(c4, f4, 3, 1, 1, bias=False)
        self.refinenet4 = FeatureFusionBlock(f4, expand=True)
        self.refinenet3 = FeatureFusionBlock(f3, expand=True)
        self.refinenet2 = FeatureFusionBlock(f2, expand=True)
        self.refinenet1 = FeatureFusionBlock(f1, expand=False)
        self.output_conv1 = nn.Conv2d(features, features // 2, 3, 1, 1)
        self.output_conv2 = nn.Conv2d(features // 2, head_channels, 3, 1, 1)
        self.output_conv3 = nn.Conv2d(head_channels, 1, 1, 1, 0)
        # He init for the convolutions (the decoder has no normalisation; PyTorch's default
        # conv init would shrink the signal at every layer and leave only the last bias).
        for mod in self.modules():
            if isinstance(mod, nn.Conv2d):
                nn.init.kaiming_normal_(mod.weight, mode="fan_in", nonlinearity="relu")
                if mod.bias is not None:
                    nn.init.zeros_(mod.bias)

    def forward(self, x):
        l1 = self.pretrained.layer1(x)
        l2 = self.pretrained.layer2(l1)
        l3 = self.pretrained.layer3(l2)
        l4 = self.pretrained.layer4(l3)
        path4 = self.refinenet4(self.layer4_rn(l4))
        path3 = self.refinenet3(path4, self.layer3_rn(l3))
        path2 = self.refinenet2(path3, self.layer2_rn(l2))
        path1 = self.refinenet1(path2, self.layer1_rn(l1))
        out = self.output_conv1(path1)
        out = F.interpolate(out, scale_factor=2, mode="bilinear", align_corners=False)
        out = F.relu(self.output_conv2(out))
        out = F.relu(self.output_conv3(out))
        return torch.squeeze(out, dim=1)


def midas_small(full: bool):
    """Returns (module, variant) like models.tv_variants builders."""
    if full:
        return MidasSmall(), {}
    kw = dict(features=4, stem=8, channels=(8, 8, 12, 16, 24, 24, 32), repeats=(1, 2, 2, 2, 2, 2, 1), head_channels=8)
    return MidasSmall(**kw), {
        "features": "64 -> 4 (decoder widths 4, 8, 16, 32 instead of 64, 128, 256, 512)",
        "encoder_stem": "32 -> 8",
        "encoder_channels": "(24, 32, 48, 96, 136, 232, 384) -> (8, 8, 12, 16, 24, 24, 32)",
        "encoder_repeats": "(1, 3, 3, 5, 5, 6, 1) -> (1, 2, 2, 2, 2, 2, 1)",
        "head_channels": "32 -> 8",
    }
