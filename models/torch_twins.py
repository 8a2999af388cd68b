"""PyTorch definitions of the models in models/, with the same parameter and buffer names, so
that state dicts and safetensors files move between the two as they are: LeNet-5, the MLP
with the training program's MNIST widths 784-256-128-10, the CIFAR ResNets (ResNet-20/32/56),
ResNet-18 (CIFAR variant), the airbench-style net and GPT. Used by the fixture generators, the
benchmarks' PyTorch side and the checkpoint evaluator:

    sys.path.insert(0, <repository root>/models); from torch_twins import LeNet5, MLP, ...

The headers in models/ describe each architecture and its sources.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class LeNet5(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(400, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc3(F.relu(self.fc2(x)))


class MLP(nn.Module):
    def __init__(self, in_features=784):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(in_features, 256), nn.Linear(256, 128), nn.Linear(128, 10)])

    def forward(self, x):
        x = x.flatten(1)
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = F.relu(x)
        return x


class BasicBlock(nn.Module):
    """models/basic_block.h; shortcut "zero_pad" (option A) or "projection" (option B)."""

    def __init__(self, in_channels, out_channels, stride, shortcut):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_channels)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_channels)
        self.shortcut = nn.Sequential()
        self.zero_pad = None
        if stride != 1 or in_channels != out_channels:
            if shortcut == "zero_pad":
                added = out_channels - in_channels
                self.zero_pad = (stride, added // 2, added - added // 2)
            else:
                self.shortcut = nn.Sequential(
                    nn.Conv2d(in_channels, out_channels, 1, stride=stride, bias=False), nn.BatchNorm2d(out_channels))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.zero_pad is None:
            skip = self.shortcut(x)
        else:
            stride, before, after = self.zero_pad
            skip = F.pad(x[:, :, ::stride, ::stride], (0, 0, 0, 0, before, after))
        return F.relu(out + skip)


def basic_block_stage(blocks, in_channels, out_channels, stride, shortcut):
    return nn.Sequential(*[
        BasicBlock(in_channels if i == 0 else out_channels, out_channels, stride if i == 0 else 1, shortcut)
        for i in range(blocks)
    ])


class CIFARResNet(nn.Module):
    """models/cifar_resnet.h: depth 6n + 2, option A shortcuts, akamaster's initialization."""

    def __init__(self, depth, num_classes=10):
        super().__init__()
        n = (depth - 2) // 6
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.layer1 = basic_block_stage(n, 16, 16, 1, "zero_pad")
        self.layer2 = basic_block_stage(n, 16, 32, 2, "zero_pad")
        self.layer3 = basic_block_stage(n, 32, 64, 2, "zero_pad")
        self.linear = nn.Linear(64, num_classes)
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.kaiming_normal_(m.weight)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layer3(self.layer2(self.layer1(x)))
        return self.linear(F.adaptive_avg_pool2d(x, 1).flatten(1))


class ResNet18(nn.Module):
    """models/resnet18.h: kuangliu/pytorch-cifar's ResNet18, with a width option (64 is ResNet-18)."""

    def __init__(self, num_classes=10, width=64):
        super().__init__()
        w = width
        self.conv1 = nn.Conv2d(3, w, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(w)
        self.layer1 = basic_block_stage(2, w, w, 1, "projection")
        self.layer2 = basic_block_stage(2, w, 2 * w, 2, "projection")
        self.layer3 = basic_block_stage(2, 2 * w, 4 * w, 2, "projection")
        self.layer4 = basic_block_stage(2, 4 * w, 8 * w, 2, "projection")
        self.linear = nn.Linear(8 * w, num_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.linear(F.adaptive_avg_pool2d(x, 1).flatten(1))


class AirbenchConvGroup(nn.Module):
    """models/airbench_conv_group.h: airbench94's ConvGroup with trainable BN weights."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, padding=1, bias=False)
        self.norm1 = nn.BatchNorm2d(out_channels, eps=1e-12, momentum=0.4)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, padding=1, bias=False)
        self.norm2 = nn.BatchNorm2d(out_channels, eps=1e-12, momentum=0.4)
        for conv in (self.conv1, self.conv2):
            w = conv.weight.data
            nn.init.dirac_(w[:w.size(1)])

    def forward(self, x):
        x = F.gelu(self.norm1(F.max_pool2d(self.conv1(x), 2)))
        return F.gelu(self.norm2(self.conv2(x)))


class AirbenchNet(nn.Module):
    """models/airbench_net.h: airbench94's network with a trainable stem instead of whitening."""

    def __init__(self, widths=(64, 256, 256), num_classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, 24, 2)
        self.group1 = AirbenchConvGroup(24, widths[0])
        self.group2 = AirbenchConvGroup(widths[0], widths[1])
        self.group3 = AirbenchConvGroup(widths[1], widths[2])
        self.linear = nn.Linear(widths[2], num_classes, bias=False)

    def forward(self, x):
        x = F.gelu(self.stem(x))
        x = self.group3(self.group2(self.group1(x)))
        return self.linear(F.max_pool2d(x, 3).flatten(1)) * (1 / 9)


class CausalSelfAttention(nn.Module):
    """models/gpt_block.h: separate query, key, value and output projections."""

    def __init__(self, n_embd, n_head):
        super().__init__()
        self.head_dim = n_embd // n_head
        self.query = nn.Linear(n_embd, n_embd)
        self.key = nn.Linear(n_embd, n_embd)
        self.value = nn.Linear(n_embd, n_embd)
        self.proj = nn.Linear(n_embd, n_embd)

    def forward(self, x):
        B, T, _ = x.shape

        def heads(t):
            return t.view(B, T, t.shape[2] // self.head_dim, self.head_dim).transpose(1, 2)

        y = F.scaled_dot_product_attention(heads(self.query(x)), heads(self.key(x)), heads(self.value(x)),
                                           is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(B, T, -1))


class GPTMLP(nn.Module):
    def __init__(self, n_embd):
        super().__init__()
        self.fc = nn.Linear(n_embd, 4 * n_embd)
        self.proj = nn.Linear(4 * n_embd, n_embd)

    def forward(self, x):
        return self.proj(F.gelu(self.fc(x), approximate="tanh"))


class GPTBlock(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = GPTMLP(n_embd)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    """models/gpt.h. The output head is wte's weight itself (F.linear on it), not a module of its
    own, so that the state_dict has Brisk's entries, one per tensor. Initialization is the
    modules' PyTorch defaults: the fixtures overwrite the weights (pattern_weights.py)."""

    def __init__(self, vocab_size=256, block_size=64, n_layer=2, n_head=2, n_embd=64):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.blocks = nn.ModuleList([GPTBlock(n_embd, n_head) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)

    def forward(self, tokens):
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.wte(tokens) + self.wpe(positions)
        for block in self.blocks:
            x = block(x)
        return F.linear(self.ln_f(x), self.wte.weight)
