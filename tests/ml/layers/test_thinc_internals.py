"""The shim module is the one reader of Thinc's private attributes; a Thinc
release that renames one fails here, by name, before anything else breaks."""
import thinc

from spacy_globalner.ml.layers.pytorch_wrapper import THINC_INTERNALS, missing_thinc_internals


def test_thinc_still_has_the_private_attributes_the_shim_reads():
    missing = missing_thinc_internals()
    assert not missing, (
        f"Thinc {thinc.__version__} lacks {', '.join(missing)}: "
        "spacy_globalner/ml/layers/pytorch_wrapper.py reads them (THINC_INTERNALS); "
        "update it to this Thinc release's names."
    )


def test_the_list_covers_the_shim_and_the_layer():
    assert THINC_INTERNALS == {
        "PyTorchShim": ("_model", "_mixed_precision", "_grad_scaler"),
        "Model": ("_layers",),
    }
