"""The band of a token-pair grid: the cells (i, j) with |j - i| <= band.

An entity of w tokens has its closing cells at (head, tail) and (tail, head),
w - 1 cells off the diagonal, and its neighbour links in between, so a grid
decoder that finds entities of up to band + 1 tokens reads the band only.

Band form stores row i's cells j = i - band .. i + band as columns 0 .. 2 *
band of an (n, 2 * band + 1) array: column k holds cell (i, i + k - band).
Where i + k - band lies outside [0, n) the cell holds an arbitrary value.
"""
import torch


def band_columns(n: int, band: int, device: torch.device) -> torch.Tensor:
    """The grid column of each band cell, clamped into [0, n).

    n (int): Tokens in the grid.
    band (int): Cells kept on either side of the diagonal.
    device (torch.device): Where the index lives.
    RETURNS (torch.Tensor): Int64 (n, 2 * band + 1).
    """
    rows = torch.arange(n, device=device)[:, None]
    offsets = torch.arange(-band, band + 1, device=device)[None, :]
    return (rows + offsets).clamp(0, max(n - 1, 0))


def gather_band(grid: torch.Tensor, band: int) -> torch.Tensor:
    """The band of a batch of grids.

    grid (torch.Tensor): (batch, n, n, width).
    band (int): Cells kept on either side of the diagonal.
    RETURNS (torch.Tensor): (batch, n, 2 * band + 1, width).
    """
    batch, n, _, width = grid.shape
    columns = band_columns(n, band, grid.device)
    index = columns[None, :, :, None].expand(batch, n, columns.shape[1], width)
    return grid.gather(2, index)


def gather_columns(tokens: torch.Tensor, band: int) -> torch.Tensor:
    """Each band cell's column token: (batch, n, width) -> (batch, n, 2 *
    band + 1, width), cell (i, k) holding token i + k - band.

    tokens (torch.Tensor): (batch, n, width).
    band (int): Cells kept on either side of the diagonal.
    RETURNS (torch.Tensor): (batch, n, 2 * band + 1, width).
    """
    return tokens[:, band_columns(tokens.shape[1], band, tokens.device)]
