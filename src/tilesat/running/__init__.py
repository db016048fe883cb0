"""Running: how any run is controlled, whatever it computes.

The deadline and Ctrl-C, forked children that can be killed, streams from
them (:mod:`.control`); the memory limit (:mod:`.memory`); a tilesat-only
stdout (:mod:`.stdout_guard`); checkpoints of finished units
(:mod:`.checkpoint`) and units as tasks on a Dask cluster (:mod:`.cluster`).

The bottom layer: it imports nothing of tilesat but :mod:`tilesat.errors`;
everything above may import it.
"""
