"""A bidirectional LSTM over a padded batch that gives each sequence exactly
the states it would get alone, on torch's fast kernels for dense input.

torch.nn.LSTM over a padded batch starts the backward direction of every
sequence shorter than the longest one from the padding, so a doc's vectors
(and the entities found from them) change with the batch it shares. Packing
the batch fixes that, but on the CPU torch runs packed sequences on its
native kernels, not oneDNN's, which are several times slower there
(project/probes/encoder_speed.py measures both). Here each direction runs over a
dense batch whose padding comes after every sequence's own tokens: the
forward direction over the batch as it is, the backward one over each
sequence reversed within its own length, with the weights of one
bidirectional torch.nn.LSTM (so its state dict is nn.LSTM's).
"""
import torch


class BiLSTM(torch.nn.Module):
    """Bidirectional LSTM over a (length, batch, width) padded batch.

    width (int): Input and output width; each direction has width // 2 units.
    depth (int): Number of stacked layers.
    dropout (float): Dropout on the outputs of every layer but the last.
    """

    def __init__(self, width: int, depth: int, dropout: float):
        super().__init__()
        self.lstm = torch.nn.LSTM(width, width // 2, depth, bidirectional=True, dropout=dropout)

    def forward(self, padded: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """padded (Tensor): (max_length, n_sequences, width) inputs.
        lengths (Tensor): (n_sequences,) int64 lengths.
        RETURNS (Tensor): (max_length, n_sequences, width) outputs, zero past
            each sequence's end.
        """
        if padded.shape[0] == 0:  # only empty docs: nothing to run, but a graph to keep
            return padded.clone()
        return bilstm_by_direction(self.lstm, padded, lengths, batch_first=False)


def bilstm_by_direction(
    lstm: torch.nn.LSTM, padded: torch.Tensor, lengths: torch.Tensor, *, batch_first: bool
) -> torch.Tensor:
    """What the bidirectional `lstm` gives each padded sequence alone.

    lstm (torch.nn.LSTM): A bidirectional LSTM; its weights and dropout are used.
    padded (Tensor): Inputs, (length, batch, width) or, batch_first, (batch, length, width).
    lengths (Tensor): (batch,) int64 lengths.
    batch_first (bool): The layout of `padded` and of the output.
    RETURNS (Tensor): The outputs in the layout of `padded`, zero past each
        sequence's end.
    """
    time_dim = 1 if batch_first else 0
    steps = torch.arange(padded.shape[time_dim], device=padded.device)
    ends = lengths.to(padded.device)
    if batch_first:
        steps, ends = steps[None, :], ends[:, None]
    else:
        steps, ends = steps[:, None], ends[None, :]
    inside = steps < ends
    # Reverses each sequence within its own length and leaves its padding
    # where it is; applied twice, it restores the order.
    reverse = torch.where(inside, ends - 1 - steps, steps)[..., None]
    zeros = padded.new_zeros(1, padded.shape[1 - time_dim], lstm.hidden_size)
    names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
    states = padded
    for layer in range(lstm.num_layers):
        if layer and lstm.dropout:
            states = torch.nn.functional.dropout(states, lstm.dropout, lstm.training)
        directions = []
        for suffix in ("", "_reverse"):
            weights = [getattr(lstm, f"{name}_l{layer}{suffix}") for name in names]
            source = states.gather(time_dim, reverse.expand_as(states)) if suffix else states
            # torch.lstm is what nn.LSTM runs: (input, (h0, c0), weights,
            # has_biases, num_layers, dropout, train, bidirectional, batch_first).
            output = torch.lstm(source, (zeros, zeros), weights, True, 1, 0.0, lstm.training, False, batch_first)[0]
            directions.append(output.gather(time_dim, reverse.expand_as(output)) if suffix else output)
        states = torch.cat(directions, dim=-1)
    return states * inside[..., None].to(states.dtype)
