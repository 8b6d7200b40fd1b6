#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""xfer.py PEER_ADDR BYTES PORT - a timed TCP transfer between the two tasks
of a Slurm step: task 1 listens on PORT and reads BYTES, task 0 connects to
PEER_ADDR:PORT, sends BYTES and waits for the one-byte answer sent once all
arrived.  Task 0 prints "xfer SECONDS s MBIT Mbit/s from HOST"."""
import os
import socket
import sys
import time

peer, total, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
if os.environ["SLURM_PROCID"] == "1":
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("", port))
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
            conn = socket.create_connection((peer, port), timeout=60)
            break
        except OSError:
            time.sleep(0.05)
    else:
        sys.exit("xfer: cannot connect to %s:%d" % (peer, port))
    chunk = b"x" * (1 << 20)
    t0 = time.time()
    left = total
    while left > 0:
        n = min(left, len(chunk))
        conn.sendall(chunk[:n])
        left -= n
    if conn.recv(1) != b"k":
        sys.exit("xfer: no answer from the receiver")
    dt = time.time() - t0
    print("xfer %.3f s %.1f Mbit/s from %s" % (dt, total * 8 / dt / 1e6, socket.gethostname()))
