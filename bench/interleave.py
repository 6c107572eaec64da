#!/usr/bin/env python3
"""Interleaved timing of whole commands on the same input.

    bench/interleave.py N ADDRS 'CMD1 ARGS' 'CMD2 ARGS' ...

Runs each command N times, in turn (CMD1, CMD2, ..., CMD1, ...), with ADDRS
on standard input and the output discarded, and prints for each the median
wall time, CPU time (user + system, from wait4) and max RSS of its process,
and the ratios of wall time and RSS to the last command's. Interleaving keeps
the machine's drift out of the ratios.

The max RSS is GNU time's (%M), which runs each command: a process that
Python forks keeps Python's high-water mark across exec (Linux carries the
old memory's peak into the new program's ru_maxrss), so wait4's figure
would never be below Python's own, about 14 MB. Time's is below 2 MB. The
wall and CPU times include GNU time's own, about a millisecond, alike for
every command.
"""
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    n, addrs = int(sys.argv[1]), sys.argv[2]
    cmds = [shlex.split(c) for c in sys.argv[3:]]
    runs = [[] for _ in cmds]
    rss = tempfile.NamedTemporaryFile(prefix="interleave-rss-")
    for _ in range(n):
        for j, c in enumerate(cmds):
            with open(addrs, "rb") as inp, open(os.devnull, "wb") as out:
                t = time.perf_counter()
                p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss.name] + c,
                                     stdin=inp, stdout=out, stderr=subprocess.DEVNULL)
                _, _, ru = os.wait4(p.pid, 0)
                wall = time.perf_counter() - t
            with open(rss.name) as f:
                kb = int(f.read().split()[-1])
            runs[j].append((wall * 1000, (ru.ru_utime + ru.ru_stime) * 1000, kb / 1024))
    med = [[statistics.median(r[k] for r in rs) for k in range(3)] for rs in runs]
    last = med[-1]
    for c, m in zip(cmds, med):
        print(f"{c[0]}: wall {m[0]:.1f} ms, cpu {m[1]:.1f} ms, max RSS {m[2]:.1f} MB; "
              f"wall ratio {m[0] / last[0]:.3f}, RSS ratio {m[2] / last[2]:.3f}")


if __name__ == "__main__":
    main()
