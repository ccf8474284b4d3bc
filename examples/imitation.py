"""Imitation learning in a page: fit a softmax-regression policy to recorded decisions, then play it.

1. Record an expert's decisions (one row per decision, ``docs/output.md``)::

       canasta-sim run --games 200 --seed 1 -s expert --record-decisions all --out results/expert-decisions

2. Fit the policy (numpy for the model; pyarrow, a core dependency, reads the dataset)::

       python examples/imitation.py results/expert-decisions results/imitation.npz

3. Play it like any strategy, through the ``policy:`` spec form (``docs/env.md``)::

       canasta-sim run --games 400 --seed 2 -s policy:examples/imitation.py:load:weights=results/imitation.npz -s random

The model: the observation vector, standardised, times a weight matrix gives one score per action
seen in the recordings; the policy plays the best-scoring action the mask allows (an action never
seen in training is taken only when the mask allows no seen one, the lowest allowed number first).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pyarrow.parquet as pq


def fit(run_dir: str, out: str, *, epochs: int = 12, batch: int = 1024, rate: float = 0.01, seed: int = 0) -> None:
    """Fit the policy to the decisions of ``run_dir`` and save it to ``out`` (``.npz``)."""
    table = pq.read_table(f"{run_dir}/decisions", columns=["observation", "action", "allowed"]).combine_chunks()
    features = np.array(table.column("observation").to_pylist(), dtype=np.float32)
    chosen = table.column("action").to_numpy()
    actions, labels = np.unique(chosen, return_inverse=True)  # the actions the expert ever took
    # Which of those actions each decision allowed: the softmax runs over these only, as the policy will.
    column = np.full(int(actions.max()) + 1, -1)
    column[actions] = np.arange(len(actions))
    allowed_lists = table.column("allowed").chunk(0)
    allowed_actions = allowed_lists.flatten().to_numpy()
    rows_of = allowed_lists.value_parent_indices().to_numpy()
    known = allowed_actions < len(column)
    known[known] = column[allowed_actions[known]] >= 0
    allowed = np.zeros((len(labels), len(actions)), bool)
    allowed[rows_of[known], column[allowed_actions[known]]] = True
    mean = features.mean(axis=0)
    scale = features.std(axis=0) + 1e-6
    inputs = (features - mean) / scale
    rng = np.random.default_rng(seed)
    weights = np.zeros((inputs.shape[1], len(actions)), np.float32)
    bias = np.zeros(len(actions), np.float32)
    # Adam on the mean cross-entropy of the expert's action, mini-batch by mini-batch.
    moments = [np.zeros_like(weights), np.zeros_like(weights), np.zeros_like(bias), np.zeros_like(bias)]
    step = 0
    for epoch in range(epochs):
        order = rng.permutation(len(labels))
        for start in range(0, len(order), batch):
            rows = order[start : start + batch]
            x, y = inputs[rows], labels[rows]
            logits = np.where(allowed[rows], x @ weights + bias, -np.inf)
            logits -= logits.max(axis=1, keepdims=True)
            probabilities = np.exp(logits)
            probabilities /= probabilities.sum(axis=1, keepdims=True)
            probabilities[np.arange(len(y)), y] -= 1.0  # the gradient of the cross-entropy by the logits
            gradients = (x.T @ probabilities / len(y), probabilities.mean(axis=0))
            step += 1
            for index, (parameter, gradient) in enumerate(zip((weights, bias), gradients, strict=True)):
                first, second = moments[2 * index], moments[2 * index + 1]
                first[:] = 0.9 * first + 0.1 * gradient
                second[:] = 0.999 * second + 0.001 * gradient**2
                parameter -= rate * (first / (1 - 0.9**step)) / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
        predicted = np.argmax(np.where(allowed, inputs @ weights + bias, -np.inf), axis=1)
        print(f"epoch {epoch + 1}: {np.mean(predicted == labels):.1%} of {len(labels)} decisions imitated")
    np.savez(out, weights=weights, bias=bias, mean=mean, scale=scale, actions=actions)
    print(f"saved {out}: {len(actions)} actions, {weights.size + bias.size} parameters")


def load(weights: str):
    """The saved policy as a callable ``(observation, action_mask) -> action`` (the ``policy:`` spec form)."""
    saved = np.load(weights)
    matrix, bias, mean, scale, actions = (saved[name] for name in ("weights", "bias", "mean", "scale", "actions"))

    def act(observation, action_mask):
        scores = ((observation - mean) / scale) @ matrix + bias
        allowed = action_mask[actions] == 1
        if allowed.any():
            return int(actions[np.argmax(np.where(allowed, scores, -np.inf))])
        return int(np.flatnonzero(action_mask)[0])

    return act


def main(argv: list[str]) -> None:
    """``python examples/imitation.py RUN_DIR OUT.npz``: fit and save."""
    parser = argparse.ArgumentParser(description="Fit a softmax-regression policy to recorded decisions.")
    parser.add_argument("run_dir", help="a run directory written with --record-decisions")
    parser.add_argument("out", help="where to save the policy (.npz)")
    parser.add_argument("--epochs", type=int, default=12)
    arguments = parser.parse_args(argv)
    fit(arguments.run_dir, arguments.out, epochs=arguments.epochs)


if __name__ == "__main__":
    main(sys.argv[1:])
