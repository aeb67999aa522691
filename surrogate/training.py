"""Training a surrogate: the split, the normalization, the loop (AdamW, cosine decay, early
stopping, checkpoints and resume, a metrics log) and data parallelism over several GPUs.

Normalization constants come from the training split only and live inside the models
(surrogate/models.py). The loop is generic: a model, a loss over a batch of shape indices, and
a validation loss.

Over 250 lines: the Trainer's loop, checkpoints, resume and metrics log share its state.
"""

from __future__ import annotations

import csv
import logging
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import paddle

from solver.atomic import write_atomically
from solver.errors import CheckpointError

if TYPE_CHECKING:
    from surrogate.train_config import OptimConfig

log = logging.getLogger(__name__)

LOG_COLUMNS = ("epoch", "train_loss", "validation_loss", "learning_rate", "seconds")


def split_shapes(
    n: int, validation: float, test: float, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Train, validation and test indices of n shapes (each sample is one shape): a seeded
    permutation, at least one shape in each held-out part."""
    if n < 3:
        raise ValueError(
            f"{n} shapes cannot be split into train, validation and test: make more samples"
        )
    order = np.random.default_rng(seed).permutation(n)
    n_test = max(1, round(test * n))
    n_val = max(1, round(validation * n))
    return (
        np.sort(order[n_test + n_val :]),
        np.sort(order[n_test : n_test + n_val]),
        np.sort(order[:n_test]),
    )


def scale_of(values: np.ndarray, axis: int | None = 0) -> np.ndarray:
    """Standard deviation, 1 where it is zero (a fixed parameter)."""
    std = np.nanstd(values, axis=axis)
    return np.where(std > 0, std, 1.0)


@dataclass
class Parallel:
    """This process's place in a paddle.distributed run (world 1 without the launcher)."""

    rank: int = 0
    world: int = 1

    @property
    def leader(self) -> bool:
        return self.rank == 0


def init_parallel() -> Parallel:
    """Join paddle.distributed when launched by `python -m paddle.distributed.launch`."""
    import paddle.distributed as dist

    world = dist.get_world_size()
    if world > 1:
        dist.init_parallel_env()
    return Parallel(dist.get_rank(), world)


#: loss_fn(net, batch): the training loss of the shapes with the given indices into the training
#: split, computed through net (the task's loss layer, wrapped for data parallelism)
LossFn = Callable[[paddle.nn.Layer, np.ndarray], paddle.Tensor]
ValidationFn = Callable[[paddle.nn.Layer], float]


class Trainer:
    """Trains one model: minibatches of shape indices, AdamW with a cosine-decayed rate, early
    stopping on the validation loss (the best weights are kept), a checkpoint every
    checkpoint_every epochs in out/checkpoint, one metrics.csv row per epoch."""

    def __init__(
        self,
        model: paddle.nn.Layer,
        loss_layer: paddle.nn.Layer,
        n_train: int,
        loss_fn: LossFn,
        validation_fn: ValidationFn,
        optim: OptimConfig,
        out: Path,
        parallel: Parallel,
    ) -> None:
        """loss_layer: a layer holding model whose forward returns the training loss (gradients
        are averaged across GPUs through it)."""
        self.model = model
        self.net = paddle.DataParallel(loss_layer) if parallel.world > 1 else loss_layer
        self.n_train, self.loss_fn, self.validation_fn = n_train, loss_fn, validation_fn
        self.optim, self.out, self.parallel = optim, out, parallel
        self.schedule = paddle.optimizer.lr.CosineAnnealingDecay(
            learning_rate=optim.learning_rate,
            T_max=optim.epochs,
            eta_min=optim.learning_rate * optim.min_lr_frac,
        )
        self.optimizer = paddle.optimizer.AdamW(
            learning_rate=self.schedule,
            parameters=model.parameters(),
            weight_decay=optim.weight_decay,
        )
        self.rng = np.random.default_rng(optim.seed)
        self.epoch = 0
        self.best_loss = math.inf
        self.best_epoch = 0
        self.best_state = {k: v.numpy().copy() for k, v in model.state_dict().items()}

    # ---- checkpoints ----------------------------------------------------------------------
    @property
    def checkpoint_path(self) -> Path:
        return self.out / "checkpoint" / "trainer.pdckpt"

    def save_checkpoint(self) -> None:
        state = {
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "epoch": self.epoch,
            "best_loss": self.best_loss,
            "best_epoch": self.best_epoch,
            "best_state": self.best_state,
            "rng": self.rng.bit_generator.state,
        }
        write_atomically(self.checkpoint_path, lambda tmp: paddle.save(state, str(tmp)))

    def resume(self) -> None:
        """Continue from out/checkpoint (CheckpointError if there is none or it does not fit)."""
        if not self.checkpoint_path.is_file():
            raise CheckpointError(
                f"no checkpoint in {self.checkpoint_path.parent}: train without --resume"
            )
        try:
            state = paddle.load(str(self.checkpoint_path))
            self.model.set_state_dict(state["model"])
            self.optimizer.set_state_dict(state["optimizer"])
        except (ValueError, KeyError, RuntimeError) as exc:
            raise CheckpointError(
                f"the checkpoint in {self.checkpoint_path.parent} belongs to another model "
                f"({str(exc).splitlines()[0]}): train without --resume"
            ) from exc
        self.epoch, self.best_loss, self.best_epoch = (
            state["epoch"],
            state["best_loss"],
            state["best_epoch"],
        )
        self.best_state = state["best_state"]
        self.rng.bit_generator.state = state["rng"]
        self._truncate_log(self.epoch)
        log.info(
            "resumed at epoch %d (best validation loss %.5g at epoch %d)",
            self.epoch,
            self.best_loss,
            self.best_epoch,
        )

    def _truncate_log(self, epoch: int) -> None:
        path = self.out / "metrics.csv"
        if not path.is_file():
            return
        rows = [r for r in csv.reader(path.read_text().splitlines())]
        kept = [rows[0]] + [r for r in rows[1:] if int(r[0]) <= epoch]
        path.write_text("\n".join(",".join(r) for r in kept) + "\n")

    # ---- the loop -------------------------------------------------------------------------
    def fit(self) -> None:
        o, p = self.optim, self.parallel
        log_path = self.out / "metrics.csv"
        if p.leader and not log_path.is_file():
            log_path.parent.mkdir(parents=True, exist_ok=True)
            log_path.write_text(",".join(LOG_COLUMNS) + "\n")
        bar = _progress(o.epochs, self.epoch) if p.leader else None
        try:
            while self.epoch < o.epochs and self.epoch - self.best_epoch < o.patience:
                t0 = time.perf_counter()
                train_loss = self._epoch()
                self.epoch += 1
                self.schedule.step()
                self.model.eval()
                with paddle.no_grad():
                    val_loss = self.validation_fn(self.model)
                self.model.train()
                if val_loss < self.best_loss:
                    self.best_loss, self.best_epoch = val_loss, self.epoch
                    self.best_state = {
                        k: v.numpy().copy() for k, v in self.model.state_dict().items()
                    }
                if p.leader:
                    with open(log_path, "a") as fh:
                        fh.write(
                            f"{self.epoch},{train_loss:.6g},{val_loss:.6g},{self.schedule.get_lr():.6g},"
                            f"{time.perf_counter() - t0:.4f}\n"
                        )
                    if self.epoch % o.checkpoint_every == 0:
                        self.save_checkpoint()
                    if bar is not None:
                        bar(self.epoch, train_loss, val_loss, self.best_loss)
        finally:
            if bar is not None:
                bar(None, 0, 0, 0)
        self.model.set_state_dict({k: paddle.to_tensor(v) for k, v in self.best_state.items()})
        self.model.eval()
        stopped = "early stopping" if self.epoch < o.epochs else "the epoch limit"
        log.info(
            "trained %d epochs (%s); best validation loss %.5g at epoch %d",
            self.epoch,
            stopped,
            self.best_loss,
            self.best_epoch,
        )

    def _epoch(self) -> float:
        p, o = self.parallel, self.optim
        order = self.rng.permutation(self.n_train)
        total, count = 0.0, 0
        for start in range(0, self.n_train, o.batch_size):
            batch = order[start : start + o.batch_size][p.rank :: p.world]
            if batch.size == 0:
                continue
            loss = self.loss_fn(self.net, batch)
            loss.backward()
            self.optimizer.step()
            self.optimizer.clear_grad()
            total += float(loss) * len(batch)
            count += len(batch)
        return total / max(count, 1)


def _progress(total: int, start: int) -> Callable[..., None]:
    """tqdm on a terminal, else a log line every tenth of the epochs; call with None to close."""
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=total, initial=start, unit="epoch", dynamic_ncols=True)

        def update(epoch, train, val, best):
            if epoch is None:
                bar.close()
                return
            bar.n = epoch
            bar.set_postfix_str(f"train {train:.4g}, validation {val:.4g}, best {best:.4g}")
            bar.refresh()

        return update

    step = max(1, total // 10)

    def log_line(epoch, train, val, best):
        if epoch is not None and epoch % step == 0:
            log.info(
                "epoch %d/%d  train loss %.4g  validation loss %.4g  best %.4g",
                epoch,
                total,
                train,
                val,
                best,
            )

    return log_line
