"""JAX adapter: device arrays from minibatch arrays.

Example (needs jax):
    >>> import numpy as np
    >>> to_jax(np.ones((2, 3), np.float32)).shape  # doctest: +SKIP
    (2, 3)
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from ..engine.layout import CSRMatrix


def _jax() -> Any:
    try:
        import jax.numpy as jnp
    except ImportError as e:
        raise ImportError("this needs JAX: pip install 'minibatcher[jax]'") from e
    return jnp


def to_jax(values: np.ndarray | CSRMatrix) -> Any:
    """A JAX array (dense) or a ``jax.experimental.sparse.BCSR`` matrix (CSR)."""
    jnp = _jax()
    if isinstance(values, CSRMatrix):
        from jax.experimental import sparse

        return sparse.BCSR((jnp.asarray(values.data), jnp.asarray(values.indices),
                            jnp.asarray(values.indptr)), shape=values.shape)
    return jnp.asarray(values)


def jax_minibatches(source: Any, minibatch_size: int) -> Iterator[dict[str, Any]]:
    """Yields ``{stream: jax array}`` per minibatch until the epoch ends."""
    for minibatch in source.minibatches(minibatch_size):
        yield {name: to_jax(data.values) for name, data in minibatch.items()}
