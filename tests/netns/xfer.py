#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""xfer.py PEER_ADDRS BYTES PORT - timed TCP transfers between the tasks of
a Slurm step, in pairs: with N tasks (N even), task i < N/2 sends BYTES to
task i + N/2, which listens on PORT + i at the i-th address of the comma
list PEER_ADDRS, reads BYTES and answers one byte once all arrived.  Each
sender prints "xfer SECONDS s MBIT Mbit/s from HOST start T0 end T1" (T0, T1
in seconds since the epoch: the nodes share the host's clock, so the test
can tell how far concurrent transfers overlapped)."""
import os
import socket
import sys
import time

addrs, total, port = sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3])
rank, ntasks = int(os.environ["SLURM_PROCID"]), int(os.environ["SLURM_NTASKS"])
if ntasks % 2 or len(addrs) != ntasks // 2:
    sys.exit("xfer: %d tasks need an even count and %d addresses (got %d)" % (ntasks, ntasks // 2, len(addrs)))
pair = rank % (ntasks // 2)
if rank >= ntasks // 2:
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("", port + pair))
    srv.listen(1)
    srv.settimeout(60)
    conn, _ = srv.accept()
    got = 0
    while got < total:
        b = conn.recv(1 << 20)
        if not b:
            sys.exit("xfer: connection closed after %d of %d bytes" % (got, total))
        got += len(b)
    conn.sendall(b"k")
    conn.close()
else:
    # the listener starts at the same time: retry for a while
    for _ in range(200):
        try:
            conn = socket.create_connection((addrs[pair], port + pair), timeout=60)
            break
        except OSError:
            time.sleep(0.05)
    else:
        sys.exit("xfer: cannot connect to %s:%d" % (addrs[pair], port + pair))
    chunk = b"x" * (1 << 20)
    t0 = time.time()
    left = total
    while left > 0:
        n = min(left, len(chunk))
        conn.sendall(chunk[:n])
        left -= n
    if conn.recv(1) != b"k":
        sys.exit("xfer: no answer from the receiver")
    t1 = time.time()
    dt = t1 - t0
    print("xfer %.3f s %.1f Mbit/s from %s start %.3f end %.3f"
          % (dt, total * 8 / dt / 1e6, socket.gethostname(), t0, t1), flush=True)
