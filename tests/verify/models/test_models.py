"""verify.models: parameter counts against published figures, and cut enumeration against hand counts.

Every expected number is cited or worked out by hand in the comment next to it. Registered models are built
on the meta device (no memory, no initialisation), so the whole file runs in a few seconds on a CPU.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

from sfltheory.errors import ParameterError  # noqa: E402
from verify.models import MODELS, build, enumerate_blocks, load_model, model_cuts, stage_cuts, zoo  # noqa: E402


def n_params(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())  # parameters() yields a tied tensor once


def meta_build(name: str, **kwargs: object) -> nn.Module:
    with torch.device("meta"):
        return build(name, **kwargs)


# --- published parameter counts ------------------------------------------------------------------------

PUBLISHED = {
    # torchvision model docs, AlexNet_Weights.IMAGENET1K_V1: 61,100,840 (1000 classes)
    ("alexnet", (("num_classes", 1000),)): 61_100_840,
    # 61,100,840 - (4096*1000+1000) + (4096*10+10) = 57,044,810
    ("alexnet", ()): 57_044_810,
    # kuangliu/pytorch-cifar ResNet18 on CIFAR-10: 11,173,962
    ("resnet18", ()): 11_173_962,
    # torchvision model docs, ResNet18_Weights.IMAGENET1K_V1: 11,689,512
    ("resnet18", (("num_classes", 1000), ("cifar", False))): 11_689_512,
    # torchvision model docs, ResNet50_Weights.IMAGENET1K_V1: 25,557,032
    ("resnet50", (("num_classes", 1000), ("cifar", False))): 25_557_032,
    # 25,557,032 - (2048*1000+1000) + (2048*100+100) - 9,408 (64*3*7*7) + 1,728 (64*3*3*3) = 23,705,252
    ("resnet50", ()): 23_705_252,
    # McMahan et al. 2017 (FedAvg), Sec. 3: "1,663,370 total parameters"
    ("cnn", ()): 1_663_370,
    # LeNet-5 at 28x28: 156 + 2,416 + (256*120+120 = 30,840) + 10,164 + 850 = 44,426
    ("lenet5", ()): 44_426,
    # LeNet-5 at 32x32: 156 + 2,416 + (400*120+120 = 48,120) + 10,164 + 850 = 61,706
    ("lenet5", (("input_size", 32),)): 61_706,
    # 784*256+256 + 256*128+128 + 128*10+10 = 200,960 + 32,896 + 1,290 = 235,146
    ("mlp", ()): 235_146,
    # VGG-11-BN (CIFAR): convs 9,220,480 + BN 2*(64+128+2*256+4*512) = 5,504 + fc 512*10+10 = 9,231,114
    ("vgg11", ()): 9_231_114,
}


@pytest.mark.parametrize(("name", "kwargs"), list(PUBLISHED))
def test_parameter_counts(name: str, kwargs: tuple[tuple[str, object], ...]) -> None:
    assert n_params(meta_build(name, **dict(kwargs))) == PUBLISHED[(name, kwargs)]


@pytest.mark.parametrize("name", list(MODELS))
def test_registry_counts_and_cut_tables(name: str) -> None:
    spec = MODELS[name]
    assert spec.published_params is not None and spec.source
    table = model_cuts(name)
    assert table.d == spec.published_params  # every parameter lands in exactly one block
    assert table.input_shape == spec.input_shape
    assert all(c.d_c + c.d_s == table.d and c.activation and c.flops_c for c in table.cuts)
    assert [c.d_c for c in table.cuts] == sorted(c.d_c for c in table.cuts)


# --- hand counts on small models ----------------------------------------------------------------------


def test_small_sequential_hand_count() -> None:
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    table = model_cuts(model, (4,))
    assert [c.name for c in table.cuts] == ["0"]  # the ReLU joins block "0": one cut
    cut = table.cuts[0]
    assert cut.d_c == 15  # 4*3+3
    assert cut.d_s == 8  # 3*2+2
    assert cut.activation == 3
    # FlopCounterMode counts a Linear as 2*in*out per sample (addmm; the bias add is not counted)
    assert cut.flops_c == 2 * 4 * 3 == 24
    assert cut.flops == 24 + 2 * 3 * 2 == 36
    assert [b.params for b in table.blocks] == [15, 8]


def test_flops_of_a_conv_and_flops_off() -> None:
    table = model_cuts("lenet5")
    # conv1 6@5x5 on 1x28x28 -> 6x24x24: 2 * (1*25) * 6 * 24*24 = 172,800 (ReLU and pooling count zero)
    assert table.blocks[0].name == "conv1" and table.blocks[0].flops == 172_800
    assert all(c.flops is None and c.flops_c is None for c in model_cuts("lenet5", flops=False).cuts)


def test_flops_none_when_counting_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch.utils.flop_counter as fc

    class Broken:
        def __init__(self, **kwargs: object) -> None:
            pass

        def __enter__(self) -> None:
            raise RuntimeError("no flop counting here")

        def __exit__(self, *args: object) -> None:
            pass

    monkeypatch.setattr(fc, "FlopCounterMode", Broken)
    table = model_cuts(nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 2)), (4,))
    assert table.cuts[0].d_c == 15 and table.cuts[0].flops_c is None


def test_tuple_output_activation_sums_tensors() -> None:
    class Pair(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return self.fc(x), x

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.pair = Pair()
            self.out = nn.Linear(3, 2)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.out(self.pair(x)[0])

    assert model_cuts(Net(), (4,)).cuts[0].activation == 3 + 4


# --- the seed papers' cuts ----------------------------------------------------------------------------


def test_resnet18_cifar_cuts() -> None:
    table = model_cuts("resnet18")
    names = [c.name for c in table.cuts]
    assert names == ["stem"] + [f"layer{s}.{b}" for s in (1, 2, 3, 4) for b in (0, 1)]
    act = {c.name: c.activation for c in table.cuts}
    assert act["stem"] == 64 * 32 * 32 == 65_536
    assert act["layer1.0"] == act["layer1.1"] == 65_536  # stage 1 keeps 64x32x32
    assert act["layer2.1"] == 128 * 16 * 16 == 32_768
    assert act["layer3.1"] == 256 * 8 * 8 == 16_384
    assert act["layer4.0"] == 512 * 4 * 4 == 8_192
    assert act["layer4.1"] == 512  # the global average pooling of the head joins the last block
    # stem: 3x3 conv 64*3*9 = 1,728 + BN 128 = 1,856; heron_sfl "Client Size 1" (stem + one residual block)
    # adds 2*(64*64*9 + 128) = 73,984
    assert table.by_name("stem").d_c == 1_856
    assert table.by_name("layer1.0").d_c == 1_856 + 73_984
    # cut_layer L_c = 1..4: the ends of the four stages
    stages = stage_cuts(table)
    assert [(k, c.name) for k, c in stages.items()] == [
        ("layer1", "layer1.1"),
        ("layer2", "layer2.1"),
        ("layer3", "layer3.1"),
        ("layer4", "layer4.1"),
    ]
    assert table.by_name("layer4.1").d_s == 512 * 10 + 10  # L_c = 4 leaves only the fc on the server


def test_resnet50_stage_ends() -> None:
    stages = stage_cuts(model_cuts("resnet50"))
    assert [c.name for c in stages.values()] == ["layer1.2", "layer2.3", "layer3.5", "layer4.2"]


def test_alexnet_eight_blocks() -> None:
    table = model_cuts("alexnet")
    # MU-SplitFed: AlexNet "contains only 8 layers", L_c = n is a cut after the n-th: 7 cuts, index = L_c
    assert len(table.blocks) == 8 and len(table.cuts) == 7
    assert [c.index for c in table.cuts] == [1, 2, 3, 4, 5, 6, 7]
    assert table.cuts[0].d_c == 64 * 3 * 11 * 11 + 64 == 23_296
    assert table.cuts[0].activation == 64 * 27 * 27  # conv 224 -> 55, max-pool 3/2 -> 27
    assert table.cuts[4].activation == 256 * 6 * 6 == 9_216  # after the adaptive pooling and the flatten
    assert table.cuts[6].d_s == 4096 * 10 + 10


def test_sl_noniid_client_shares() -> None:
    # sl_noniid: LeNet-5 split after the second max-pooling, "6% of the entire model size" at the client
    lenet = model_cuts("lenet5").by_name("conv2")
    assert lenet.d_c == 156 + 2_416 and lenet.activation == 16 * 4 * 4
    assert lenet.d_c / lenet.d == pytest.approx(0.058, abs=0.001)
    # VGG-11 split after the third max-pooling, "10%": 1,792 + 73,856 + 295,168 + 590,080 + BN 1,408 = 962,304
    vgg = model_cuts("vgg11").by_name("features.5")
    assert vgg.d_c == 962_304 and vgg.activation == 256 * 4 * 4
    assert vgg.d_c / vgg.d == pytest.approx(0.104, abs=0.001)


def test_expand_opens_a_residual_block() -> None:
    names = [c.name for c in model_cuts("resnet18", expand="layer1.0").cuts]
    assert names[:6] == ["stem", "layer1.0.conv1", "layer1.0.bn1", "layer1.0.conv2", "layer1.0.bn2", "layer1.1"]
    with pytest.raises(ParameterError) as e:
        model_cuts("resnet18", expand=("layer9",))
    assert e.value.name == "expand"


# --- enumeration rules ---------------------------------------------------------------------------------


class Reordered(nn.Module):
    """Registers ``b`` before ``a`` but runs ``a`` first."""

    def __init__(self) -> None:
        super().__init__()
        self.b = nn.Linear(3, 2)
        self.a = nn.Linear(4, 3)
        self.act = nn.ReLU()
        self.unused = nn.Linear(100, 100)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.b(self.act(self.a(x))))  # one ReLU used twice: a parameterless function


def test_forward_order_not_registration_order() -> None:
    assert [n for n, _ in enumerate_blocks(Reordered(), input_shape=(4,))] == ["a", "act", "b"]
    table = model_cuts(Reordered(), (4,))
    assert [b.name for b in table.blocks] == ["a", "b"]  # "unused" never runs: dropped
    assert table.d == 15 + 8


def test_tied_weights_counted_once() -> None:
    class Tied(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Linear(4, 4, bias=False)
            self.mid = nn.Linear(4, 4)
            self.out = nn.Linear(4, 4, bias=False)
            self.out.weight = self.emb.weight

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.out(self.mid(self.emb(x)))

    table = model_cuts(Tied(), (4,))
    assert [b.params for b in table.blocks] == [16, 20, 0]  # the tied weight counts where first used
    assert table.d == 36


def test_direct_parameters_of_the_root_go_to_the_client() -> None:
    class Scaled(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.scale = nn.Parameter(torch.ones(5))
            self.layers = nn.Sequential(nn.Linear(5, 3), nn.Linear(3, 2))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.layers(x * self.scale)

    cut = model_cuts(Scaled(), (5,)).cuts[0]
    assert cut.name == "layers.0" and cut.d_c == 5 + 18 and cut.d_s == 8


def test_reused_block_is_an_error() -> None:
    class Shared(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.out = nn.Linear(4, 2)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.out(self.fc(self.fc(x)))

    with pytest.raises(ParameterError) as e:
        model_cuts(Shared(), (4,))
    assert e.value.name == "problem.model" and "'fc' runs 2 times" in e.value.rule


def test_real_forward_when_meta_fails() -> None:
    class DataDependent(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Linear(4, 3)
            self.b = nn.Linear(3, 2)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = self.a(x)
            return self.b(h if h.sum().item() >= 0 else -h)  # .item() has no meta value

    table = model_cuts(DataDependent(), (4,))
    assert table.cuts[0].d_c == 15 and table.cuts[0].flops == 36


def test_users_model_left_as_it_was() -> None:
    model = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.Dropout(0.5), nn.Linear(3, 2))
    model.train()
    model[1].eval()  # mixed training flags must come back as they were
    before = {k: v.clone() for k, v in model.state_dict().items()}
    model_cuts(model, (4,))
    enumerate_blocks(model, input_shape=(4,))
    assert [m.training for m in model.modules()] == [True, True, False, True, True]
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert all(not m._forward_hooks and not m._forward_pre_hooks for m in model.modules())
    assert model[0].weight.device.type == "cpu"


# --- bad input -------------------------------------------------------------------------------------------


def test_bad_input_shape() -> None:
    with pytest.raises(ParameterError) as e:
        model_cuts("cnn", (3, 28, 28))  # 3 channels into a 1-channel conv
    assert e.value.name == "problem.input_shape" and "does not fit cnn" in e.value.rule and "channels" in e.value.rule
    with pytest.raises(ParameterError) as e:
        model_cuts(nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 2)), (5,))
    assert e.value.name == "problem.input_shape"
    for shape in [(0, 4), (2.0,), (), "4", (True,)]:
        with pytest.raises(ParameterError) as e:
            model_cuts(nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 2)), shape)  # type: ignore[arg-type]
        assert e.value.name == "problem.input_shape"
    with pytest.raises(ParameterError) as e:
        model_cuts(nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 2)))
    assert e.value.name == "problem.input_shape" and "required" in e.value.rule


def test_unknown_model_name() -> None:
    with pytest.raises(ParameterError) as e:
        model_cuts("resnet19")
    assert e.value.name == "problem.model" and "unknown model 'resnet19'" in e.value.rule and "resnet18" in e.value.rule
    with pytest.raises(ParameterError):
        build("resnet19")


def test_model_that_does_not_build() -> None:
    with pytest.raises(ParameterError) as e:
        build("alexnet", depth=3)
    assert e.value.name == "problem.model" and "does not build" in e.value.rule
    with pytest.raises(ParameterError) as e:
        build("mlp", hidden=(0,))
    assert e.value.name == "hidden[0]"
    with pytest.raises(ParameterError) as e:
        zoo.lenet5(input_size=12)
    assert e.value.name == "input_size"
    for spec, words in [
        ("json:dumps", "does not build"),  # needs an argument
        ("collections:OrderedDict", "not a torch.nn.Module"),
        ("no_such_package_xyz:f", "cannot import"),
        ("verify.models.zoo:nope", "no callable"),
        ("resnet", "package.module:factory"),
    ]:
        with pytest.raises(ParameterError) as e:
            load_model(spec)
        assert e.value.name == "problem.model" and words in e.value.rule


def test_model_given_as_factory_path() -> None:
    table = model_cuts("verify.models.zoo:lenet5", (1, 28, 28))
    assert table.d == 44_426 and table.model == "verify.models.zoo:lenet5"


def test_fewer_than_two_blocks() -> None:
    with pytest.raises(ParameterError) as e:
        model_cuts(nn.Linear(4, 3), (4,))
    assert e.value.name == "problem.model" and "no cut" in e.value.rule


def test_a_stage_name_is_the_cut_after_its_last_block() -> None:
    # the zoo's ResNet-18 (CIFAR): stages layer1..layer4 of two BasicBlocks each, named layer<s>.0 and layer<s>.1;
    # "--cut layer2" is the cut after layer2's last block, layer2.1 (cut_layer's L_c = 2)
    from verify.models import resolve_cut
    from verify.split import Split

    net = zoo.resnet18()
    assert [n for n, _ in net.layer2.named_children()] == ["0", "1"]
    table = model_cuts("resnet18")
    assert resolve_cut(table, "layer2").name == "layer2.1" == resolve_cut(table, "layer2.1").name
    assert resolve_cut(table, "layer4").name == "layer4.1"
    with pytest.raises(ParameterError, match="stages: layer1, layer2, layer3, layer4"):
        resolve_cut(table, "layer5")
    split = Split.at_cut(net, "layer2", (3, 32, 32))
    assert split.cut == "layer2.1" and "layer2.1.conv2.weight" in split.parts["client"]
    assert "layer3.0.conv1.weight" in split.parts["server"]


def test_a_sequential_cut_carries_its_layer_type() -> None:
    from sfltheory.plan.records import cut_name
    from sfltheory.plan.render import cuts_text

    net = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                              torch.nn.Linear(4 * 6 * 6, 10), torch.nn.Linear(10, 10))  # fmt: skip
    table = model_cuts(net, (1, 8, 8))
    assert [c.name for c in table.cuts] == ["0", "3"]
    assert [c.label for c in table.cuts] == ["0 (Conv2d)", "3 (Linear)"]
    assert "3 (Linear)" in cuts_text(table) and cut_name(table.cuts[1]) == "3 (Linear)"
    assert model_cuts("resnet18").cuts[0].label == "stem"  # a named block keeps its name
