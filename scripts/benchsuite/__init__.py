"""The benchmark suite of docs/performance.md, run by scripts/bench: measuring writes one results
file; the report, cost model, floors and plots read it."""
