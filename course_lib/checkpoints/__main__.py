"""``python -m course_lib.checkpoints``: make, list and check the course's checkpoints.

    python -m course_lib.checkpoints train mlm_encoder [--threads N] [--resume]
    python -m course_lib.checkpoints verify [NAME ...]
    python -m course_lib.checkpoints restamp NAME [--steps 200]
    python -m course_lib.checkpoints list

``train`` runs the recipe on this machine's device (CUDA when there is one) and writes the
checkpoint into the package's ``weights/`` folder, or ``--out DIR``. A run saves its full
state every twentieth of its steps to ``DIR/NAME.state.pt``; ``--resume`` continues from it,
and the record's cost then adds the seconds of every part. ``verify`` exits 1 when a file
does not match its sha256 or the code has changed since the checkpoint was made.
``restamp`` records the current code's fingerprint once it has trained the run's first steps
to the recorded losses (a change that leaves what the run computes as it was).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

from course_lib.checkpoints.recipes import RECIPES, train_mlm_encoder
from course_lib.checkpoints.store import (
    WEIGHTS,
    code_fingerprint,
    restamp,
    save_pretrained,
    verify,
)
from course_lib.runtime import device as course_device


def _train(args: argparse.Namespace) -> int:
    if args.threads:
        torch.set_num_threads(args.threads)
    folder = Path(args.out) if args.out else WEIGHTS
    state, spent = folder / f"{args.name}.state.pt", folder / f"{args.name}.state.json"
    if args.resume and not state.is_file():
        print(f"nothing to resume: no {state}", file=sys.stderr)
        return 2
    earlier = json.loads(spent.read_text())["seconds"] if args.resume else 0.0
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()

    def log(line: str) -> None:  # progress, and the seconds spent up to this save
        seconds = earlier + time.perf_counter() - start
        spent.write_text(json.dumps({"seconds": seconds}))
        print(f"{line}  ({seconds / 60:.1f} min)", flush=True)

    device, code = course_device(), code_fingerprint()  # the code the run starts with
    trained = train_mlm_encoder(
        RECIPES[args.name], device=device, state=str(state), resume=args.resume, log=log
    )
    path = save_pretrained(
        args.name,
        trained,
        RECIPES[args.name],
        directory=folder,
        seconds=earlier + trained.seconds,
        device=torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
        code=code,
    )
    state.unlink(missing_ok=True)
    spent.unlink(missing_ok=True)
    print(f"wrote {path}")
    return 0


def _verify(args: argparse.Namespace) -> int:
    bad = 0
    for name in args.names or sorted(RECIPES):
        problems = verify(name, args.dir)
        print(f"{name}: {'ok' if not problems else '; '.join(problems)}")
        bad += bool(problems)
    return 1 if bad else 0


def _restamp(args: argparse.Namespace) -> int:
    problems = restamp(args.name, steps=args.steps, directory=args.dir)
    print(f"{args.name}: {'restamped' if not problems else '; '.join(problems)}")
    return 1 if problems else 0


def _list(args: argparse.Namespace) -> int:
    for name, recipe in sorted(RECIPES.items()):
        print(f"{name}: {recipe}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course_lib.checkpoints")
    sub = parser.add_subparsers(dest="command", required=True)
    train = sub.add_parser("train", help="make a checkpoint with its recipe")
    train.add_argument("name", choices=sorted(RECIPES))
    train.add_argument(
        "--out", help="folder to write to (default: the package's weights/)"
    )
    train.add_argument(
        "--threads", type=int, default=0, help="torch threads (default: torch's)"
    )
    train.add_argument("--resume", action="store_true", help="continue a stopped run")
    train.set_defaults(run=_train)
    check = sub.add_parser(
        "verify", help="check sha256 sums and the code's fingerprint"
    )
    check.add_argument("names", nargs="*", help=f"of {sorted(RECIPES)} (default: all)")
    check.add_argument("--dir", help="folder to read (default: the package's weights/)")
    check.set_defaults(run=_verify)
    stamp = sub.add_parser(
        "restamp",
        help="record the current code, once it is shown to train the same run",
    )
    stamp.add_argument("name", choices=sorted(RECIPES))
    stamp.add_argument(
        "--steps", type=int, default=200, help="steps to train again and compare"
    )
    stamp.add_argument("--dir", help="folder to read (default: the package's weights/)")
    stamp.set_defaults(run=_restamp)
    sub.add_parser("list", help="the recipes").set_defaults(run=_list)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
