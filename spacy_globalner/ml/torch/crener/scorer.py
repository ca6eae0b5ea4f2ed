"""The CRENER grid scorer as a plain torch module (no spaCy, no Thinc).

token vectors -> (BiLSTM) -> (adapted Transformer) -> subject/object
projections -> conditional layer norm grid + distance/region (+ attention)
embeddings -> MLP -> dilated convolutions -> relation enhancement rounds ->
co-predictor (biaffine + grid MLP).

Two forms of relation enhancement (settings.enhancement):
- "pooled" (spacy-globalner.CRENER.v1's): one stream, pooled over rows and
  columns, attended, and added to the grid as row and column biases; the
  grid is convolved once.
- "paper" (the CRENER paper's eq. 9-15): tag-aware features from one
  projection per dilation rate, separate subject and object streams, and
  each round's streams fed back through the conditional layer norm and the
  dilated convolutions: enhancement_rounds rounds convolve the grid
  enhancement_rounds + 1 times.

The output has one channel per tag plus a threshold class in front (channel 0):
learned per cell, or fixed at 0.

With a band (forward's `band`), the co-predictor scores only the cells within
`band` of the diagonal, in band form (band.py), where a grid decoder finds
every entity of up to band + 1 tokens. Everything before the co-predictor
still runs on the whole grid, as both relation enhancements are global over
it: their max-pooling reads every cell of a row and of a column, and the
paper's form feeds the pooled streams back into the next pass's grid. The
band's cells therefore get exactly the scores of the whole grid's (up to the
order of floating-point sums).
"""
import warnings
from typing import Optional

import torch
from torch import nn
from torch.nn import functional as F

from .adapted_transformer import AdaptedTransformer
from .attention_embedding import AttentionEmbedding
from .band import gather_band
from .co_predictor import CoPredictor, fold_tag_projection
from .concatenated_linear import linear_of_blocks, linear_of_concatenation
from .conditional_layer_norm import ConditionalLayerNorm
from .context_encoder import BiLSTMContext
from .dilated_convolution import DilatedConvolutions
from .grid_position import GridPosition
from .relation_enhancement import RelationEnhancement, TagProjection, TwoStreamEnhancement
from .settings import CRENERSettings

ENHANCEMENTS = ("pooled", "paper")
PREDICTOR_INPUTS = ("grid", "tags", "grid+tags")
CLN_BIASES = ("subject", "object")


def is_banded(n: int, band: Optional[int]) -> bool:
    """Does a padded grid of n tokens get scored as its band? Cutting the
    band out of the convolved grid costs a copy of its cells, which scoring
    them fewer repays only where the band is at most half the grid's width."""
    return band is not None and 2 * (2 * band + 1) <= n


class CRENERScorer(nn.Module):
    """Score every tag of every token pair of each sequence in a padded batch.

    n_tags (int): Number of tags per cell (without the threshold class).
    settings (CRENERSettings): Widths and switches (the architecture's).
    """

    def __init__(self, n_tags: int, settings: CRENERSettings):
        super().__init__()
        s = settings
        self.settings = settings
        # The rate is set again before every pass (set_dropout_rate); None
        # (follow the caller's rate) starts at 0.
        dropout = 0.0 if s.dropout is None else s.dropout
        self.n_tags = n_tags
        self.learned_threshold = s.learned_threshold
        n_out = n_tags + int(s.learned_threshold)
        with warnings.catch_warnings():
            # The tok2vec's width is only known from the first batch (or the
            # weights being loaded), so the first projection is lazy.
            warnings.filterwarnings("ignore", message="Lazy modules")
            self.input = nn.LazyLinear(s.token_width)
        self.input_dropout = nn.Dropout(dropout)
        self.context = BiLSTMContext(s.token_width, s.context_depth) if s.context_depth > 0 else None
        self.transformer = (
            AdaptedTransformer(s.token_width, s.transformer_depth, s.attention_heads, dropout)
            if s.transformer_depth > 0
            else None
        )
        self.subject = nn.Linear(s.token_width, s.grid_width)
        self.object = nn.Linear(s.token_width, s.grid_width)
        self.layer_norm = ConditionalLayerNorm(s.grid_width, bias_from=s.cln_bias_from)
        self.position = GridPosition(s.distance_width, s.region_width)
        self.attention_embedding = (
            AttentionEmbedding(s.token_width, s.attention_embedding_width)
            if s.attention_embedding_width > 0
            else None
        )
        self.reduce = nn.Sequential(
            nn.Linear(s.grid_width + self.position.width + s.attention_embedding_width, s.conv_width),
            nn.GELU(),
            nn.Dropout(dropout),
        )
        self.convolutions = DilatedConvolutions(s.conv_width, s.dilations, parallel=s.parallel_dilations)
        self.paper_enhancement = s.enhancement == "paper"
        wants_tags = self.paper_enhancement or s.predictor_input != "grid"
        self.tags = TagProjection(s.conv_width, len(s.dilations), n_out) if wants_tags else None
        if self.paper_enhancement:
            self.enhancements = nn.ModuleList(
                TwoStreamEnhancement(self.tags.width, s.grid_width, s.attention_heads, dropout)
                for _ in range(s.enhancement_rounds)
            )
        else:
            self.enhancements = nn.ModuleList(
                RelationEnhancement(self.convolutions.width, s.token_width, n_out, s.attention_heads)
                for _ in range(s.enhancement_rounds)
            )
        predictor_width = {
            "grid": self.convolutions.width,
            "tags": self.tags.width if self.tags is not None else 0,
            "grid+tags": self.convolutions.width + (self.tags.width if self.tags is not None else 0),
        }[s.predictor_input]
        self.predictor = CoPredictor(
            s.token_width, predictor_width, s.biaffine_width, s.predictor_width, n_out, dropout
        )

    def set_dropout_rate(self, rate: float) -> None:
        """Set the rate of every dropout layer and of the attention weights'
        dropout (the head sets it before every pass)."""
        for module in self.modules():
            if isinstance(module, nn.Dropout):
                module.p = rate
            elif isinstance(module, nn.MultiheadAttention):
                module.dropout = rate

    def forward(self, X: torch.Tensor, lengths: torch.Tensor, band: Optional[int] = None) -> torch.Tensor:
        """X (torch.Tensor): Padded token vectors (batch, n, n_in).
        lengths (torch.Tensor): Real length of each sequence (batch,), all >= 1.
        band (Optional[int]): Score only the cells within `band` of the
            diagonal, returned in band form (see band.py), where the band is
            at most half as wide as the grid (banded(n, band)); None, or a
            wider band: every cell.
        RETURNS (torch.Tensor): Logits (batch, n, n, 1 + n_tags), or (batch,
            n, 2 * band + 1, 1 + n_tags) in band form; channel 0 the
            threshold class. Cells outside a sequence hold arbitrary values.
        """
        n = X.shape[1]
        token_mask = torch.arange(n, device=X.device)[None, :] < lengths.to(X.device)[:, None]
        cell_mask = token_mask[:, :, None] & token_mask[:, None, :]
        tokens = self.input_dropout(self.input(X))
        if self.context is not None:
            tokens = self.context(tokens, lengths)
        if self.transformer is not None:
            tokens = self.transformer(tokens, token_mask)
        # The grid embeddings that do not change between rounds.
        embeddings = [self.position(n, X.device)[None]]
        if self.attention_embedding is not None:
            embeddings.append(self.attention_embedding(tokens, token_mask))
        subjects, objects = self.subject(tokens), self.object(tokens)
        # Prediction with the pooled enhancement reads the convolved grid
        # through linear maps only: it keeps the convolutions' blocks apart.
        as_blocks = not torch.is_grad_enabled() and not self.paper_enhancement
        grid = self._convolve(subjects, objects, embeddings, cell_mask, as_blocks)
        if self.paper_enhancement:
            first_subjects, first_objects = subjects, objects
            for enhancement in self.enhancements:
                subjects, objects = enhancement(self.tags(grid), first_subjects, first_objects, cell_mask, token_mask)
                grid = self._convolve(subjects, objects, embeddings, cell_mask)
        first_layer = None
        if self.settings.predictor_input != "grid":
            # The MLP reads TF(grid) (beside the grid): folded into its first
            # layer, as TF is linear in the grid.
            grid_width = self.convolutions.width if self.settings.predictor_input == "grid+tags" else 0
            first_layer = fold_tag_projection(self.predictor.grid_mlp[0], self.tags, grid_width)
        rows = columns = hidden = None
        banded = is_banded(n, band)
        round_tags = [None] * len(self.enhancements)
        if as_blocks:
            hidden, round_tags = self._block_products(grid, first_layer, band if banded else None)
            grid = None
        if not self.paper_enhancement and self.enhancements:
            # The pooled enhancement's grid, grid + rows[:, :, None] + columns[:, None],
            # stays in its three parts: the co-predictor reads them apart. In
            # training the MLP's first layer and every round's tag projection
            # read the convolved grid in one product (one pass over the grid
            # and its gradient instead of one per layer); prediction does the
            # same on the convolutions' blocks (_block_products).
            if torch.is_grad_enabled():
                hidden, *round_tags = self._grid_products(grid, first_layer)
            for enhancement, tags in zip(self.enhancements, round_tags):
                rows, columns = enhancement.biases(grid, tokens, cell_mask, token_mask, rows, columns, tags)
        if banded and grid is not None:
            grid = gather_band(grid, band)
            if hidden is not None:
                hidden = gather_band(hidden, band)
        scores = self.predictor(tokens, grid, first_layer, rows, columns, hidden, band if banded else None)
        if not self.learned_threshold:
            scores = torch.cat((torch.zeros_like(scores[..., :1]), scores), dim=-1)
        return scores

    def _grid_products(self, grid, first_layer):
        """The co-predictor's first layer (first_layer, or its own) and the
        pooled rounds' tag projections applied to the grid as one linear
        map, its output split back into theirs: (hidden, tags of round 1, ...)."""
        layers = [self.predictor.first_layer(first_layer)]
        layers += [(e.to_tags.weight, e.to_tags.bias) for e in self.enhancements]
        weight = torch.cat([w for w, _ in layers])
        bias = torch.cat([b for _, b in layers])
        return F.linear(grid, weight, bias).split([w.shape[0] for w, _ in layers], dim=-1)

    def _block_products(self, blocks, first_layer, band):
        """Prediction's linear maps of the convolved grid, read from its
        blocks (linear_of_blocks): the co-predictor's first layer and the
        pooled rounds' tag projections in one product, or, with a band, the
        tag projections on the whole grid (their max-pooling reads every
        cell) and the first layer on the band's cells only.
        RETURNS (Tuple[torch.Tensor, List[torch.Tensor]]): hidden (in band
            form with a band) and each round's tags."""
        first = self.predictor.first_layer(first_layer)
        layers = [(e.to_tags.weight, e.to_tags.bias) for e in self.enhancements]
        if band is None:
            layers.insert(0, first)
        outputs = []
        if layers:
            weight = torch.cat([w for w, _ in layers])
            bias = torch.cat([b for _, b in layers])
            outputs = list(linear_of_blocks(blocks, weight, bias).split([w.shape[0] for w, _ in layers], dim=-1))
        if band is None:
            return outputs[0], outputs[1:]
        return linear_of_blocks([gather_band(block, band) for block in blocks], *first), outputs

    def _convolve(self, subjects, objects, embeddings, cell_mask, as_blocks: bool = False):
        """The convolution module: CLN grid of (subjects, objects), joined by
        the grid embeddings, reduced by MLP_1 (eq. 7), then the dilated
        convolutions (eq. 8). MLP_1's linear layer reads the parts of the
        grid one by one (the position embeddings once for the batch).
        RETURNS: the grid (batch, n, n, width), or with as_blocks its
        blocks, one per dilation (DilatedConvolutions.blocks)."""
        grid = self.layer_norm(objects, subjects)
        linear, *rest = self.reduce
        grid = linear_of_concatenation(linear, [grid] + [e.to(grid.dtype) for e in embeddings])
        for layer in rest:
            grid = layer(grid)
        grid = grid.masked_fill(~cell_mask[..., None], 0.0)
        if as_blocks:
            return self.convolutions.blocks(grid, cell_mask)
        return self.convolutions(grid, cell_mask)
