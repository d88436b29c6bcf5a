#!/usr/bin/env bash
# The engine's many-core checks (issue "One engine"), as one prepared script for a lent device machine (16 cores):
#   - 10M judgments from Parquet, front door included, every core against 1 thread (goal: >= 8x on 16 cores);
#   - the same judgments in memory on every core against a LocalCluster of one worker process per core (goal: in
#     memory faster);
#   - the machine's own ceilings (compute, memory, table) for 2 threads, and the other cases of bench_engine.
#
# The device image has numpy, pandas, pyarrow, scipy, numba, matplotlib and tqdm, not fastcore, threadpoolctl or
# dask. Here, once per session, in the repository's root (see /work/.library/device/README.md):
#   echo /.whl/ >> .git/info/exclude
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl \
#     fastcore threadpoolctl dask distributed tornado partd locket zict tblib
# then call the device's `run` with command "bash benchmarks/device.sh", carry [".whl"] and timeout_s 540; it
# writes its tables under $OUT. QUICK=--quick runs the small sizes (a smoke run, also here: PY=.venv/bin/python).
set -euo pipefail
PY=${PY:-python3}
OUT=${OUT:-$(mktemp -d)}
if compgen -G ".whl/*.whl" > /dev/null; then
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/crowdnb-site .whl/*.whl
    export PYTHONPATH=/tmp/crowdnb-site:${PYTHONPATH:-}
fi
export PYTHONPATH=$PWD:${PYTHONPATH:-} PYTHONUNBUFFERED=1 CROWDNB_PROGRESS=0
echo "cores: $(nproc)" | tee "$OUT/machine.txt"
"$PY" -c "import numpy, pandas, pyarrow, numba, dask
print(*(f'{m.__name__} {m.__version__}' for m in (numpy, pandas, pyarrow, numba, dask)))" | tee -a "$OUT/machine.txt"
# every case of bench_engine: the ceilings, the thread cases (every core vs 1), 10M, Dask per iteration, the cluster
"$PY" -m benchmarks --only bench_engine ${QUICK:-} 2>&1 | grep -v -e "WARNING" -e "Warning" \
    | tee "$OUT/bench_engine.txt"
