"""Benchmarks: crowdnb against the reference packages on the same generated input, in one process.

Each `benchmarks/bench_<topic>.py` defines `CASES`, a list of functions taking no argument (or `quick: bool`)
and returning a `Result` (or a list of them). Run all with `python -m benchmarks` (`--only WORD` to filter,
`--quick` for small sizes).
"""
