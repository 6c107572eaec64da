#!/usr/bin/env python3
"""Interleaved timing of whole commands on the same input.

    bench/interleave.py N ADDRS 'CMD1 ARGS' 'CMD2 ARGS' ...

Runs each command N times, in turn (CMD1, CMD2, ..., CMD1, ...), with ADDRS
on standard input and the output discarded, and prints for each the median
wall time, CPU time (user + system) and max RSS of its process (from wait4),
and the ratios of wall time and RSS to the last command's. Interleaving keeps
the machine's drift out of the ratios.
"""
import os
import shlex
import statistics
import subprocess
import sys
import time


def main():
    n, addrs = int(sys.argv[1]), sys.argv[2]
    cmds = [shlex.split(c) for c in sys.argv[3:]]
    runs = [[] for _ in cmds]
    for _ in range(n):
        for j, c in enumerate(cmds):
            with open(addrs, "rb") as inp, open(os.devnull, "wb") as out:
                t = time.perf_counter()
                p = subprocess.Popen(c, stdin=inp, stdout=out, stderr=subprocess.DEVNULL)
                _, _, ru = os.wait4(p.pid, 0)
                wall = time.perf_counter() - t
            runs[j].append((wall * 1000, (ru.ru_utime + ru.ru_stime) * 1000, ru.ru_maxrss / 1024))
    med = [[statistics.median(r[k] for r in rs) for k in range(3)] for rs in runs]
    last = med[-1]
    for c, m in zip(cmds, med):
        print(f"{c[0]}: wall {m[0]:.1f} ms, cpu {m[1]:.1f} ms, max RSS {m[2]:.1f} MB; "
              f"wall ratio {m[0] / last[0]:.3f}, RSS ratio {m[2] / last[2]:.3f}")


if __name__ == "__main__":
    main()
