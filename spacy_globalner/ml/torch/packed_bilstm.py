"""A bidirectional LSTM that runs each sequence of a padded batch on its own
tokens only.

torch.nn.LSTM over a padded batch starts the backward direction of every
sequence shorter than the longest one from the padding, so a doc's vectors
(and the entities found from them) change with the batch it shares. Packing
the batch first gives each sequence exactly the states it would get alone.
"""
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class PackedBiLSTM(torch.nn.Module):
    """Bidirectional LSTM over a (length, batch, width) padded batch whose
    sequences are sorted longest first, as Thinc's Padded holds them.

    width (int): Input and output width; each direction has width // 2 units.
    depth (int): Number of stacked layers.
    dropout (float): Dropout on the outputs of every layer but the last.
    """

    def __init__(self, width: int, depth: int, dropout: float):
        super().__init__()
        self.lstm = torch.nn.LSTM(width, width // 2, depth, bidirectional=True, dropout=dropout)

    def forward(self, padded: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """padded (Tensor): (max_length, n_sequences, width) inputs, zero past
            each sequence's end.
        lengths (Tensor): (n_sequences,) int64 lengths on the CPU, descending.
        RETURNS (Tensor): (max_length, n_sequences, width) outputs, zero past
            each sequence's end.
        """
        if padded.shape[0] == 0:  # only empty docs: nothing to run, but a graph to keep
            return padded.clone()
        # Packing refuses empty sequences; an empty doc gets one padding step,
        # whose output nothing reads.
        packed = pack_padded_sequence(padded, lengths.clamp(min=1), enforce_sorted=True)
        outputs, _ = self.lstm(packed)
        unpacked, _ = pad_packed_sequence(outputs, total_length=padded.shape[0])
        return unpacked
