"""The shim module is the one reader of Thinc's private attributes; a Thinc
release that renames one fails here, by name, before anything else breaks."""
import ast
from pathlib import Path
from typing import Set

import thinc
import torch
from thinc.api import Model, PyTorchShim

import spacy_globalner
from spacy_globalner.ml.layers.pytorch_wrapper import THINC_INTERNALS, missing_thinc_internals


def test_thinc_still_has_the_private_attributes_the_shim_reads():
    missing = missing_thinc_internals()
    assert not missing, (
        f"Thinc {thinc.__version__} lacks {', '.join(missing)}: "
        "spacy_globalner/ml/layers/pytorch_wrapper.py reads them (THINC_INTERNALS); "
        "update it to this Thinc release's names."
    )


def private_names_read(path: Path) -> Set[str]:
    """The `_name` attributes a module reads or sets: `x._name`, and
    getattr/hasattr/setattr(x, "_name")."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
        if isinstance(node, ast.Attribute):
            name = node.attr
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("getattr", "hasattr", "setattr") and len(node.args) > 1
              and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
            name = node.args[1].value
        else:
            continue
        if name.startswith("_") and not name.startswith("__"):
            names.add(name)
    return names


def test_the_list_names_every_private_thinc_attribute_the_package_reads():
    """Each private attribute of Thinc's PyTorchShim and Model that a module
    of the package reads is read in the shim module alone and listed in
    THINC_INTERNALS, and each listed one is read there: a read the list
    misses would break unannounced on a Thinc release."""
    instances = {"PyTorchShim": PyTorchShim(torch.nn.Linear(1, 1)), "Model": Model("probe", lambda *a: None)}
    thinc_private = {owner: {name for name in dir(obj) if name.startswith("_") and not name.startswith("__")}
                     for owner, obj in instances.items()}
    assert thinc_private["PyTorchShim"] and thinc_private["Model"]
    package = Path(spacy_globalner.__file__).parent
    shim_module = package / "ml" / "layers" / "pytorch_wrapper.py"
    for path in package.rglob("*.py"):
        read = private_names_read(path) & set().union(*thinc_private.values())
        if path != shim_module:
            assert not read, f"{path.relative_to(package)} reads Thinc's {sorted(read)}: read them in the shim module"
    read = private_names_read(shim_module)
    listed = {(owner, name) for owner, names in THINC_INTERNALS.items() for name in names}
    used = {(owner, name) for owner, names in thinc_private.items() for name in names if name in read}
    assert used <= listed, f"read but not in THINC_INTERNALS: {sorted(used - listed)}"
    assert {name for _, name in listed} <= read, "THINC_INTERNALS lists an attribute the shim module never reads"
