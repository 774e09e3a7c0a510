"""Hand-written models used by the seed papers (no torchvision).

Each model's top level is a chain of named blocks, so :func:`verify.models.cuts.enumerate_blocks` finds the
cuts the papers use. The enumeration opens a *plain* ``nn.Sequential``/``nn.ModuleList``/``nn.ModuleDict``
and keeps every other module whole; :class:`Unit` (a subclass of ``nn.Sequential``) is how a model here says
"these layers are one block" (the ResNet stem, a VGG conv-BN-ReLU).

Parameter counts and where each figure comes from are in the factories' docstrings; the registry in
``verify.models.cuts`` repeats them as ``ModelSpec.published_params``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import torch
from torch import nn

from sfltheory.errors import ParameterError


def _positive(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ParameterError(name, f"must be an integer >= 1 (got {value!r})")
    return value


class Unit(nn.Sequential):
    """A chain of layers that cut enumeration treats as one block (it opens only a plain ``nn.Sequential``)."""


# --- small models ---------------------------------------------------------------------------------------


def mlp(in_features: int = 784, hidden: Sequence[int] = (256, 128), num_classes: int = 10) -> nn.Module:
    """Flatten, then ``Linear -> ReLU`` per hidden width, then a linear classifier.

    Blocks ``fc1 .. fc{n}``. Default (784-256-128-10): 200,960 + 32,896 + 1,290 = 235,146 parameters (hand count).
    """
    _positive("in_features", in_features)
    _positive("num_classes", num_classes)
    widths = [_positive(f"hidden[{i}]", h) for i, h in enumerate(hidden)]
    layers: OrderedDict[str, nn.Module] = OrderedDict(flatten=nn.Flatten())
    prev = in_features
    for i, w in enumerate(widths, start=1):
        layers[f"fc{i}"] = nn.Linear(prev, w)
        layers[f"relu{i}"] = nn.ReLU(inplace=True)
        prev = w
    layers[f"fc{len(widths) + 1}"] = nn.Linear(prev, num_classes)
    return nn.Sequential(layers)


def cnn(in_channels: int = 1, num_classes: int = 10, input_size: int = 28) -> nn.Module:
    """The FedAvg CNN: two 5x5 convs (32, 64 channels, 'same' padding) each with 2x2 max-pooling, fc 512, fc out.

    McMahan et al. 2017 ("Communication-Efficient Learning of Deep Networks from Decentralized Data", Sec. 3)
    state 1,663,370 parameters for MNIST (1x28x28, 10 classes): 832 + 51,264 + 3,136*512+512 + 5,130.
    ``input_size`` (square, divisible by 4) sizes the first fc layer. Blocks ``conv1, conv2, fc1, fc2``.
    """
    _positive("in_channels", in_channels)
    _positive("num_classes", num_classes)
    if _positive("input_size", input_size) % 4:
        raise ParameterError("input_size", f"must be a multiple of 4 for two 2x2 poolings (got {input_size})")
    side = input_size // 4
    return nn.Sequential(
        OrderedDict(
            conv1=nn.Conv2d(in_channels, 32, 5, padding=2),
            relu1=nn.ReLU(inplace=True),
            pool1=nn.MaxPool2d(2),
            conv2=nn.Conv2d(32, 64, 5, padding=2),
            relu2=nn.ReLU(inplace=True),
            pool2=nn.MaxPool2d(2),
            flatten=nn.Flatten(),
            fc1=nn.Linear(64 * side * side, 512),
            relu3=nn.ReLU(inplace=True),
            fc2=nn.Linear(512, num_classes),
        )
    )


def lenet5(in_channels: int = 1, num_classes: int = 10, input_size: int = 28) -> nn.Module:
    """LeNet-5 as in sl_noniid (seed 002): conv 6@5x5 -> pool -> conv 16@5x5 -> pool -> fc 120 -> fc 84 -> fc out.

    Unpadded convs, ReLU and max-pooling (the common modern form of LeCun et al. 1998; activation and pooling
    kind do not change the count). Hand counts: conv1 156, conv2 2,416, fc2 10,164, fc3 850, and fc1
    16*s*s*120+120 with s the side after the second pooling:

    * 28x28 (MNIST as used by sl_noniid): s=4, fc1 30,840, total **44,426**. sl_noniid splits "after the
      second 2D MaxPool layer, with 6% of the entire model size retained in the client": 2,572/44,426 = 5.8%.
    * 32x32 (the original geometry, also the PyTorch tutorial network): s=5, fc1 48,120, total **61,706**; this
      is the usual "LeNet-5 has ~61.7k parameters" figure (LeCun et al. 1998 report ~60,000 for the original
      with partial C3 connections).

    Blocks ``conv1, conv2, fc1, fc2, fc3``; the sl_noniid cut is ``conv2``.
    """
    _positive("in_channels", in_channels)
    _positive("num_classes", num_classes)
    side = ((_positive("input_size", input_size) - 4) // 2 - 4) // 2
    if side < 1:
        raise ParameterError("input_size", f"must be at least 14 for two 5x5 convs and two poolings (got {input_size})")
    return nn.Sequential(
        OrderedDict(
            conv1=nn.Conv2d(in_channels, 6, 5),
            relu1=nn.ReLU(inplace=True),
            pool1=nn.MaxPool2d(2),
            conv2=nn.Conv2d(6, 16, 5),
            relu2=nn.ReLU(inplace=True),
            pool2=nn.MaxPool2d(2),
            flatten=nn.Flatten(),
            fc1=nn.Linear(16 * side * side, 120),
            relu3=nn.ReLU(inplace=True),
            fc2=nn.Linear(120, 84),
            relu4=nn.ReLU(inplace=True),
            fc3=nn.Linear(84, num_classes),
        )
    )


# --- AlexNet --------------------------------------------------------------------------------------------


class AlexNet(nn.Module):
    """torchvision's AlexNet layout (``features``, ``avgpool``, ``classifier``), input 3x224x224.

    Published: 61,100,840 parameters at 1000 classes (torchvision model docs, ``AlexNet_Weights.IMAGENET1K_V1``).
    At 10 classes: 61,100,840 - (4096*1000+1000) + (4096*10+10) = 57,044,810.

    Cut enumeration gives 8 blocks, the 5 convs (each with its ReLU/pooling; the last also takes the adaptive
    pooling, the flatten and the first dropout) and the 3 fcs: ``features.0, features.3, features.6, features.8,
    features.10, classifier.1, classifier.4, classifier.6``. MU-SplitFed (seed 000) uses AlexNet, "8 layers",
    with L_c = n meaning a cut "after the n-th block": cut index n here is that L_c.
    """

    def __init__(self, num_classes: int = 10, dropout: float = 0.5) -> None:
        super().__init__()
        _positive("num_classes", num_classes)
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, kernel_size=11, stride=4, padding=2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(64, 192, kernel_size=5, padding=2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(192, 384, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(384, 256, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(256, 256, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
        )
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout),
            nn.Linear(256 * 6 * 6, 4096),
            nn.ReLU(inplace=True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, 4096),
            nn.ReLU(inplace=True),
            nn.Linear(4096, num_classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Class logits (N, num_classes) of images ``x`` (N, 3, H, W): features, 6x6 average pooling, classifier."""
        x = self.avgpool(self.features(x))
        return self.classifier(torch.flatten(x, 1))


def alexnet(num_classes: int = 10) -> nn.Module:
    """AlexNet (torchvision layout); see :class:`AlexNet` for the counts and the MU-SplitFed cuts."""
    return AlexNet(num_classes)


# --- VGG-11 ---------------------------------------------------------------------------------------------


def vgg11(num_classes: int = 10, batch_norm: bool = True) -> nn.Module:
    """VGG-11 for CIFAR (kuangliu/pytorch-cifar layout): 8 conv3x3(-BN)-ReLU units, 5 max-poolings, fc 512->out.

    Used by sl_noniid (seed 002) on CIFAR-10, "split after the third 2D MaxPool layer, with 10% of the entire
    model size at the client". Hand count with BN, 10 classes: convs 9,220,480 + BN 5,504 + fc 5,130 =
    9,231,114; the client up to the third pooling (cut ``features.5``) holds 962,304 = 10.4%.
    """
    _positive("num_classes", num_classes)
    cfg: list[int | str] = [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]
    layers: list[nn.Module] = []
    prev = 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(2))
            continue
        assert isinstance(v, int)
        unit: list[nn.Module] = [nn.Conv2d(prev, v, 3, padding=1)]
        if batch_norm:
            unit.append(nn.BatchNorm2d(v))
        unit.append(nn.ReLU(inplace=True))
        layers.append(Unit(*unit))
        prev = v
    return nn.Sequential(
        OrderedDict(features=nn.Sequential(*layers), flatten=nn.Flatten(), classifier=nn.Linear(512, num_classes))
    )


# --- ResNet ---------------------------------------------------------------------------------------------


def _conv3x3(cin: int, cout: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)


def _shortcut(cin: int, cout: int, stride: int) -> nn.Module | None:
    if stride == 1 and cin == cout:
        return None
    return nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))


class BasicBlock(nn.Module):
    """Two 3x3 convs with BN and an identity (or 1x1 projection) shortcut: ResNet-18/34's residual block."""

    expansion = 1

    def __init__(self, cin: int, planes: int, stride: int = 1) -> None:
        super().__init__()
        self.conv1 = _conv3x3(cin, planes, stride)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = _conv3x3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = _shortcut(cin, planes, stride)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """relu(bn2(conv2(relu(bn1(conv1(x))))) + shortcut(x)), the shortcut the identity or, where the shape
        changes, the 1x1 projection ``downsample``."""
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(out + identity)


class Bottleneck(nn.Module):
    """1x1 -> 3x3 (stride here, torchvision's v1.5) -> 1x1 convs with BN, 4x expansion: ResNet-50's block."""

    expansion = 4

    def __init__(self, cin: int, planes: int, stride: int = 1) -> None:
        super().__init__()
        out = planes * self.expansion
        self.conv1 = nn.Conv2d(cin, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = _conv3x3(planes, planes, stride)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, out, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(out)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = _shortcut(cin, out, stride)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """relu(bn3(conv3(relu(bn2(conv2(relu(bn1(conv1(x))))))) + shortcut(x)), the shortcut the identity or the
        1x1 projection ``downsample``."""
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(out + identity)


class ResNet(nn.Module):
    """``stem`` (one block), ``layer1..layer4`` (plain ``nn.Sequential`` of residual blocks), ``head``.

    ``cifar=True``: 3x3 stride-1 stem conv, BN, ReLU, no max-pooling (input 3x32x32), as in
    kuangliu/pytorch-cifar. ``cifar=False``: torchvision's ImageNet stem, 7x7 stride-2 conv, BN, ReLU, 3x3
    stride-2 max-pooling (input 3x224x224). ``head`` is a plain ``nn.Sequential`` (global average pooling,
    flatten, fc), so the pooling joins the last residual block and the last cut sends the pooled features.

    Cuts: ``stem``, then one after every residual block, named ``layerS.B`` (stage S, block B, 0-based); the
    last block of a stage (``layer1.1`` for ResNet-18, ``layer1.2`` for ResNet-50) is the end of stage S.
    """

    def __init__(
        self, block: type[BasicBlock] | type[Bottleneck], depths: Sequence[int], num_classes: int, cifar: bool
    ) -> None:
        super().__init__()
        _positive("num_classes", num_classes)
        if cifar:
            self.stem = Unit(_conv3x3(3, 64), nn.BatchNorm2d(64), nn.ReLU(inplace=True))
        else:
            self.stem = Unit(
                nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False),
                nn.BatchNorm2d(64),
                nn.ReLU(inplace=True),
                nn.MaxPool2d(3, stride=2, padding=1),
            )
        cin = 64
        stages = []
        for i, (planes, n) in enumerate(zip((64, 128, 256, 512), depths, strict=True)):
            blocks: list[nn.Module] = []
            for j in range(n):
                blocks.append(block(cin, planes, 2 if i > 0 and j == 0 else 1))
                cin = planes * block.expansion
            stages.append(nn.Sequential(*blocks))
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, num_classes))
        for m in self.modules():  # torchvision's initialisation
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Class logits (N, num_classes) of images ``x``: ``stem``, ``layer1`` to ``layer4``, then ``head``."""
        x = self.stem(x)
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.head(x)


def resnet18(num_classes: int = 10, cifar: bool = True) -> nn.Module:
    """ResNet-18 (BasicBlock, 2-2-2-2).

    Counts: CIFAR variant, 10 classes: 11,173,962 (kuangliu/pytorch-cifar ResNet18, the figure most SFL papers
    quote); ImageNet layout, 1000 classes: 11,689,512 (torchvision model docs, ``ResNet18_Weights``).

    Cuts used by the seeds: cut_layer (seed 003) L_c = i is the end of stage i, i.e. ``layer1.1, layer2.1,
    layer3.1, layer4.1`` (see :func:`verify.models.cuts.stage_cuts`). heron_sfl (seed 001) Fig. 4 "Client Size
    1" (first conv layer and one residual block) is ``layer1.0``; "Client Size 2" (three residual blocks) is
    ``layer2.0``. Its main split "after the second 2-D BatchNorm layer" falls inside ``layer1.0`` (after its
    first conv/BN), which is no chain cut: the skip input would have to be sent as well; ``layer1.0`` is the
    nearest cut (``expand=("layer1.0",)`` opens the block, with activations that omit the skip).
    """
    return ResNet(BasicBlock, (2, 2, 2, 2), num_classes, cifar)


def resnet50(num_classes: int = 100, cifar: bool = True) -> nn.Module:
    """ResNet-50 (Bottleneck, 3-4-6-3).

    ImageNet layout, 1000 classes: 25,557,032 (torchvision model docs, ``ResNet50_Weights``). CIFAR-100
    variant as in cut_layer (seed 003): 25,557,032 - (2048*1000+1000) + (2048*100+100) - 9,408 (7x7 stem
    conv) + 1,728 (3x3 stem conv) = 23,705,252 (hand count). cut_layer's L_c = i is the end of stage i:
    ``layer1.2, layer2.3, layer3.5, layer4.2``.
    """
    return ResNet(Bottleneck, (3, 4, 6, 3), num_classes, cifar)
