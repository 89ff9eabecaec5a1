"""Writes an MNIST-like CTF file for the examples: python examples/make_mnist_like.py train.ctf [rows]"""

import sys

import numpy as np

path, rows = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 20000
rng = np.random.default_rng(0)
labels = rng.integers(0, 10, rows)
with open(path, "w") as f:
    for label in labels:
        pixels = rng.integers(0, 256, 784) * (rng.random(784) < 0.2)
        pixels[label * 78:(label + 1) * 78] = 255  # something to learn
        f.write(f"|labels {' '.join('1' if k == label else '0' for k in range(10))} "
                f"|features {' '.join(map(str, pixels))}\n")
