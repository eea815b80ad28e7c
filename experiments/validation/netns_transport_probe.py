#!/usr/bin/env python3
"""Socket probes for experiments/validation/netns_transport.sh (run inside network namespaces).

  pingpong-server ADDR PORT            echo 64-byte messages until the peer closes
  pingpong-client ADDR PORT ROUNDS     print the mean one-way time (us) of ROUNDS round trips
  fanin-server ADDR PORT K             accept K senders, print "K bytes seconds goodput_mbit"
  fanin-client ADDR PORT MIB           stream MIB MiB to the fan-in server
"""
import socket
import sys
import threading
import time

MESSAGE = b"x" * 64
WARMUP = 200


def listen(addr, port, backlog):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(backlog)
    return s


def connect(addr, port):
    for _ in range(500):  # the server may still be starting
        try:
            c = socket.create_connection((addr, port))
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return c
        except ConnectionRefusedError:
            time.sleep(0.01)
    raise SystemExit(f"netns_transport_probe: no server at {addr}:{port}")


def recv_exact(c, n):
    got = b""
    while len(got) < n:
        d = c.recv(n - len(got))
        if not d:
            return None
        got += d
    return got


def pingpong_server(addr, port):
    c, _ = listen(addr, port, 1).accept()
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while (d := recv_exact(c, len(MESSAGE))) is not None:
        c.sendall(d)


def pingpong_client(addr, port, rounds):
    c = connect(addr, port)
    for _ in range(WARMUP):
        c.sendall(MESSAGE)
        recv_exact(c, len(MESSAGE))
    start = time.perf_counter()
    for _ in range(rounds):
        c.sendall(MESSAGE)
        recv_exact(c, len(MESSAGE))
    print(f"{(time.perf_counter() - start) / rounds / 2 * 1e6:.2f}")


def fanin_server(addr, port, k):
    s = listen(addr, port, 64)
    conns = [s.accept()[0] for _ in range(k)]
    total = [0] * k
    first, last = [], []

    def drain(i):
        while d := conns[i].recv(1 << 20):
            if not first:
                first.append(time.perf_counter())
            total[i] += len(d)
        last.append(time.perf_counter())

    threads = [threading.Thread(target=drain, args=(i,)) for i in range(k)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = max(last) - first[0]
    print(f"{k} {sum(total)} {seconds:.6f} {sum(total) * 8 / seconds / 1e6:.1f}")


def fanin_client(addr, port, mib):
    c = connect(addr, port)
    block = b"x" * (1 << 20)
    for _ in range(mib):
        c.sendall(block)
    c.close()


if __name__ == "__main__":
    mode, addr, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    modes = {
        "pingpong-server": lambda: pingpong_server(addr, port),
        "pingpong-client": lambda: pingpong_client(addr, port, int(sys.argv[4])),
        "fanin-server": lambda: fanin_server(addr, port, int(sys.argv[4])),
        "fanin-client": lambda: fanin_client(addr, port, int(sys.argv[4])),
    }
    if mode not in modes:
        raise SystemExit(
            f"netns_transport_probe: mode '{mode}', expected one of {', '.join(modes)}")
    modes[mode]()
