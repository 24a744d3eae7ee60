"""GOAL schedules, model JSON, machine JSON and DVM Predictor.par files, mutated: each reads as
a result that can be used, or raises the reader's own error (ModelError for GOAL and models,
MachineError for machines) naming the file."""

from __future__ import annotations

from pathlib import Path

from fuzzing import REPO, run_cases
from mutations import mutate, mutate_json

import parjava as pj

GOAL_TEXT = b"""/* two ranks */ num_ranks 3

rank 0 {
l1: send 8b to 1 tag 5 cpu 1 nic 0
  l2 :recv 16 b from 1 tag 6
calc 100 cpu 1
\tlabel_B: calc 7
x9: send 0b to 2
l2 requires l1
label_B irequires l2
x9 requires label_B
}
rank 1 { a: recv 8b from 0 tag 5
b: send 16b to 0 tag 6
b requires a
} rank 2 {
recv 0b from 0
}
"""


def _write_case(tmp_path: Path, case: int, suffix: str, data: bytes) -> Path:
    path = tmp_path / f"case-{case}{suffix}"
    path.write_bytes(data)
    return path


def test_mutated_goal_schedules(tmp_path: Path) -> None:
    seeds = [GOAL_TEXT, pj.goal.pattern("allreduce_ring", 4, 64).to_text().encode()]

    def make_case(rng: object, case: int) -> Path:
        data = mutate(rng, seeds[case % len(seeds)], text=True)  # type: ignore[arg-type]
        return _write_case(tmp_path, case, ".goal", data)

    def read(path: Path) -> None:
        schedule = pj.goal.load(path)
        schedule.to_text()
        repr(schedule)
        # A schedule the reader accepts is one the simulator runs; one that cannot finish
        # (a receive nobody sends to) is diagnosed op by op.
        result = schedule.simulate(pj.goal.LogGP(), check=False)
        result.report()

    outcomes = run_cases("GOAL", make_case, read, (pj.ModelError,))
    assert outcomes["read"] > 0 and outcomes["refused"] > 0, outcomes


def _model_seed() -> bytes:
    model = pj.Model("fuzz", params={"n": 64})
    with model.loop("i", 0, "n"):
        model.compute("1e-6 * n")
        model.send("(rank + 1) % size", "8 * n")
        model.recv("(rank + size - 1) % size")
    model.allreduce(8)
    return model.to_json().encode()


def test_mutated_models(tmp_path: Path) -> None:
    seed = _model_seed()

    def make_case(rng: object, case: int) -> Path:
        return _write_case(tmp_path, case, ".json", mutate_json(rng, seed))  # type: ignore[arg-type]

    def read(path: Path) -> None:
        model = pj.Model.load(path)
        model.to_json()
        repr(model)
        model.nodes()

    outcomes = run_cases("model JSON", make_case, read, (pj.ModelError,))
    assert outcomes["read"] > 0 and outcomes["refused"] > 0, outcomes


def test_mutated_machines(tmp_path: Path) -> None:
    seeds = [pj.Machine.preset(name).to_json().encode() for name in pj.Machine.preset_names()[:3]]

    def make_case(rng: object, case: int) -> Path:
        data = mutate_json(rng, seeds[case % len(seeds)])  # type: ignore[arg-type]
        return _write_case(tmp_path, case, ".json", data)

    def read(path: Path) -> None:
        machine = pj.Machine.load(path)
        machine.to_json()
        repr(machine)
        machine.p2p_time(1024, True)

    outcomes = run_cases("machine JSON", make_case, read, (pj.MachineError,))
    assert outcomes["read"] > 0 and outcomes["refused"] > 0, outcomes


def test_mutated_predictor_par(tmp_path: Path) -> None:
    seed = (REPO / "tests" / "data" / "machine" / "Predictor.par").read_bytes()

    def make_case(rng: object, case: int) -> Path:
        return _write_case(tmp_path, case, ".par", mutate(rng, seed, text=True))  # type: ignore[arg-type]

    def read(path: Path) -> None:
        machine = pj.Machine.from_predictor_par(path)
        machine.to_json()
        repr(machine)

    outcomes = run_cases("Predictor.par", make_case, read, (pj.MachineError,))
    assert outcomes["read"] > 0 and outcomes["refused"] > 0, outcomes
