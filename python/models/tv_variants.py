"""torchvision architectures: full size, and narrow variants that keep every block.

Every builder returns ``(module, variant)`` where ``variant`` is a JSON-able dict
describing what was changed relative to the full-size model it stands for
(written into meta.json). Weights are torchvision's random init (no download,
``weights=None`` everywhere); callers condition them with models.common.

The narrow variants only use torchvision's own building blocks (BasicBlock,
Bottleneck, InvertedResidual, MBConv, Fire, ShuffleNet InvertedResidual,
ResBottleneckBlock, CNBlock, EncoderBlock, ASPP, LRASPPHead, FCNHead,
SSDLite heads ...). Where a constructor has no knob for a width, the module is
built by the same code path with smaller channel numbers (see each builder).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import torch.nn as nn
import torchvision
from torchvision.models import (
    convnext as tv_convnext,
    efficientnet as tv_eff,
    mobilenetv3 as tv_mbv3,
    regnet as tv_regnet,
    resnet as tv_resnet,
    shufflenetv2 as tv_shuf,
    squeezenet as tv_sq,
    swin_transformer as tv_swin,
    vision_transformer as tv_vit,
)
from torchvision.models._utils import IntermediateLayerGetter
from torchvision.models.detection import ssdlite as tv_ssdlite
from torchvision.models.detection.anchor_utils import DefaultBoxGenerator
from torchvision.models.segmentation import deeplabv3 as tv_deeplab, fcn as tv_fcn, lraspp as tv_lraspp
from torchvision.ops.misc import Conv2dNormActivation

Variant = dict[str, object]

# ---------------------------------------------------------------------------
# ResNet with configurable stage widths (torchvision's blocks and _make_layer)
# ---------------------------------------------------------------------------


class NarrowResNet(tv_resnet.ResNet):
    """torchvision ResNet whose stem width and per-stage `planes` are parameters.

    Same code as ``torchvision.models.resnet.ResNet.__init__`` with the literal
    64 / (64, 128, 256, 512) replaced; ``_make_layer`` and ``forward`` are
    inherited unchanged.
    """

    def __init__(
        self,
        block,
        layers: list[int],
        planes: Sequence[int] = (64, 128, 256, 512),
        stem: int = 64,
        num_classes: int = 1000,
        width_per_group: int = 64,
        replace_stride_with_dilation: list[bool] | None = None,
    ) -> None:
        nn.Module.__init__(self)
        norm_layer = nn.BatchNorm2d
        self._norm_layer = norm_layer
        self.inplanes = stem
        self.dilation = 1
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        self.groups = 1
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, planes[0], layers[0])
        self.layer2 = self._make_layer(block, planes[1], layers[1], stride=2, dilate=replace_stride_with_dilation[0])
        self.layer3 = self._make_layer(block, planes[2], layers[2], stride=2, dilate=replace_stride_with_dilation[1])
        self.layer4 = self._make_layer(block, planes[3], layers[3], stride=2, dilate=replace_stride_with_dilation[2])
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(planes[3] * block.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)


# ---------------------------------------------------------------------------
# Classifiers
# ---------------------------------------------------------------------------

NARROW_CLASSES = 10


def mobilenet_v2(full: bool) -> tuple[nn.Module, Variant]:
    if full:
        return torchvision.models.mobilenet_v2(weights=None), {}
    m = torchvision.models.mobilenet_v2(weights=None, width_mult=0.15, num_classes=NARROW_CLASSES)
    # MobileNetV2 fixes the last 1x1 conv at 1280 channels for width_mult <= 1;
    # narrow it to 128 (same Conv-BN-ReLU6 + Dropout + Linear).
    last_in = m.features[-1][0].in_channels
    m.features[-1] = Conv2dNormActivation(
        last_in, 128, kernel_size=1, norm_layer=nn.BatchNorm2d, activation_layer=nn.ReLU6
    )
    m.classifier[1] = nn.Linear(128, NARROW_CLASSES)
    nn.init.kaiming_normal_(m.features[-1][0].weight, mode="fan_out")
    nn.init.normal_(m.classifier[1].weight, 0, 0.01)
    nn.init.zeros_(m.classifier[1].bias)
    m.last_channel = 128
    return m, {"width_mult": 0.15, "last_channel": "1280 -> 128", "num_classes": NARROW_CLASSES}


def _mobilenet_v3(
    arch: str, full: bool, width_mult: float = 1.0, dilated: bool = False, last_channel: int | None = None
) -> tuple[nn.Module, Variant]:
    wm = 1.0 if full else width_mult
    setting, conf_last = tv_mbv3._mobilenet_v3_conf(arch, width_mult=wm, dilated=dilated)
    lc = conf_last if (full or last_channel is None) else last_channel
    m = tv_mbv3.MobileNetV3(setting, lc, num_classes=1000 if full else NARROW_CLASSES)
    if full:
        return m, {}
    full_last = 1280 if arch == "mobilenet_v3_large" else 1024
    return m, {"width_mult": wm, "num_classes": NARROW_CLASSES, "last_channel": f"{full_last} -> {lc}"}


def mobilenet_v3_small(full: bool):
    return _mobilenet_v3("mobilenet_v3_small", full, width_mult=0.25, last_channel=64)


def mobilenet_v3_large(full: bool):
    return _mobilenet_v3("mobilenet_v3_large", full, width_mult=0.125, last_channel=64)


def resnet18(full: bool):
    if full:
        return torchvision.models.resnet18(weights=None), {}
    planes, stem = (8, 16, 24, 32), 8
    m = NarrowResNet(tv_resnet.BasicBlock, [2, 2, 2, 2], planes=planes, stem=stem, num_classes=NARROW_CLASSES)
    return m, {
        "block": "BasicBlock",
        "layers": [2, 2, 2, 2],
        "stem_channels": "64 -> 8",
        "stage_planes": "(64, 128, 256, 512) -> (8, 16, 24, 32)",
        "num_classes": NARROW_CLASSES,
    }


def resnet50(full: bool):
    if full:
        return torchvision.models.resnet50(weights=None), {}
    planes, stem = (4, 8, 12, 16), 8
    m = NarrowResNet(tv_resnet.Bottleneck, [2, 2, 3, 2], planes=planes, stem=stem, num_classes=NARROW_CLASSES)
    return m, {
        "block": "Bottleneck (expansion 4)",
        "layers": "[3, 4, 6, 3] -> [2, 2, 3, 2]",
        "stem_channels": "64 -> 8",
        "stage_planes": "(64, 128, 256, 512) -> (4, 8, 12, 16) (block outputs 16, 32, 48, 64)",
        "num_classes": NARROW_CLASSES,
    }


def efficientnet_b0(full: bool):
    if full:
        return torchvision.models.efficientnet_b0(weights=None), {}
    setting, last_channel = tv_eff._efficientnet_conf("efficientnet_b0", width_mult=0.15, depth_mult=0.5)
    m = tv_eff.EfficientNet(setting, dropout=0.2, last_channel=last_channel, num_classes=NARROW_CLASSES)
    return m, {
        "width_mult": 0.15,
        "depth_mult": 0.5,
        "num_classes": NARROW_CLASSES,
        "stage_repeats": "[1, 2, 2, 3, 3, 4, 1] -> " + str([s.num_layers for s in setting]),
    }


def _scaled_squeezenet1_1_features(d: int) -> nn.Sequential:
    """SqueezeNet 1.1 feature stack with every channel count divided by d."""
    F_ = tv_sq.Fire
    c = lambda x: x // d  # noqa: E731
    return nn.Sequential(
        nn.Conv2d(3, c(64), kernel_size=3, stride=2),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
        F_(c(64), c(16), c(64), c(64)),
        F_(c(128), c(16), c(64), c(64)),
        nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
        F_(c(128), c(32), c(128), c(128)),
        F_(c(256), c(32), c(128), c(128)),
        nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
        F_(c(256), c(48), c(192), c(192)),
        F_(c(384), c(48), c(192), c(192)),
        F_(c(384), c(64), c(256), c(256)),
        F_(c(512), c(64), c(256), c(256)),
    )


def squeezenet1_1(full: bool):
    if full:
        return torchvision.models.squeezenet1_1(weights=None), {}
    d = 4
    m = tv_sq.SqueezeNet(version="1_1", num_classes=NARROW_CLASSES)
    m.features = _scaled_squeezenet1_1_features(d)
    final_conv = nn.Conv2d(512 // d, NARROW_CLASSES, kernel_size=1)
    m.classifier[1] = final_conv
    for mod in m.modules():
        if isinstance(mod, nn.Conv2d):
            if mod is final_conv:
                nn.init.normal_(mod.weight, mean=0.0, std=0.01)
            else:
                nn.init.kaiming_uniform_(mod.weight)
            if mod.bias is not None:
                nn.init.constant_(mod.bias, 0)
    return m, {
        "channels": "every conv / Fire width divided by 4 (Fire(64,16,64,64) -> Fire(16,4,16,16) ...)",
        "num_classes": NARROW_CLASSES,
    }


def shufflenet_v2_x1_0(full: bool):
    if full:
        return torchvision.models.shufflenet_v2_x1_0(weights=None), {}
    rep, ch = [2, 2, 2], [16, 16, 32, 48, 64]
    m = tv_shuf.ShuffleNetV2(rep, ch, num_classes=NARROW_CLASSES)
    return m, {
        "stages_repeats": "[4, 8, 4] -> [2, 2, 2]",
        "stages_out_channels": "[24, 116, 232, 464, 1024] -> [16, 16, 32, 48, 64]",
        "num_classes": NARROW_CLASSES,
    }


def regnet_x_400mf(full: bool):
    if full:
        return torchvision.models.regnet_x_400mf(weights=None), {}
    bp = tv_regnet.BlockParams(
        depths=[1, 2, 2, 1],
        widths=[16, 24, 40, 64],
        group_widths=[8, 8, 8, 8],
        bottleneck_multipliers=[1.0] * 4,
        strides=[2, 2, 2, 2],
        se_ratio=None,
    )
    m = tv_regnet.RegNet(
        bp, num_classes=NARROW_CLASSES, stem_width=16, norm_layer=partial(nn.BatchNorm2d, eps=1e-05, momentum=0.1)
    )
    return m, {
        "depths": "[1, 2, 7, 12] -> [1, 2, 2, 1]",
        "widths": "[32, 64, 160, 400] -> [16, 24, 40, 64]",
        "group_width": "16 -> 8 (grouped 3x3 convs, groups 2..8)",
        "stem_width": "32 -> 16",
        "num_classes": NARROW_CLASSES,
    }


def convnext_tiny(full: bool):
    if full:
        return torchvision.models.convnext_tiny(weights=None), {}
    C = tv_convnext.CNBlockConfig
    setting = [C(16, 24, 1), C(24, 32, 1), C(32, 48, 2), C(48, None, 1)]
    m = tv_convnext.ConvNeXt(setting, stochastic_depth_prob=0.1, num_classes=NARROW_CLASSES)
    return m, {
        "block_setting": "(96,192,3),(192,384,3),(384,768,9),(768,-,3) -> (16,24,1),(24,32,1),(32,48,2),(48,-,1)",
        "num_classes": NARROW_CLASSES,
        "layer_scale": "random U(0.1, 0.6) instead of 1e-6 (see models/common.py)",
    }


def vit(full: bool):
    if full:
        return torchvision.models.vit_b_16(weights=None), {}
    m = tv_vit.VisionTransformer(
        image_size=80, patch_size=16, num_layers=2, num_heads=3, hidden_dim=48, mlp_dim=96, num_classes=NARROW_CLASSES
    )
    return m, {
        "class": "torchvision.models.vision_transformer.VisionTransformer",
        "image_size": "224 -> 80 (5x5 patches + class token = 26 tokens)",
        "patch_size": 16,
        "num_layers": "12 -> 2",
        "num_heads": "12 -> 3",
        "hidden_dim": "768 -> 48",
        "mlp_dim": "3072 -> 96",
        "num_classes": NARROW_CLASSES,
    }


def _swin(full: bool, v2: bool):
    if full:
        return (torchvision.models.swin_v2_t if v2 else torchvision.models.swin_t)(weights=None), {}
    extra = {"block": tv_swin.SwinTransformerBlockV2, "downsample_layer": tv_swin.PatchMergingV2} if v2 else {}
    m = tv_swin.SwinTransformer(
        patch_size=[4, 4],
        embed_dim=16,
        depths=[2, 2, 2],
        num_heads=[2, 4, 8],
        window_size=[4, 4] if v2 else [7, 7],
        stochastic_depth_prob=0.1,
        num_classes=NARROW_CLASSES,
        **extra,
    )
    return m, {
        "class": "torchvision.models.swin_transformer.SwinTransformer" + (" (V2 blocks)" if v2 else ""),
        "embed_dim": "96 -> 16",
        "depths": "[2, 2, 6, 2] -> [2, 2, 2] (three stages; each has a shifted block)",
        "num_heads": "[3, 6, 12, 24] -> [2, 4, 8]",
        "window_size": "[8, 8] -> [4, 4]"
        if v2
        else "[7, 7] (padded on the 16x16 and 8x8 grids, shrunk on the smaller)",
        "num_classes": NARROW_CLASSES,
    }


def swin_t(full: bool):
    return _swin(full, v2=False)


def swin_v2_t(full: bool):
    return _swin(full, v2=True)


# ---------------------------------------------------------------------------
# Segmentation (wrapped to return the "out" tensor instead of a dict)
# ---------------------------------------------------------------------------

NARROW_SEG_CLASSES = 5
SEG_WIDTH = 0.125  # MobileNetV3-Large width of the narrow segmentation / detection backbones


class SegOut(nn.Module):
    """Returns ``model(x)["out"]`` (torchvision segmentation models return a dict)."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


class NarrowDeepLabHead(nn.Sequential):
    """torchvision DeepLabHead with the hard-coded 256 channels as a parameter."""

    def __init__(self, in_channels: int, num_classes: int, atrous_rates: Sequence[int], channels: int) -> None:
        super().__init__(
            tv_deeplab.ASPP(in_channels, atrous_rates, out_channels=channels),
            nn.Conv2d(channels, channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(channels),
            nn.ReLU(),
            nn.Conv2d(channels, num_classes, 1),
        )


def _mbv3_stage_indices(features: nn.Sequential) -> list[int]:
    return [0] + [i for i, b in enumerate(features) if getattr(b, "_is_cn", False)] + [len(features) - 1]


def deeplabv3_mobilenet_v3_large(full: bool):
    if full:
        m = torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None)
        return SegOut(m), {}
    rates, ch = (2, 3, 4), 8
    backbone, _ = _mobilenet_v3("mobilenet_v3_large", full=False, width_mult=SEG_WIDTH, dilated=True)
    features = backbone.features
    idx = _mbv3_stage_indices(features)
    out_pos = idx[-1]
    out_inplanes = features[out_pos].out_channels
    body = IntermediateLayerGetter(features, return_layers={str(out_pos): "out"})
    head = NarrowDeepLabHead(out_inplanes, NARROW_SEG_CLASSES, rates, ch)
    m = tv_deeplab.DeepLabV3(body, head, None)
    return SegOut(m), {
        "backbone": f"mobilenet_v3_large(width_mult={SEG_WIDTH}, dilated=True)",
        "aspp_channels": f"256 -> {ch}",
        "atrous_rates": "(12, 24, 36) -> (2, 3, 4) (stride-16 map is only 5x5 at 72x72)",
        "num_classes": f"21 -> {NARROW_SEG_CLASSES}",
        "aux_loss": None,
    }


def lraspp_mobilenet_v3_large(full: bool):
    if full:
        m = torchvision.models.segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None)
        return SegOut(m), {}
    inter = 16
    backbone, _ = _mobilenet_v3("mobilenet_v3_large", full=False, width_mult=SEG_WIDTH, dilated=True)
    features = backbone.features
    idx = _mbv3_stage_indices(features)
    low_pos, high_pos = idx[-4], idx[-1]
    low_ch, high_ch = features[low_pos].out_channels, features[high_pos].out_channels
    body = IntermediateLayerGetter(features, return_layers={str(low_pos): "low", str(high_pos): "high"})
    m = tv_lraspp.LRASPP(body, low_ch, high_ch, NARROW_SEG_CLASSES, inter_channels=inter)
    return SegOut(m), {
        "backbone": f"mobilenet_v3_large(width_mult={SEG_WIDTH}, dilated=True)",
        "inter_channels": f"128 -> {inter}",
        "num_classes": f"21 -> {NARROW_SEG_CLASSES}",
    }


def fcn_resnet50(full: bool):
    if full:
        m = torchvision.models.segmentation.fcn_resnet50(weights=None, weights_backbone=None)
        return SegOut(m), {}
    planes = (4, 8, 12, 16)
    rn = NarrowResNet(
        tv_resnet.Bottleneck, [1, 2, 2, 1], planes=planes, stem=8, replace_stride_with_dilation=[False, True, True]
    )
    body = IntermediateLayerGetter(rn, return_layers={"layer4": "out"})
    head = tv_fcn.FCNHead(planes[3] * 4, NARROW_SEG_CLASSES)
    m = tv_fcn.FCN(body, head, None)
    return SegOut(m), {
        "backbone": "ResNet-50 Bottleneck, replace_stride_with_dilation=[False, True, True] kept",
        "layers": "[3, 4, 6, 3] -> [1, 2, 2, 1]",
        "stem_channels": "64 -> 8",
        "stage_planes": "(64, 128, 256, 512) -> (4, 8, 12, 16) (block outputs 16, 32, 48, 64)",
        "fcn_head": f"FCNHead(2048, 21) -> FCNHead(64, {NARROW_SEG_CLASSES})",
        "num_classes": f"21 -> {NARROW_SEG_CLASSES}",
        "aux_loss": None,
    }


# ---------------------------------------------------------------------------
# Detection: SSDLite320-MobileNetV3-Large, backbone + head, no postprocess
# ---------------------------------------------------------------------------


class SSDLiteRaw(nn.Module):
    """SSD backbone + head, returning (bbox_regression [N, A, 4], cls_logits [N, A, C]).

    The SSD transform (resize to 320 and (x - 0.5) / 0.5), the anchor generator,
    box decoding and NMS are left out: the input is the already normalised image.
    """

    def __init__(self, backbone: nn.Module, head: nn.Module):
        super().__init__()
        self.backbone = backbone
        self.head = head

    def forward(self, x):
        features = list(self.backbone(x).values())
        out = self.head(features)
        return out["bbox_regression"], out["cls_logits"]


def ssdlite320_mobilenet_v3_large(full: bool, size: int = 320):
    """Same construction as torchvision.models.detection.ssdlite320_mobilenet_v3_large
    (weights_backbone=None -> reduced_tail=True, BN eps 1e-3, normal(0, 0.03) init)."""
    norm_layer = partial(nn.BatchNorm2d, eps=0.001, momentum=0.03)
    if full:
        m = torchvision.models.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None)
        return SSDLiteRaw(m.backbone, m.head), {}
    wm, extra_wm, min_depth, nc = SEG_WIDTH, 0.125, 8, 8
    backbone = tv_mbv3.mobilenet_v3_large(weights=None, norm_layer=norm_layer, reduced_tail=True, width_mult=wm)
    tv_ssdlite._normal_init(backbone)
    features = backbone.features
    idx = _mbv3_stage_indices(features)
    extractor = tv_ssdlite.SSDLiteFeatureExtractorMobileNet(
        features, idx[-2], norm_layer, width_mult=extra_wm, min_depth=min_depth
    )
    anchor_generator = DefaultBoxGenerator([[2, 3] for _ in range(6)], min_ratio=0.2, max_ratio=0.95)
    from torchvision.models.detection import _utils as det_utils

    out_channels = det_utils.retrieve_out_channels(extractor, (size, size))
    num_anchors = anchor_generator.num_anchors_per_location()
    head = tv_ssdlite.SSDLiteHead(out_channels, num_anchors, nc, norm_layer)
    return SSDLiteRaw(extractor, head), {
        "backbone": f"mobilenet_v3_large(width_mult={wm}, reduced_tail=True)",
        "extra_layers": "SSDLiteFeatureExtractorMobileNet width_mult 1.0 -> 0.125, min_depth 16 -> 8",
        "num_classes": f"91 -> {nc}",
        "anchors_per_location": num_anchors,
        "feature_channels": out_channels,
        "postprocess": "none (no transform, anchors, decode or NMS)",
    }


BUILDERS = {
    "mobilenet_v2": mobilenet_v2,
    "mobilenet_v3_small": mobilenet_v3_small,
    "mobilenet_v3_large": mobilenet_v3_large,
    "resnet18": resnet18,
    "resnet50": resnet50,
    "efficientnet_b0": efficientnet_b0,
    "squeezenet1_1": squeezenet1_1,
    "shufflenet_v2_x1_0": shufflenet_v2_x1_0,
    "regnet_x_400mf": regnet_x_400mf,
    "convnext_tiny": convnext_tiny,
    "vit": vit,
    "deeplabv3_mobilenet_v3_large": deeplabv3_mobilenet_v3_large,
    "lraspp_mobilenet_v3_large": lraspp_mobilenet_v3_large,
    "fcn_resnet50": fcn_resnet50,
    "ssdlite320_mobilenet_v3_large": ssdlite320_mobilenet_v3_large,
}
