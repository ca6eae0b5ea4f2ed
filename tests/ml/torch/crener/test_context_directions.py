"""The BiLSTM context run on CPU as one unidirectional LSTM per direction
over padded sequences computes what the packed bidirectional LSTM did:
values (zero at padding) and gradients against the packed formula, in fp64
and fp32, one and two layers, on random sequences of mixed lengths."""
import warnings

import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from spacy_globalner.ml.torch.crener.context_encoder import BiLSTMContext


def packed_forward(context: BiLSTMContext, X: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """The reference: one packed BiLSTM over both directions, native kernels."""
    packed = pack_padded_sequence(X, lengths, batch_first=True, enforce_sorted=False)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="TF32 acceleration")
        with torch.backends.mkldnn.flags(enabled=False):
            output, _ = context.lstm(packed)
    output, _ = pad_packed_sequence(output, batch_first=True, total_length=X.shape[1])
    return X + output


@pytest.mark.parametrize("dtype,atol", [(torch.float64, 1e-12), (torch.float32, 1e-5)])
@pytest.mark.parametrize("depth", [1, 2])
def test_directions_give_the_packed_bilstm_values_and_gradients(dtype, atol, depth):
    torch.manual_seed(depth)
    context = BiLSTMContext(8, depth).to(dtype)
    lengths = torch.tensor([9, 4, 1, 7])
    X = torch.randn(4, 9, 8, dtype=dtype, requires_grad=True)
    new = context(X, lengths)
    old = packed_forward(context, X, lengths)
    assert torch.allclose(new, old, atol=atol)
    # Padding: X itself, the LSTM adding nothing there.
    assert torch.equal(new[1, 4:], X[1, 4:])
    weights = torch.randn(new.shape, dtype=dtype)
    tensors = [X, *context.parameters()]
    new_grads = torch.autograd.grad((new * weights).sum(), tensors)
    old_grads = torch.autograd.grad((old * weights).sum(), tensors)
    for a, b in zip(new_grads, old_grads):
        assert torch.allclose(a, b, atol=atol * 10)


def test_directions_read_each_sequence_both_ways():
    """The backward direction of a token depends on the tokens after it, not
    on the padding: changing a later real token changes it, padding does not."""
    torch.manual_seed(0)
    context = BiLSTMContext(6).double()
    lengths = torch.tensor([5, 3])
    X = torch.randn(2, 5, 6, dtype=torch.float64)
    base = context(X, lengths)
    later = X.clone()
    later[1, 2] += 1.0
    padding = X.clone()
    padding[1, 3:] += 1.0
    assert not torch.allclose(context(later, lengths)[1, 0], base[1, 0])
    assert torch.allclose(context(padding, lengths)[1, :3], base[1, :3], atol=1e-12)
