"""The registered architectures, one module per head."""
from thinc.api import Dropout, Model, chain


def head_over_tok2vec(tok2vec: Model, dropout: float, head: Model) -> Model:
    """tok2vec -> dropout -> head, the shape of the architectures whose head
    reads the token vectors alone.

    tok2vec (Model): The token vectors' model.
    dropout (float): Dropout rate on the token vectors.
    head (Model): The head layer, the node that owns its torch module.
    RETURNS (Model): The chain, with the refs "tok2vec" (that listeners and
        `replace_listeners` find) and "head" (that the component configures).
    """
    model = chain(tok2vec, Dropout(dropout), head)
    model.set_ref("tok2vec", tok2vec)
    model.set_ref("head", head)
    return model
