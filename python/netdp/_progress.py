"""Progress of long runs (docs/python.md "Progress and Ctrl-C").

A run's loops report the fraction done of each stage ("walk-sim", "gossip-sim privacy") to the engine's progress
sink (src/core/progress.hpp); while the run goes on, the calling thread passes each new fraction to a callable,
about every 50 ms. ``progress=True`` shows one tqdm bar per stage when tqdm is installed, else the engine's own
lines on stderr; ``progress=callable`` calls ``callable(stage, fraction)`` on the calling thread.
"""


def _tqdm_class():
    """tqdm's bar class, or None when tqdm is not installed."""
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm


class TqdmBars:
    """One tqdm bar per stage, counting percent: update() is called with the whole percents gained, so each bar's
    count never goes down and ends at 100 when its stage ends."""

    def __init__(self, tqdm):
        self._tqdm = tqdm
        self._bars = {}

    def __call__(self, stage, fraction):
        if stage not in self._bars:
            self._bars[stage] = [self._tqdm(total=100, desc=stage, unit="%"), 0]
        bar = self._bars[stage]
        percent = min(100, max(bar[1], int(fraction * 100)))
        if percent > bar[1]:
            bar[0].update(percent - bar[1])
            bar[1] = percent

    def close(self):
        for bar, _ in self._bars.values():
            bar.close()


def _nothing():
    pass


def progress_watcher(progress):
    """(engine lines wanted, callable or None, close) for a run's ``progress`` argument."""
    if progress is None or progress is False:
        return False, None, _nothing
    if progress is True:
        tqdm = _tqdm_class()
        if tqdm is None:
            return True, None, _nothing  # the engine's own lines on stderr
        bars = TqdmBars(tqdm)
        return False, bars, bars.close
    if callable(progress):
        return False, progress, _nothing
    raise TypeError(f"progress: expected True, False or a callable(stage, fraction), got {type(progress).__name__}")
