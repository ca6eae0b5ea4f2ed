"""With a fixed seed, two CPU training runs give identical losses and predictions."""
import pytest

from tests.helpers.trained_pipelines import (
    component_params,
    predictions,
    sample_texts,
    train_small,
)


@pytest.mark.parametrize("name", component_params())
def test_same_seed_same_training(name):
    texts = sample_texts(8)
    first, first_losses = train_small(name, seed=0, n_updates=4)
    second, second_losses = train_small(name, seed=0, n_updates=4)
    assert first_losses == second_losses  # bit for bit, not approx
    assert predictions(first.pipe(texts)) == predictions(second.pipe(texts))
    assert first.get_pipe(name).model.to_bytes() == second.get_pipe(name).model.to_bytes()
    _, other_losses = train_small(name, seed=1, n_updates=4)
    assert other_losses != first_losses  # the seed is what makes them equal
