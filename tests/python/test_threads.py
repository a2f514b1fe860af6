"""Runs release the GIL (docs/python.md "Threads"): two Python threads run two models at the same time, and
each gets the result it gets alone."""

import threading

import netdp

JOBS = {
    "gossip": (netdp.gossip_loss, dict(graph="hypercube:dim=8", steps=12, t_start=1, device="cpu", threads=1)),
    "walk": (netdp.walk_loss, dict(graph="grid:rows=12,cols=12", steps=30, device="cpu", threads=1)),
}


def test_two_threads_two_models():
    serial = {name: function(**kwargs).loss for name, (function, kwargs) in JOBS.items()}
    results, errors = {}, []
    start = threading.Barrier(len(JOBS))

    def work(name):
        function, kwargs = JOBS[name]
        try:
            start.wait()
            results[name] = function(**kwargs).loss
        except Exception as e:  # reported below, not lost in the thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(name,)) for name in JOBS]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for name in JOBS:
        assert results[name].tobytes() == serial[name].tobytes()
