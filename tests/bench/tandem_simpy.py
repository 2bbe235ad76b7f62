# SPDX-License-Identifier: GPL-3.0-or-later
"""The open tandem line of tandem_model.h in SimPy, the yardstick of issue
26's "the engine >= 100x SimPy": tests/bench/simpy.sh runs it beside
build/bench/tandem and prints the ratio of jobs per CPU second.

The same model: Poisson arrivals at lambda into an unbounded store before 4
loaders (exponential, mean 1.0); a store of 8 before 1 transfer server
(mean 0.2), a loader finishing into a full store holding its job until a
place frees (blocking after service: a put into a full Store waits, first
come first served); an unbounded store before 1 compute server (mean
0.8). Sojourn: arrival to the end of compute. Written as one would in
SimPy: a process per server, Stores between them.

Usage: /usr/bin/python3 tandem_simpy.py N [lambda] [seed]. Needs SimPy 2
(Debian's python3-simpy: `from SimPy.Simulation import ...`). Prints one
line: jobs, CPU seconds, jobs per CPU second, mean sojourn, simulated
throughput.
"""
import random
import sys
import time

from SimPy.Simulation import (Process, Simulation, Store, get, hold, put)


class Line(Simulation):
    def __init__(self, n, lam, seed):
        Simulation.__init__(self)
        self.initialize()
        self.n, self.lam = n, lam
        self.rng = random.Random(seed)
        self.done = 0
        self.sum_sojourn = 0.0
        self.t_end = 0.0
        self.q = [Store(capacity="unbounded", sim=self),
                  Store(capacity=8, sim=self),
                  Store(capacity="unbounded", sim=self)]


class Arrivals(Process):
    def run(self, line):
        rng = line.rng
        for _ in range(line.n):
            yield put, self, line.q[0], [self.sim.now()]
            yield hold, self, rng.expovariate(line.lam)


class Server(Process):
    def run(self, line, i, mean):
        rng = line.rng
        q_in = line.q[i]
        q_out = line.q[i + 1] if i < 2 else None
        while True:
            yield get, self, q_in, 1
            job = self.got[0]
            yield hold, self, rng.expovariate(1.0 / mean)
            if q_out is not None:
                yield put, self, q_out, [job]
                continue
            now = self.sim.now()
            line.sum_sojourn += now - job
            line.t_end = now
            line.done += 1
            if line.done == line.n:
                self.sim.stopSimulation()


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: tandem_simpy.py N [lambda] [seed]\n")
        return 2
    n = int(sys.argv[1])
    lam = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    line = Line(n, lam, seed)
    a = Arrivals(sim=line)
    line.activate(a, a.run(line))
    for i, (servers, mean) in enumerate(((4, 1.0), (1, 0.2), (1, 0.8))):
        for _ in range(servers):
            s = Server(sim=line)
            line.activate(s, s.run(line, i, mean))
    t0 = time.process_time()
    line.simulate(until=1e300)
    dt = time.process_time() - t0
    print("simpy: %d jobs, %.3f CPU-s, %.0f jobs/s, mean sojourn %.4f s, "
          "simulated throughput %.4f jobs/s"
          % (line.done, dt, line.done / dt, line.sum_sojourn / line.done,
             line.done / line.t_end))
    return 0


if __name__ == "__main__":
    sys.exit(main())
