#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/). Deterministic; rerun after
changing an input format: python3 fuzz/corpus/make_seeds.py"""
import gzip
import os
import random
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(1)


def write(target, name, data):
    os.makedirs(os.path.join(HERE, target), exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(HERE, target, name), "wb") as f:
        f.write(data)


def payload_bytes(spec, k):
    if spec == 0:
        return 4 * k  # identity
    if spec == 1:
        return 2 * k  # fp16
    if spec in (2, 3):
        return (k + 7) // 8  # sign, binary
    return (k * (spec - 2) + 7) // 8  # nbit:B, B = spec - 2


# fuzz_compress_decode: [spec u8][mode u8][k u32][scale f32][payload | floats]
for spec in range(19):
    for k in (0, 13, 64):
        body = bytes(rng.randrange(256) for _ in range(payload_bytes(spec, k)))
        write("fuzz_compress_decode", f"decode_{spec}_{k}",
              struct.pack("<BBIf", spec, 0, k, 1.5) + body)
    floats = [0.0, -0.0, 1.0, -2.5, 1e-30, 3e38, float("inf"), float("nan")] + [
        rng.gauss(0, 1) for _ in range(8)]
    write("fuzz_compress_decode", f"encode_{spec}", struct.pack("<BBIf", spec, 2, 7, 0.0)
          + struct.pack(f"<{len(floats)}f", *floats))

# fuzz_compressed_messages: [spec u8][count u16][chunk_len u64][out_len u16][messages]
COMPRESSOR_IDS = [0, 1, 2, 3, 4, 5, 6]  # identity fp16 sign binary nbit:2 nbit:5 nbit:16
BITS = {4: 2, 5: 5, 6: 16}
for spec in COMPRESSOR_IDS:
    count, chunk = 4, 16
    if spec == 0:
        per = 4 * chunk
    elif spec == 1:
        per = 2 * chunk
    elif spec in (2, 3):
        per = 4 + chunk // 8 if spec == 2 else chunk // 8
    else:
        per = 4 + (chunk * BITS[spec] + 7) // 8
    msgs = bytes(rng.randrange(256) for _ in range(count * per))
    write("fuzz_compressed_messages", f"spec_{spec}",
          struct.pack("<BHQH", spec, count, chunk, 60) + msgs)


# TCP frames: magic | version | kind | channel | length | payload crc | header crc
def frame(kind, payload, channel=0):
    if isinstance(payload, str):
        payload = payload.encode()
    head = struct.pack("<IHHQQI", 0x434F5043, 1, kind, channel, len(payload), zlib.crc32(payload))
    return head + struct.pack("<I", zlib.crc32(head)) + payload


def fields(d):
    return "".join(f"{k}={v}\n" for k, v in sorted(d.items()))


TOKEN = "0123456789abcdef0123456789abcdef"
register = frame(2, fields({"token": TOKEN, "rank": 1, "world_size": 4, "host": "127.0.0.1",
                            "port": 4000, "node": "n0"}))
table = {"ranks": 4}
for r in range(4):
    table.update({f"host.{r}": "127.0.0.1", f"port.{r}": 4000 + r, f"node.{r}": "n0"})
table_frame = frame(3, fields(table))
hello = frame(5, fields({"token": TOKEN, "rank": 2, "world_size": 4}))
reject = frame(4, fields({"reason": "job token mismatch"}))
data = frame(1, bytes(range(64)), channel=0x1234)
for name, f in (("register", register), ("table", table_frame), ("hello", hello),
                ("reject", reject)):
    write("fuzz_tcp_handshake", name, f)
write("fuzz_tcp_frame", "stream",
      data + frame(8, b"") + hello + frame(7, "rank 2 failed") + frame(6, b""))
write("fuzz_tcp_frame", "register", register)
write("fuzz_tcp_frame", "table", table_frame)

# Config texts: small sizes, so fuzz_train_config resolves them (see its harness limits).
quadratic = """[run]
ranks = 4
gpus_per_node = 2
batch_per_rank = 8
steps = 20
eval_every = 5
seed = 1

[task]
name = "quadratic"
dimension = 50
condition_number = 100
noise = 1.0
heterogeneity = 0.1
train_size = 1024
seed = 1

[optimizer]
name = "onebit-adam"
lr = 1e-2
freeze_step = "20%"

[schedule]
type = "cosine"
warmup_steps = "5%"
"""
logistic = """[run]
ranks = 2
batch_per_rank = 16
epochs = 2

[task]
name = "logistic"
dimension = 8
train_size = 256
test_size = 64
separable = false
label_noise = 0.1

[optimizer]
name = "birder"
lr = 1e-2
"""
lamb = """[run]
ranks = 2
steps = 10
[task]
name = "quadratic"
dimension = 32
train_size = 512
[optimizer]
name = "onebit-lamb"
lr = 1e-3
freeze_step = 4
"""
write("fuzz_train_config", "quadratic.toml", quadratic)
write("fuzz_train_config", "logistic.toml", logistic)
write("fuzz_train_config", "lamb.toml", lamb)
write("fuzz_train_config", "overrides",
      quadratic + "\0run.steps=12\noptimizer.name=adam\nschedule.warmup_steps=3")

sweep = """[workload]
name = "bert-large-seq128"

[cluster]
preset = "ethernet-v100-4"

[sweep]
optimizers = ["adam", "onebit-adam", "birder"]
gpus = [16, 64, 256]
inter_node_gbps = [40, 160, 400]
batch_per_gpu = [16]
grad_accum = [1]
topology = ["star"]
overlap = false
"""
resnet = """[workload]
name = "resnet50-imagenet"

[cluster]
preset = "ethernet-a100-8"

[sweep]
optimizers = ["sgdm", "onebit-adam", "birder", "birder-hierarchical"]
gpus = [8, 16, 32, 64]
batch_per_gpu = [32, 128]
overlap = true
buckets = 4
"""
write("fuzz_sweep_config", "bert.toml", sweep)
write("fuzz_sweep_config", "resnet.toml", resnet)
write("fuzz_sweep_config", "overrides",
      sweep + "\0sweep.gpus=[8,32]\nsweep.topology=fat-tree\ncluster.preset=ethernet-a100-8")


# fuzz_idx_reader: [ndims selector: 1 + b % 4][file]
def idx(dims, data):
    return bytes([0, 0, 8, len(dims)]) + b"".join(struct.pack(">I", d) for d in dims) + data


images = idx([3, 4, 4], bytes(rng.randrange(256) for _ in range(48)))
labels = idx([5], bytes([0, 9, 3, 3, 1]))
write("fuzz_idx_reader", "images", bytes([2]) + images)
write("fuzz_idx_reader", "labels", bytes([0]) + labels)
write("fuzz_idx_reader", "images.gz", bytes([2]) + gzip.compress(images, mtime=0))
write("fuzz_idx_reader", "labels.gz", bytes([0]) + gzip.compress(labels, mtime=0))
