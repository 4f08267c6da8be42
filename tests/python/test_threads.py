"""Ops called concurrently from Python threads give correct results."""
import threading

import axle


def test_threads_call_ops_concurrently():
    errors = []

    def work(k):
        try:
            a = axle.full((64, 64), float(k))
            for _ in range(50):
                s = (a @ axle.ones(64)).sum().item()
                if s != 64 * 64 * k:
                    errors.append((k, s))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
