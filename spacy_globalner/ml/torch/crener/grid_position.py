"""Where a cell lies in the grid: a log-bucketed relative distance and a region."""
import torch
from torch import nn

MAX_DISTANCE_BUCKET = 9  # |j - i| >= 2^8 tokens share the last bucket
DIAGONAL, UPPER, LOWER = 0, 1, 2


def distance_buckets(n: int, device: torch.device) -> torch.Tensor:
    """Bucket of j - i for each cell (i, j) of an n x n grid, shape (n, n).

    0 for the diagonal, then 1, 2-3, 4-7, ... tokens apart (log2 buckets), signed
    (left of the diagonal below, right above), shifted to be non-negative.
    """
    positions = torch.arange(n, device=device)
    distance = positions[None, :] - positions[:, None]
    magnitude = distance.abs()
    bucket = torch.floor(torch.log2(magnitude.clamp(min=1).to(torch.float32))).long() + 1
    bucket = torch.where(magnitude == 0, torch.zeros_like(bucket), bucket.clamp(max=MAX_DISTANCE_BUCKET))
    return torch.sign(distance) * bucket + MAX_DISTANCE_BUCKET


def region_ids(n: int, device: torch.device) -> torch.Tensor:
    """Region of each cell (i, j): diagonal, upper triangle (j > i) or lower, (n, n)."""
    positions = torch.arange(n, device=device)
    upper = positions[None, :] > positions[:, None]
    lower = positions[None, :] < positions[:, None]
    return upper.long() * UPPER + lower.long() * LOWER


class GridPosition(nn.Module):
    """Embed each cell's relative distance bucket and region, concatenated.

    distance_width (int): Width of the distance embedding.
    region_width (int): Width of the region embedding.
    """

    def __init__(self, distance_width: int, region_width: int):
        super().__init__()
        self.distance = nn.Embedding(2 * MAX_DISTANCE_BUCKET + 1, distance_width)
        self.region = nn.Embedding(3, region_width)
        self.width = distance_width + region_width

    def forward(self, n: int, device: torch.device) -> torch.Tensor:
        """RETURNS (torch.Tensor): (n, n, distance_width + region_width)."""
        return torch.cat(
            (self.distance(distance_buckets(n, device)), self.region(region_ids(n, device))), dim=-1
        )
