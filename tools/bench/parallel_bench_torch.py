#!/usr/bin/env python3
"""PyTorch's side of parallel_bench (tools/bench/parallel_bench.cc): the GPT twin
(models/torch_twins.py) trained on the same global batch (--batch sequences of --seq random
bytes, float32, AdamW lr 1e-4) for --warmup + --steps steps under one layout, one process per
rank (torch.multiprocessing.spawn, gloo over loopback on a free port). The row is the largest
over ranks of each rank's median step time, as tokens per second of the global batch:

  single     the GPT in one process.
  dp         DistributedDataParallel, the batch split over --ranks.
  tp         the whole GPT with its blocks split by DTensor (torch.distributed.tensor.parallel):
             ColwiseParallel for attn.query/key/value and mlp.fc, RowwiseParallel for attn.proj
             and mlp.proj; the embeddings, LayerNorms and the tied head stay replicated (the
             head is the embedding's weight: PyTorch's recipes split an untied head, this one
             is not).
  tp_blocks  the n_layer blocks alone on hidden states [batch, seq, n_embd], mse loss against a
             random target, split as tp (at --ranks 1: unsplit): parallel_bench.cc's tp row.
  pp         torch.distributed.pipelining: the blocks cut over ranks * v stages (v = 2 for
             --schedule interleaved), --microbatches microbatches; the first stage holds the
             embeddings, the last the final LayerNorm and an output head of its own (untied),
             as parallel_bench.cc's pp row. The bubble is the formula's ((p-1)/m, (p-1)/(v m));
             this side does not measure it.
  dp_tp      a 2-D mesh (dp, tp): the tp layout's model replicated over the dp dimension by
             torch.distributed._composable.replicate (DDP itself takes no DTensor parameters).
  dp_pp      2 pipeline ranks, the rest dp (the mesh (pp, dp, tp) with tp 1, parallel_bench.cc's
             order): the pp layout with each stage under DDP over the dp dimension
             (PipelineStage runs DDP's backward without sync except on the last microbatch).
  dp_tp_pp   the mesh (pp 2, dp, tp 2), 1F1B or --schedule: the pp layout with each stage's
             blocks split by the tp plan and the stage replicated over dp by
             torch.distributed._composable.replicate_with_fsdp (FSDP2's replicate: PipelineStage
             holds its gradient sync back until the last microbatch; the DDP-based replicate
             of dp_tp took no part in it and left the first stage's replicas unsynchronized).
Memory: the peak resident set size of each process (resource.getrusage's ru_maxrss; rss_base is
the peak before the model was made, after torch's import and the process group), the largest
over ranks. PyTorch keeps no allocator statistics for CPU tensors, so alloc_mb is "-".
A layout PyTorch cannot run prints its row with "n/a" and the exception's text as the reason.

    parallel_bench_torch.py --model mini --layout pp --schedule 1f1b --ranks 2
"""
import argparse
import datetime
import os
import resource
import socket
import statistics
import sys
import time
import traceback

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models"))
from torch_twins import GPT, GPTBlock  # noqa: E402

PRESETS = {  # models/gpt_config.h: n_layer, n_head, n_embd, block_size
    "tiny": (2, 2, 64, 64),
    "mini": (4, 4, 128, 128),
    "small": (6, 6, 384, 256),
    "base": (12, 14, 896, 1024),
}
VOCAB = 256


def parameter_count(n_layer, n_embd, block_size):
    return n_layer * (12 * n_embd * n_embd + 13 * n_embd) + (VOCAB + block_size + 2) * n_embd


def peak_rss_kb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def tp_plan():
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel
    return {"attn.query": ColwiseParallel(), "attn.key": ColwiseParallel(), "attn.value": ColwiseParallel(),
            "attn.proj": RowwiseParallel(), "mlp.fc": ColwiseParallel(), "mlp.proj": RowwiseParallel()}


class StageModel(nn.Module):
    """parallel_bench.cc's StageModel: blocks [first, last), the embeddings on stage 0, the final
    LayerNorm and an untied head on the last stage."""

    def __init__(self, n_head, n_embd, block_size, first, last, embeds, heads):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, n_embd) if embeds else None
        self.wpe = nn.Embedding(block_size, n_embd) if embeds else None
        self.blocks = nn.ModuleList([GPTBlock(n_embd, n_head) for _ in range(first, last)])
        self.ln_f = nn.LayerNorm(n_embd) if heads else None
        self.head = nn.Parameter(torch.randn(VOCAB, n_embd) * 0.02) if heads else None

    def forward(self, x):
        if self.wte is not None:
            x = self.wte(x) + self.wpe(torch.arange(x.shape[1]))
        for block in self.blocks:
            x = block(x)
        return F.linear(self.ln_f(x), self.head) if self.ln_f is not None else x


def gpt_loss(logits, targets):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


def build(args, rank, world):
    """The layout's step (forward and backward), optimizer parameters and bubble formula."""
    n_layer, n_head, n_embd, block_size = PRESETS[args.model]
    torch.manual_seed(1234)  # the same weights on every rank
    gen = torch.Generator().manual_seed(99)
    tokens = torch.randint(0, VOCAB, (args.batch, args.seq), generator=gen)
    targets = torch.randint(0, VOCAB, (args.batch, args.seq), generator=gen)
    layout = args.layout
    if layout in ("single", "dp"):
        model = GPT(VOCAB, block_size, n_layer, n_head, n_embd)
        rows = args.batch // world
        x, y = tokens[rank * rows:(rank + 1) * rows], targets[rank * rows:(rank + 1) * rows]
        if layout == "dp":
            model = nn.parallel.DistributedDataParallel(model)
        return (lambda: gpt_loss(model(x), y).backward()), model.parameters(), None
    if layout in ("tp", "tp_blocks", "dp_tp"):
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.tensor.parallel import parallelize_module
        tp = world if layout != "dp_tp" else world // 2
        dims = (world // tp, tp)
        mesh = init_device_mesh("cpu", dims, mesh_dim_names=("dp", "tp")) if world > 1 else None
        if layout == "tp_blocks":
            model = nn.ModuleList([GPTBlock(n_embd, n_head) for _ in range(n_layer)])
            blocks = model
        else:
            model = GPT(VOCAB, block_size, n_layer, n_head, n_embd)
            blocks = model.blocks
        if mesh is not None:
            for block in blocks:
                parallelize_module(block, mesh["tp"], tp_plan())
        if layout == "tp_blocks":
            x = torch.randn(args.batch, args.seq, n_embd, generator=gen)
            y = torch.randn(args.batch, args.seq, n_embd, generator=gen)

            def step():
                h = x
                for block in blocks:
                    h = block(h)
                F.mse_loss(h, y).backward()
            return step, model.parameters(), None
        x, y = tokens, targets
        if layout == "dp_tp":
            dp_rank, dp = mesh["dp"].get_local_rank(), dims[0]
            rows = args.batch // dp
            x, y = tokens[dp_rank * rows:(dp_rank + 1) * rows], targets[dp_rank * rows:(dp_rank + 1) * rows]
            # DDP takes no DTensor parameters; replicate (DDP's composable form) takes the mesh.
            from torch.distributed._composable import replicate
            replicate(model, device_mesh=mesh["dp"])
        return (lambda: gpt_loss(model(x), y).backward()), model.parameters(), None
    # pp, dp_pp, dp_tp_pp
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe, ScheduleInterleaved1F1B
    p = world if layout == "pp" else 2
    tp = 2 if layout == "dp_tp_pp" else 1
    mesh = init_device_mesh("cpu", (p, world // (p * tp), tp), mesh_dim_names=("pp", "dp", "tp"))
    pp_rank, pp_group = mesh["pp"].get_local_rank(), mesh["pp"].get_group()
    v = 2 if args.schedule == "interleaved" else 1
    stages_total = p * v

    def first_block(stage):
        base, extra = divmod(n_layer, stages_total)
        return stage * base + min(stage, extra)

    stages, params = [], []
    for c in range(v):
        s = pp_rank + c * p
        module = StageModel(n_head, n_embd, block_size, first_block(s), first_block(s + 1), s == 0,
                            s == stages_total - 1)
        if layout == "dp_tp_pp":
            from torch.distributed._composable.replicate_with_fsdp import replicate
            from torch.distributed.tensor.parallel import parallelize_module
            for block in module.blocks:
                parallelize_module(block, mesh["tp"], tp_plan())
            module = replicate(module, mesh=mesh["dp"])
        params += list(module.parameters())
        if layout == "dp_pp":
            module = nn.parallel.DistributedDataParallel(module, process_group=mesh["dp"].get_group())
        stages.append(PipelineStage(module, s, stages_total, torch.device("cpu"), group=pp_group))
    if args.schedule == "interleaved":
        schedule = ScheduleInterleaved1F1B(stages, n_microbatches=args.microbatches, loss_fn=gpt_loss)
    else:
        kind = ScheduleGPipe if args.schedule == "gpipe" else Schedule1F1B
        schedule = kind(stages[0], n_microbatches=args.microbatches, loss_fn=gpt_loss)
    dp_rank, dp = mesh["dp"].get_local_rank(), mesh["dp"].size()
    rows = args.batch // dp
    x, y = tokens[dp_rank * rows:(dp_rank + 1) * rows], targets[dp_rank * rows:(dp_rank + 1) * rows]
    first, last = pp_rank == 0, pp_rank == p - 1

    def step():
        if first:
            schedule.step(x)
        elif last:
            schedule.step(target=y)
        else:
            schedule.step()
    return step, params, (p - 1) / (v * args.microbatches)


def print_key_averages(prof, steps):
    """torch.profiler's ops of `steps` steps, per step by self CPU time, as parallel_bench.cc
    prints Brisk's: key_average <name> <calls> <self ms> <total ms>."""
    rows = sorted(prof.key_averages(), key=lambda e: e.self_cpu_time_total, reverse=True)
    for e in rows:
        print(f"key_average {e.key.replace(' ', '_')} {e.count / steps:.2f} "
              f"{e.self_cpu_time_total / 1e3 / steps:.4f} {e.cpu_time_total / 1e3 / steps:.4f}", flush=True)


def worker(rank, world, port, args, results):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(args.threads)
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=300))
    rss_base = peak_rss_kb()
    try:
        step, params, bubble = build(args, rank, world)
        opt = torch.optim.AdamW(params, lr=1e-4)
        times = []
        dist.barrier()
        for s in range(args.warmup + args.steps):
            start = time.perf_counter()
            opt.zero_grad(set_to_none=True)
            step()
            opt.step()
            if s >= args.warmup:
                times.append((time.perf_counter() - start) * 1e3)
        if args.key_averages > 0:
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
                for _ in range(args.key_averages):
                    opt.zero_grad(set_to_none=True)
                    step()
                    opt.step()
            if rank == 0:
                print_key_averages(prof, args.key_averages)
        most = torch.tensor([statistics.median(times), peak_rss_kb(), rss_base], dtype=torch.float64)
        dist.all_reduce(most, op=dist.ReduceOp.MAX)
        if rank == 0:
            results.put((most.tolist(), bubble))
    except Exception as e:  # noqa: BLE001 -- a layout PyTorch cannot run is a row, not a crash
        if rank == 0:
            traceback.print_exc(file=sys.stderr)
            results.put(("n/a", f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:160]))
    finally:
        dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", choices=sorted(PRESETS), default="mini")
    parser.add_argument("--layout", choices=("single", "dp", "tp", "tp_blocks", "pp", "dp_tp", "dp_pp", "dp_tp_pp"),
                        default="single")
    parser.add_argument("--schedule", choices=("gpipe", "1f1b", "interleaved"), default="1f1b")
    parser.add_argument("--ranks", type=int, default=1)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seq", type=int, default=64)
    parser.add_argument("--microbatches", type=int, default=4)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--key-averages", type=int, default=0,
                        help="profile this many steps after the timed ones; print rank 0's ops by self CPU time")
    args = parser.parse_args()
    n_layer, _, n_embd, block_size = PRESETS[args.model]
    if args.seq > block_size:
        parser.error(f"--seq {args.seq} exceeds {args.model}'s block_size {block_size}")
    ctx = mp.get_context("spawn")
    results = ctx.SimpleQueue()
    mp.spawn(worker, args=(args.ranks, free_port(), args, results), nprocs=args.ranks, join=True)
    measured, detail = results.get()
    layout = f"pp_{args.schedule}" if args.layout == "pp" else (
        f"{args.layout}_{args.schedule}" if args.layout in ("dp_pp", "dp_tp_pp") else args.layout)
    head = (f"parallel_bench side=torch model={args.model} layout={layout} ranks={args.ranks} batch={args.batch} "
            f"seq={args.seq} microbatches={args.microbatches} threads={args.threads} "
            f"parameters={parameter_count(n_layer, n_embd, block_size)}")
    if measured == "n/a":
        print(f"{head} n/a reason={detail.replace(' ', '_')}")
        return
    step_ms, rss_kb, base_kb = measured
    bubble = "-" if detail is None else f"{detail:.6f}"
    print(f"{head} step_ms={step_ms:.2f} tokens_per_s={args.batch * args.seq / (step_ms / 1e3):.1f} "
          f"rss_mb={rss_kb / 1024:.1f} rss_base_mb={base_kb / 1024:.1f} alloc_mb=- "
          f"bubble_formula={bubble} bubble_measured=-")


if __name__ == "__main__":
    main()
