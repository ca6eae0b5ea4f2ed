"""Saving and loading a span component: cfg first, then the head's shape,
then the weights, checked for shape and for NaN or inf.

At load the component has just been created from the pipeline's config (with
the user's overrides): for a setting, that value is the one used. Only what
training learned comes from the saved cfg.
"""
import warnings
from pathlib import Path
from typing import Any, Dict, Iterable, Optional, Tuple

import numpy
import srsly
from spacy import util
from thinc.api import Model

from ..errors import Errors, Warnings
from ..ml.layers.pytorch_wrapper import shim_module


class TwoPhaseRestore:
    """to_bytes/to_disk and from_bytes/from_disk of a lazily built torch head.
    Mixed into SpanPipe, which provides `_init_model_shape()`.

    The keys in `learned_cfg_keys` are learned state: loading restores them
    from the saved cfg. Those in `inferred_cfg_keys` are settings that
    initialize() infers from the data when the config leaves them None:
    loading restores them while the config still says None. For every other
    setting the value the component was created with wins.
    """

    learned_cfg_keys: Tuple[str, ...] = ("labels", "thresholds")
    inferred_cfg_keys: Tuple[str, ...] = ()

    def _restore_cfg(self, saved: Dict[str, Any]) -> None:
        """Merge a saved cfg: learned keys (and keys the config does not set)
        from `saved`; inferred keys from `saved` while the config leaves them
        None; every other setting keeps the value the component was created with.
        """
        for key, value in saved.items():
            learned = key in self.learned_cfg_keys or key not in self.cfg
            inferred = key in self.inferred_cfg_keys and self.cfg[key] is None
            if learned or inferred:
                self.cfg[key] = value

    def _warn_unsaved_settings(self) -> None:
        """W005 for each setting edited in self.cfg after creation: the config
        the pipeline is saved with still holds the old value, which wins at load.
        """
        for key, configured in self._configured_settings.items():
            value = self.cfg.get(key)
            if value != configured and not (key in self.inferred_cfg_keys and configured is None):
                warnings.warn(
                    Warnings.W005.format(name=self.name, key=key, value=value, configured=configured)
                )

    def _load_cfg(self, data: bytes, where: str) -> None:
        try:
            saved = srsly.json_loads(data)
        except ValueError as err:
            raise ValueError(Errors.E014.format(name=self.name, where=where, err=err)) from None
        if not isinstance(saved, dict) or not isinstance(saved.get("labels"), list):
            err = f"found {type(saved).__name__} without a labels list"
            raise ValueError(Errors.E014.format(name=self.name, where=where, err=err))
        self._restore_cfg(saved)

    def _load_model(self, data: bytes, where: str) -> None:
        self._init_model_shape()
        # Thinc restores each node's saved attrs; the head's attrs are the
        # architecture's settings, which the config gives (as for cfg above).
        configured = [(node, dict(node.attrs)) for node in self.model.get_ref("head").walk()]
        try:
            self.model.from_bytes(data)
        # msgpack, Thinc's dimension checks and torch's state dict each raise
        # their own types; to a user all of them mean "these weights don't load".
        except Exception as err:
            raise ValueError(
                Errors.E015.format(
                    name=self.name, where=where, err=f"{type(err).__name__}: {str(err).rstrip('.')}",
                    n_labels=len(self.labels), labels=list(self.labels),
                )
            ) from err
        # A pipe built before (loading into an initialized pipe) keeps its head's
        # shape, so Thinc sees no change of nO: compare with the labels here.
        n_outputs = self.model.get_ref("head").get_dim("nO")
        if n_outputs != self._n_head_outputs():
            raise ValueError(
                Errors.E015.format(
                    name=self.name, where=where, n_labels=len(self.labels), labels=list(self.labels),
                    err=f"the weights have {n_outputs} outputs, the labels need {self._n_head_outputs()}",
                )
            )
        for node, attrs in configured:
            node.attrs.update(attrs)
        count, param = non_finite_weights(self.model)
        if count:
            raise ValueError(Errors.E016.format(name=self.name, where=where, count=count, param=param))

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        self._warn_unsaved_settings()
        return super().to_bytes(exclude=exclude)

    def to_disk(self, path: Path, *, exclude: Iterable[str] = tuple()) -> None:
        self._warn_unsaved_settings()
        super().to_disk(path, exclude=exclude)

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "TwoPhaseRestore":
        self._validate_serialization_attrs()
        try:
            msg = srsly.msgpack_loads(bytes_data)
        except (ValueError, TypeError) as err:  # msgpack: truncated, or not msgpack at all
            raise ValueError(
                Errors.E017.format(name=self.name, err=f"{type(err).__name__}: {str(err).rstrip('.')}")
            ) from err
        where = "the {!r} entry of the bytes given to from_bytes".format
        if not isinstance(msg, dict):
            raise ValueError(Errors.E017.format(name=self.name, err=f"found a {type(msg).__name__}"))
        for key in ("cfg", "model"):
            if key not in exclude and key not in msg:
                raise ValueError(Errors.E013.format(name=self.name, where=where(key)))
        if "cfg" not in exclude:
            self._load_cfg(msg["cfg"], where("cfg"))
        if "vocab" not in exclude and "vocab" in msg:
            self.vocab.from_bytes(msg["vocab"], exclude=exclude)
        if "model" not in exclude:
            self._load_model(msg["model"], where("model"))
        return self

    def from_disk(self, path: Path, *, exclude: Iterable[str] = tuple()) -> "TwoPhaseRestore":
        self._validate_serialization_attrs()

        def read(part_path: Path) -> bytes:
            if not part_path.is_file():
                raise ValueError(Errors.E013.format(name=self.name, where=part_path))
            return part_path.read_bytes()

        deserialize = {
            "cfg": lambda cfg_path: self._load_cfg(read(cfg_path), str(cfg_path)),
            "vocab": lambda vocab_path: self.vocab.from_disk(vocab_path, exclude=exclude),
            "model": lambda model_path: self._load_model(read(model_path), str(model_path)),
        }
        util.from_disk(path, deserialize, exclude)
        return self


def non_finite_weights(model: Model) -> Tuple[int, Optional[str]]:
    """Count the NaN/inf weights of a model, Thinc params and torch tensors alike.

    RETURNS (Tuple[int, Optional[str]]): The count and the first offending
        parameter ("node.param"), or (0, None).
    """
    count, first = 0, None
    for node in model.walk():
        arrays = [
            (name, node.ops.to_numpy(node.get_param(name)))
            for name in node.param_names
            if node.has_param(name)
        ]
        for shim in node.shims:
            module = shim_module(shim)
            if module is not None:
                arrays.extend(
                    (name, tensor.detach().float().cpu().numpy())
                    for name, tensor in module.state_dict().items()
                    if tensor.is_floating_point()
                )
        for name, array in arrays:
            bad = int(array.size - numpy.isfinite(array).sum())
            if bad and first is None:
                first = f"{node.name}.{name}"
            count += bad
    return count, first
