"""A light BiLSTM context layer over token vectors, as in W2NER (plain torch)."""
import warnings

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from ..bilstm import bilstm_by_direction


class BiLSTMContext(nn.Module):
    """Add a bidirectional LSTM's reading of each sequence to its token vectors.

    Sequences are packed, so padding never leaks into the real tokens and a
    padded batch gives the same vectors as each sequence alone.

    width (int): Width of the token vectors (even: each direction gets half).
    depth (int): Number of stacked BiLSTM layers.
    """

    def __init__(self, width: int, depth: int = 1):
        super().__init__()
        self.lstm = nn.LSTM(width, width // 2, num_layers=depth, batch_first=True, bidirectional=True)

    def forward(self, X: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """X (torch.Tensor): Padded token vectors (batch, n, width).
        lengths (torch.Tensor): Real length of each sequence (batch,), all >= 1.
        RETURNS (torch.Tensor): X plus the BiLSTM output, (batch, n, width); the
            residual keeps the tok2vec's features reachable from the start.
        """
        if X.device.type == "cpu":
            return X + self._by_direction(X, lengths).to(X.dtype)
        packed = pack_padded_sequence(X, lengths.cpu(), batch_first=True, enforce_sorted=False)
        # Elsewhere (GPUs: cuDNN) the packed sequences, with oneDNN off: its
        # packed LSTM backward grows far faster with length than the native
        # kernels'. On CPU the padded unidirectional LSTMs of _by_direction
        # above avoid packing altogether.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="TF32 acceleration")
            with torch.backends.mkldnn.flags(enabled=False):
                output, _ = self.lstm(packed)
        output, _ = pad_packed_sequence(output, batch_first=True, total_length=X.shape[1])
        return X + output.to(X.dtype)

    def _by_direction(self, X: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """The packed BiLSTM's output (zero at padding) from padded sequences,
        each direction of each layer one unidirectional LSTM over the batch
        (ml/torch/bilstm.py, which the tok2vec's BiLSTM encoder runs too). On
        CPU oneDNN runs a padded unidirectional LSTM forward and backward
        faster than the native kernels run the packed BiLSTM, and its time
        grows with the length as the packed one's does not.
        """
        return bilstm_by_direction(self.lstm, X, lengths, batch_first=True)
